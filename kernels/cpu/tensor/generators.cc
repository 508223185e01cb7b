// Ops that create tensors from attributes and scalars: ConstantOfShape (fill
// with the one-element `value` tensor attribute, default float 0), Range
// (start + i * delta for i < max(ceil((limit - start) / delta), 0)), EyeLike
// (ones on diagonal k) and Constant (the builder folds Constants into
// initializers; this kernel keeps plans with a Constant node runnable).
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

// ------------------------------------------------------------ ConstantOfShape

class ConstantOfShapeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(ReadValue(s));
    const TensorInfo& shape = s.inputs[0];
    if (shape.const_data) {
      Shape out;
      RETURN_IF_ERROR(ConstShape(s, &out));
      RETURN_IF_ERROR(CheckOutput(s, 0, dtype_, out));
    } else {
      if (s.outputs[0].dtype != dtype_ || s.outputs[0].rank() != shape.num_elements())
        return s.Invalid("output 0 is " + std::string(DTypeName(s.outputs[0].dtype)) + " " +
                         ShapeToString(s.outputs[0].shape) + ", expected " + DTypeName(dtype_) + " of rank " +
                         std::to_string(shape.num_elements()));
      runtime_ = true;
      shape_dtype_ = shape.dtype;
    }
    out_shape_ = s.outputs[0].shape;
    count_ = s.outputs[0].num_elements();
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    ConstantOfShapeKernel k;
    RETURN_IF_ERROR(k.ReadValue(s));
    if (!s.inputs[0].const_data) return s.Unsupported("ConstantOfShape with a non-constant 'input'");
    Shape out;
    RETURN_IF_ERROR(ConstShape(s, &out));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (runtime_) {
      for (size_t d = 0; d < out_shape_.size(); ++d) {
        const int64_t v = LoadIndex(args.inputs[0], shape_dtype_, static_cast<int64_t>(d));
        if (v != out_shape_[d])
          return Status::InvalidArgument("runtime shape value " + std::to_string(v) + " at index " + std::to_string(d) +
                                         " contradicts the planned output shape " + ShapeToString(out_shape_));
      }
    }
    FillElements(args.pool, args.outputs[0], value_, DTypeSize(dtype_), count_);
    return Status::Ok();
  }

 private:
  Status ReadValue(const KernelSetup& s) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 0, "input"));
    if (s.inputs[0].rank() != 1)
      return s.Invalid("input has shape " + ShapeToString(s.inputs[0].shape) + ", expected 1-D");
    const Attribute* a = s.attrs.Find("value");
    if (!a) {
      dtype_ = DType::kFloat32;
      std::memset(value_, 0, sizeof(value_));
      return Status::Ok();
    }
    if (a->kind != Attribute::Kind::kTensor || !a->tensor)
      return s.Invalid(std::string("attribute 'value' is ") + AttributeKindName(a->kind) + ", expected tensor");
    const AttrTensor& t = *a->tensor;
    const size_t es = DTypeSize(t.dtype);
    if (es == 0) return s.Unsupported(std::string("'value' dtype ") + DTypeName(t.dtype));
    if (NumElements(t.dims) != 1 || t.data.size() != es)
      return s.Invalid("attribute 'value' must hold exactly one element, has shape " + ShapeToString(t.dims));
    dtype_ = t.dtype;
    std::memcpy(value_, t.data.data(), es);
    return Status::Ok();
  }
  static Status ConstShape(const KernelSetup& s, Shape* out) {
    RETURN_IF_ERROR(ConstInts(s, 0, out));
    for (int64_t d : *out)
      if (d < 0) return s.Invalid("shape " + ShapeToString(*out) + " has a negative dim");
    if (out->size() > static_cast<size_t>(kMaxRank)) return s.Unsupported("output rank " + std::to_string(out->size()));
    if (NumElements(*out) < 0) return s.Invalid("shape " + ShapeToString(*out) + " is too large");
    return Status::Ok();
  }

  DType dtype_ = DType::kFloat32;
  uint8_t value_[8] = {};
  bool runtime_ = false;
  DType shape_dtype_ = DType::kInt64;
  Shape out_shape_;
  int64_t count_ = 0;
};

// ---------------------------------------------------------------------- Range

