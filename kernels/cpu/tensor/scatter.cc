// ScatterElements (also the deprecated Scatter, opset 9-10) and ScatterND.
// The output starts as a copy of data (skipped when run in place); updates are
// then written, or combined for reduction add/mul/max/min, at the positions
// the indices select. Updates are applied serially in index order, so with
// duplicate indices and no reduction the last update wins. All indices are
// checked before the output is touched.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Status ParseReduction(const KernelSetup& s, Reduction* r) {
  std::string name;
  RETURN_IF_ERROR(ReadStringAttr(s, "reduction", "none", &name));
  if (name == "none") {
    *r = Reduction::kNone;
  } else if (name == "add") {
    *r = Reduction::kAdd;
  } else if (name == "mul") {
    *r = Reduction::kMul;
  } else if (name == "max") {
    *r = Reduction::kMax;
  } else if (name == "min") {
    *r = Reduction::kMin;
  } else {
    return s.Invalid("attribute reduction='" + name + "' is not none, add, mul, max or min");
  }
  if (*r != Reduction::kNone && !IsNumericDType(s.inputs[0].dtype))
    return s.Unsupported("reduction='" + name + "' on " + DTypeName(s.inputs[0].dtype));
  return Status::Ok();
}

// Integer add/mul wrap around (computed unsigned, as no UB may occur).
template <typename T>
inline T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) + static_cast<W>(static_cast<U>(b))));
  } else {
    return a + b;
  }
}
template <typename T>
inline T Mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

template <typename T>
inline void Combine(Reduction r, T* dst, const T* src, int64_t n) {
  switch (r) {
    case Reduction::kNone:
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
      return;
    case Reduction::kAdd:
      for (int64_t i = 0; i < n; ++i) dst[i] = Add(dst[i], src[i]);
      return;
    case Reduction::kMul:
      for (int64_t i = 0; i < n; ++i) dst[i] = Mul(dst[i], src[i]);
      return;
    case Reduction::kMax:
      for (int64_t i = 0; i < n; ++i) dst[i] = std::max(dst[i], src[i]);
      return;
    case Reduction::kMin:
      for (int64_t i = 0; i < n; ++i) dst[i] = std::min(dst[i], src[i]);
      return;
  }
}

// Calls fn(TypeTag<T>) with the element type used for this dtype/reduction.
template <typename Fn>
void DispatchElement(DType dtype, Reduction r, Fn&& fn) {
  if (r == Reduction::kNone) {
    DispatchBySize(DTypeSize(dtype), fn);
  } else {
    DispatchNumeric(dtype, fn);
  }
}

class ScatterElementsKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 3, 3, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "indices"));
    const TensorInfo& data = s.inputs[0];
    const TensorInfo& idx = s.inputs[1];
    const TensorInfo& upd = s.inputs[2];
    if (data.rank() == 0) return s.Invalid("input 'data' is a scalar; needs rank >= 1");
    if (idx.rank() != data.rank())
      return s.Invalid("input 'indices' has rank " + std::to_string(idx.rank()) + ", 'data' has rank " +
                       std::to_string(data.rank()));
    if (upd.shape != idx.shape || upd.dtype != data.dtype)
      return s.Invalid("input 'updates' is " + std::string(DTypeName(upd.dtype)) + " " + ShapeToString(upd.shape) +
                       ", expected " + DTypeName(data.dtype) + " " + ShapeToString(idx.shape));
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 0, data.rank(), &axis_));
    for (int d = 0; d < data.rank(); ++d) {
      if (d != axis_ && idx.shape[static_cast<size_t>(d)] > data.shape[static_cast<size_t>(d)])
        return s.Invalid("input 'indices' shape " + ShapeToString(idx.shape) + " exceeds 'data' shape " +
                         ShapeToString(data.shape) + " on axis " + std::to_string(d));
    }
    RETURN_IF_ERROR(ParseReduction(s, &reduction_));
    RETURN_IF_ERROR(CheckOutput(s, 0, data.dtype, data.shape));
    idx_shape_ = idx.shape;
    data_strides_ = StridesOf(data.shape);
    dim_ = data.shape[static_cast<size_t>(axis_)];
    n_idx_ = idx.num_elements();
    idx_dtype_ = idx.dtype;
    dtype_ = data.dtype;
    bytes_ = data.num_bytes();
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 3, 3, 1, 1));
    *shapes = {s.inputs[0].shape};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (n_idx_ > 0) RETURN_IF_ERROR(FirstBadIndex(args.inputs[1], idx_dtype_, n_idx_, dim_));
    CopyBytes(args.pool, args.outputs[0], args.inputs[0], bytes_);
    if (n_idx_ == 0) return Status::Ok();
    DispatchElement(dtype_, reduction_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (idx_dtype_ == DType::kInt32) {
        Apply<T, int32_t>(args);
      } else {
        Apply<T, int64_t>(args);
      }
    });
    return Status::Ok();
  }

 private:
  template <typename T, typename I>
  void Apply(const KernelArgs& args) const {
    const I* indices = static_cast<const I*>(args.inputs[1]);
    const T* updates = static_cast<const T*>(args.inputs[2]);
    T* out = static_cast<T*>(args.outputs[0]);
    const int last = static_cast<int>(idx_shape_.size()) - 1;
    const int64_t row_len = idx_shape_.back();
    const int64_t rows = n_idx_ / row_len;
    const int64_t step = axis_ == last ? 0 : 1;
    const int64_t istride = axis_ == last ? 1 : data_strides_[static_cast<size_t>(axis_)];
    for (int64_t row = 0; row < rows; ++row) {
      int64_t rem = row;
      int64_t base = 0;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t i = rem % idx_shape_[static_cast<size_t>(d)];
        rem /= idx_shape_[static_cast<size_t>(d)];
        if (d != axis_) base += i * data_strides_[static_cast<size_t>(d)];
      }
      for (int64_t j = 0; j < row_len; ++j) {
        int64_t v = indices[row * row_len + j];
        if (v < 0) v += dim_;
        Combine<T>(reduction_, out + base + j * step + v * istride, updates + row * row_len + j, 1);
      }
    }
  }

  int axis_ = 0;
  Reduction reduction_ = Reduction::kNone;
  Shape idx_shape_;
  Shape data_strides_;
  int64_t dim_ = 0, n_idx_ = 0;
  DType idx_dtype_ = DType::kInt64;
  DType dtype_ = DType::kFloat32;
  size_t bytes_ = 0;
};

class ScatterNDKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 3, 3, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "indices"));
    const TensorInfo& data = s.inputs[0];
    const TensorInfo& idx = s.inputs[1];
    const TensorInfo& upd = s.inputs[2];
    if (data.rank() == 0 || idx.rank() == 0)
      return s.Invalid("'data' and 'indices' need rank >= 1, got " + ShapeToString(data.shape) + " and " +
                       ShapeToString(idx.shape));
    k_ = idx.shape.back();
    if (k_ < 1 || k_ > data.rank())
      return s.Invalid("last dim of 'indices' is " + std::to_string(k_) + ", expected 1 to " +
                       std::to_string(data.rank()));
    Shape want(idx.shape.begin(), idx.shape.end() - 1);
    want.insert(want.end(), data.shape.begin() + k_, data.shape.end());
    if (upd.shape != want || upd.dtype != data.dtype)
      return s.Invalid("input 'updates' is " + std::string(DTypeName(upd.dtype)) + " " + ShapeToString(upd.shape) +
                       ", expected " + DTypeName(data.dtype) + " " + ShapeToString(want));
    RETURN_IF_ERROR(ParseReduction(s, &reduction_));
    RETURN_IF_ERROR(CheckOutput(s, 0, data.dtype, data.shape));
    const Shape strides = StridesOf(data.shape);
    dims_.assign(data.shape.begin(), data.shape.begin() + k_);
    strides_.assign(strides.begin(), strides.begin() + k_);
    tuples_ = DimProduct(idx.shape, 0, idx.shape.size() - 1);
    slice_ = DimProduct(data.shape, static_cast<size_t>(k_), data.shape.size());
    idx_dtype_ = idx.dtype;
    dtype_ = data.dtype;
    bytes_ = data.num_bytes();
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 3, 3, 1, 1));
    *shapes = {s.inputs[0].shape};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const void* indices = args.inputs[1];
    for (int64_t t = 0; t < tuples_; ++t) {
      for (int64_t j = 0; j < k_; ++j) {
        const int64_t v = LoadIndex(indices, idx_dtype_, t * k_ + j);
        const int64_t dim = dims_[static_cast<size_t>(j)];
        if (v < -dim || v >= dim)
          return Status::OutOfRange("index " + std::to_string(v) + " at position " + std::to_string(j) + " of tuple " +
                                    std::to_string(t) + " out of range [" + std::to_string(-dim) + ", " +
                                    std::to_string(dim) + ")");
      }
    }
    CopyBytes(args.pool, args.outputs[0], args.inputs[0], bytes_);
    if (tuples_ == 0 || slice_ == 0) return Status::Ok();
    DispatchElement(dtype_, reduction_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* updates = static_cast<const T*>(args.inputs[2]);
      T* out = static_cast<T*>(args.outputs[0]);
      for (int64_t t = 0; t < tuples_; ++t) {
        int64_t offset = 0;
        for (int64_t j = 0; j < k_; ++j) {
          int64_t v = LoadIndex(indices, idx_dtype_, t * k_ + j);
          if (v < 0) v += dims_[static_cast<size_t>(j)];
          offset += v * strides_[static_cast<size_t>(j)];
        }
        Combine<T>(reduction_, out + offset, updates + t * slice_, slice_);
      }
    });
    return Status::Ok();
  }

 private:
  Reduction reduction_ = Reduction::kNone;
  int64_t k_ = 0, tuples_ = 0, slice_ = 0;
  std::vector<int64_t> dims_, strides_;
  DType idx_dtype_ = DType::kInt64;
  DType dtype_ = DType::kFloat32;
  size_t bytes_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeScatterElementsKernel() { return std::make_unique<ScatterElementsKernel>(); }
std::unique_ptr<Kernel> MakeScatterNDKernel() { return std::make_unique<ScatterNDKernel>(); }

}  // namespace tensor
}  // namespace loom