bool IsRangeDType(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

// Number of elements; -1 for delta 0 or overflow.
int64_t RangeCount(DType t, const void* start, const void* limit, const void* delta) {
  if (t == DType::kFloat32 || t == DType::kFloat64) {
    const double a = LoadAsDouble(start, t, 0);
    const double b = LoadAsDouble(limit, t, 0);
    const double d = LoadAsDouble(delta, t, 0);
    if (d == 0 || !std::isfinite(a) || !std::isfinite(b) || !std::isfinite(d)) return -1;
    const double n = std::ceil((b - a) / d);
    if (n <= 0) return 0;
    return n > static_cast<double>(int64_t{1} << 56) ? -1 : static_cast<int64_t>(n);
  }
  auto load = [t](const void* p) -> int64_t {
    switch (t) {
      case DType::kInt16:
        return *static_cast<const int16_t*>(p);
      case DType::kInt32:
        return *static_cast<const int32_t*>(p);
      default:
        return *static_cast<const int64_t*>(p);
    }
  };
  const int64_t first = load(start), last = load(limit), step = load(delta);
  if (step == 0) return -1;
  int64_t diff = 0;
  if (__builtin_sub_overflow(last, first, &diff)) return -1;
  if ((diff > 0) != (step > 0) || diff == 0) return 0;
  // ceil(diff / step) with both of the same sign, without overflow.
  const int64_t q = diff / step;
  return diff % step != 0 ? q + 1 : q;
}

class RangeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    int64_t n = 0;
    RETURN_IF_ERROR(Plan(s, &n));
    dtype_ = s.inputs[0].dtype;
    if (n >= 0) {
      RETURN_IF_ERROR(CheckOutput(s, 0, dtype_, {n}));
    } else {
      runtime_ = true;
      if (s.outputs[0].dtype != dtype_ || s.outputs[0].rank() != 1)
        return s.Invalid("output 0 is " + std::string(DTypeName(s.outputs[0].dtype)) + " " +
                         ShapeToString(s.outputs[0].shape) + ", expected 1-D " + DTypeName(dtype_));
    }
    count_ = s.outputs[0].shape[0];
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    int64_t n = 0;
    RETURN_IF_ERROR(Plan(s, &n));
    if (n < 0) return s.Unsupported("Range with non-constant inputs");
    *shapes = {{n}};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (runtime_) {
      const int64_t n = RangeCount(dtype_, args.inputs[0], args.inputs[1], args.inputs[2]);
      if (n != count_)
        return Status::InvalidArgument("runtime start/limit/delta give " +
                                       (n < 0 ? std::string("an invalid range") : std::to_string(n) + " elements") +
                                       ", the plan expects " + std::to_string(count_));
    }
    DispatchNumeric(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T start = *static_cast<const T*>(args.inputs[0]);
      const T delta = *static_cast<const T*>(args.inputs[2]);
      T* out = static_cast<T*>(args.outputs[0]);
      for (int64_t i = 0; i < count_; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
    });
    return Status::Ok();
  }

 private:
  // n = -1 when an input is not constant.
  static Status Plan(const KernelSetup& s, int64_t* n) {
    RETURN_IF_ERROR(CheckNode(s, 3, 3, 1, 1));
    const DType t = s.inputs[0].dtype;
    if (!IsRangeDType(t)) return s.Unsupported(std::string("dtype ") + DTypeName(t));
    const char* names[3] = {"start", "limit", "delta"};
    for (size_t i = 0; i < 3; ++i) {
      RETURN_IF_ERROR(CheckInputDType(s, i, t, names[i]));
      RETURN_IF_ERROR(CheckScalarLike(s, i, names[i]));
    }
    *n = -1;
    if (!s.inputs[0].const_data || !s.inputs[1].const_data || !s.inputs[2].const_data) return Status::Ok();
    *n = RangeCount(t, s.inputs[0].const_data, s.inputs[1].const_data, s.inputs[2].const_data);
    if (*n < 0) return s.Invalid("delta is 0, or the range is not finite or too large");
    return Status::Ok();
  }

  DType dtype_ = DType::kFloat32;
  bool runtime_ = false;
  int64_t count_ = 0;
};

// -------------------------------------------------------------------- EyeLike

class EyeLikeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    DType dtype = DType::kUndefined;
    RETURN_IF_ERROR(Plan(s, &dtype));
    RETURN_IF_ERROR(CheckOutput(s, 0, dtype, s.inputs[0].shape));
    RETURN_IF_ERROR(ReadIntAttr(s, "k", 0, &k_));
    rows_ = s.inputs[0].shape[0];
    cols_ = s.inputs[0].shape[1];
    elem_size_ = DTypeSize(dtype);
    StoreFromDouble(1.0, dtype, one_);
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    DType dtype = DType::kUndefined;
    RETURN_IF_ERROR(Plan(s, &dtype));
    *shapes = {s.inputs[0].shape};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    char* out = static_cast<char*>(args.outputs[0]);
    std::memset(out, 0, static_cast<size_t>(rows_ * cols_) * elem_size_);
    for (int64_t i = 0; i < rows_; ++i) {
      if (k_ < -rows_ || k_ > cols_) break;
      const int64_t j = i + k_;
      if (j >= 0 && j < cols_) std::memcpy(out + static_cast<size_t>(i * cols_ + j) * elem_size_, one_, elem_size_);
    }
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, DType* dtype) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    if (s.inputs[0].rank() != 2)
      return s.Invalid("input has shape " + ShapeToString(s.inputs[0].shape) + ", expected 2-D");
    int64_t code = 0;
    RETURN_IF_ERROR(ReadIntAttr(s, "dtype", static_cast<int64_t>(s.inputs[0].dtype), &code));
    if (code < 0 || code > 64 || !IsKnownDType(static_cast<int32_t>(code)) || DTypeSize(static_cast<DType>(code)) == 0)
      return s.Unsupported("attribute dtype=" + std::to_string(code));
    *dtype = static_cast<DType>(code);
    return Status::Ok();
  }

  int64_t k_ = 0, rows_ = 0, cols_ = 0;
  size_t elem_size_ = 0;
  uint8_t one_[8] = {};
};

// ------------------------------------------------------------------- Constant

class ConstantKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(Plan(s));
    return CheckOutput(s, 0, dtype_, shape_);
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    ConstantKernel k;
    RETURN_IF_ERROR(k.Plan(s));
    *shapes = {k.shape_};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (!bytes_.empty()) std::memcpy(args.outputs[0], bytes_.data(), bytes_.size());
    return Status::Ok();
  }

 private:
  Status Plan(const KernelSetup& s) {
    RETURN_IF_ERROR(CheckNode(s, 0, 0, 1, 1));
    if (s.attrs.size() != 1)
      return s.Invalid("needs exactly one value attribute, has " + std::to_string(s.attrs.size()) + " attributes");
    const Attribute& a = s.attrs.all()[0];
    using K = Attribute::Kind;
    if (a.name == "value" && a.kind == K::kTensor && a.tensor) {
      const AttrTensor& t = *a.tensor;
      if (DTypeSize(t.dtype) == 0) return s.Unsupported(std::string("'value' dtype ") + DTypeName(t.dtype));
      const int64_t n = NumElements(t.dims);
      if (n < 0 || static_cast<size_t>(n) * DTypeSize(t.dtype) != t.data.size())
        return s.Invalid("attribute 'value' has " + std::to_string(t.data.size()) + " bytes for shape " +
                         ShapeToString(t.dims));
      dtype_ = t.dtype;
      shape_ = t.dims;
      bytes_ = t.data;
    } else if (a.name == "value_float" && (a.kind == K::kFloat || a.kind == K::kInt)) {
      Set<float>(DType::kFloat32, {}, {a.kind == K::kFloat ? a.f : static_cast<float>(a.i)});
    } else if (a.name == "value_floats" && a.kind == K::kFloats) {
      Set<float>(DType::kFloat32, {static_cast<int64_t>(a.floats.size())}, a.floats);
    } else if (a.name == "value_int" && a.kind == K::kInt) {
      Set<int64_t>(DType::kInt64, {}, {a.i});
    } else if (a.name == "value_ints" && a.kind == K::kInts) {
      Set<int64_t>(DType::kInt64, {static_cast<int64_t>(a.ints.size())}, a.ints);
    } else if (a.name == "value" || a.name == "value_float" || a.name == "value_floats" || a.name == "value_int" ||
               a.name == "value_ints") {
      return s.Invalid("attribute '" + a.name + "' has the wrong kind " + AttributeKindName(a.kind));
    } else {
      return s.Unsupported("attribute '" + a.name + "'");
    }
    return Status::Ok();
  }
  template <typename T>
  void Set(DType dtype, Shape shape, const std::vector<T>& values) {
    dtype_ = dtype;
    shape_ = std::move(shape);
    const uint8_t* begin = reinterpret_cast<const uint8_t*>(values.data());
    bytes_.assign(begin, begin + values.size() * sizeof(T));
  }

  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::vector<uint8_t> bytes_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConstantOfShapeKernel() { return std::make_unique<ConstantOfShapeKernel>(); }
std::unique_ptr<Kernel> MakeRangeKernel() { return std::make_unique<RangeKernel>(); }
std::unique_ptr<Kernel> MakeEyeLikeKernel() { return std::make_unique<EyeLikeKernel>(); }
std::unique_ptr<Kernel> MakeConstantKernel() { return std::make_unique<ConstantKernel>(); }

}  // namespace tensor
}  // namespace loom
