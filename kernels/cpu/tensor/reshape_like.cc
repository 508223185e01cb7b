// Reshape, Flatten, Squeeze and Unsqueeze: the output holds the input's bytes
// unchanged under a new shape, so Run is one (possibly in-place) copy. When the
// shape-defining input (Reshape's `shape`, Squeeze/Unsqueeze `axes`) is runtime
// data, Run first checks that it agrees with the plan's static output shape.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

// Shared part: the byte copy and the bookkeeping for a runtime shape input.
class ViewKernel : public Kernel {
 public:
  Status Run(const KernelArgs& args) const override {
    if (runtime_input_ >= 0) RETURN_IF_ERROR(CheckRuntime(args.inputs[runtime_input_]));
    CopyBytes(args.pool, args.outputs[0], args.inputs[0], bytes_);
    return Status::Ok();
  }

 protected:
  // Checks a runtime shape input against in_shape_/out_shape_.
  virtual Status CheckRuntime(const void* data) const {
    (void)data;
    return Status::Ok();
  }
  Status Finish(const KernelSetup& s, const Shape& out_shape) {
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out_shape));
    bytes_ = s.inputs[0].num_bytes();
    return Status::Ok();
  }
  // For a runtime shape input: the output must at least hold the same data.
  Status FinishRuntime(const KernelSetup& s, size_t input) {
    const TensorInfo& out = s.outputs[0];
    if (out.dtype != s.inputs[0].dtype)
      return s.Invalid(std::string("output 0 has dtype ") + DTypeName(out.dtype) + ", expected " +
                       DTypeName(s.inputs[0].dtype));
    if (out.num_elements() != s.inputs[0].num_elements())
      return s.Invalid("output 0 has shape " + ShapeToString(out.shape) + " with " +
                       std::to_string(out.num_elements()) + " elements, input has " +
                       std::to_string(s.inputs[0].num_elements()));
    runtime_input_ = static_cast<int>(input);
    runtime_dtype_ = s.inputs[input].dtype;
    runtime_count_ = s.inputs[input].num_elements();
    in_shape_ = s.inputs[0].shape;
    out_shape_ = out.shape;
    bytes_ = s.inputs[0].num_bytes();
    return Status::Ok();
  }

  size_t bytes_ = 0;
  int runtime_input_ = -1;
  DType runtime_dtype_ = DType::kInt64;
  int64_t runtime_count_ = 0;
  Shape in_shape_;
  Shape out_shape_;
};

// ---------------------------------------------------------------- Reshape

Status ResolveReshape(const KernelSetup& s, const Shape& in, const std::vector<int64_t>& spec, bool allowzero,
                      Shape* out) {
  out->clear();
  int infer = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    const int64_t v = spec[i];
    if (v == -1) {
      if (infer >= 0) return s.Invalid("shape " + IntsToString(spec) + " has more than one -1");
      infer = static_cast<int>(i);
      out->push_back(1);
    } else if (v == 0 && !allowzero) {
      if (i >= in.size())
        return s.Invalid("shape " + IntsToString(spec) + " copies dim " + std::to_string(i) +
                         " (0) that the input of rank " + std::to_string(in.size()) + " lacks");
      out->push_back(in[i]);
    } else if (v < 0) {
      return s.Invalid("shape " + IntsToString(spec) + " has invalid dim " + std::to_string(v));
    } else {
      out->push_back(v);
    }
  }
  const int64_t n_in = NumElements(in);
  const int64_t known = NumElements(*out);
  if (known < 0) return s.Invalid("shape " + IntsToString(spec) + " is too large");
  if (infer >= 0) {
    if (known == 0 || n_in % known != 0)
      return s.Invalid("cannot infer the -1 dim of shape " + IntsToString(spec) + " for input shape " +
                       ShapeToString(in));
    (*out)[static_cast<size_t>(infer)] = n_in / known;
  } else if (known != n_in) {
    return s.Invalid("shape " + IntsToString(spec) + " has " + std::to_string(known) + " elements, input " +
                     ShapeToString(in) + " has " + std::to_string(n_in));
  }
  return Status::Ok();
}

class ReshapeKernel final : public ViewKernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &out, &known, &allowzero_));
    if (known) return Finish(s, out);
    if (s.outputs[0].rank() != s.inputs[1].num_elements())
      return s.Invalid("output 0 has rank " + std::to_string(s.outputs[0].rank()) + ", 'shape' has " +
                       std::to_string(s.inputs[1].num_elements()) + " values");
    return FinishRuntime(s, 1);
  }

  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out;
    bool known = false;
    bool allowzero = false;
    RETURN_IF_ERROR(Plan(s, &out, &known, &allowzero));
    if (!known) return s.Unsupported("Reshape with a non-constant 'shape' input");
    *shapes = {out};
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, Shape* out, bool* known, bool* allowzero_out) {
    std::vector<int64_t> spec;
    int64_t allowzero = 0;
    RETURN_IF_ERROR(ReadIntAttr(s, "allowzero", 0, &allowzero));
    *allowzero_out = allowzero != 0;
    if (s.opset < 5) {
      RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
      bool present = false;
      RETURN_IF_ERROR(ReadIntsAttr(s, "shape", &spec, &present));
      if (!present) return s.Invalid("attribute 'shape' is required before opset 5");
    } else {
      RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
      RETURN_IF_ERROR(CheckIndexDType(s, 1, "shape"));
      if (s.inputs[1].rank() != 1)
        return s.Invalid("input 'shape' has shape " + ShapeToString(s.inputs[1].shape) + ", expected 1-D");
      *known = s.inputs[1].const_data != nullptr;
      if (!*known) return Status::Ok();
      RETURN_IF_ERROR(ConstInts(s, 1, &spec));
    }
    *known = true;
    return ResolveReshape(s, s.inputs[0].shape, spec, *allowzero_out, out);
  }

  Status CheckRuntime(const void* data) const override {
    int infer = 0;
    for (int64_t i = 0; i < runtime_count_; ++i) {
      const int64_t v = LoadIndex(data, runtime_dtype_, i);
      const int64_t want = out_shape_[static_cast<size_t>(i)];
      if (v == -1 && ++infer == 1) continue;
      int64_t dim = v;
      if (v == 0 && !allowzero_) dim = static_cast<size_t>(i) < in_shape_.size() ? in_shape_[i] : -1;
      if (dim != want)
        return Status::InvalidArgument("runtime 'shape' value " + std::to_string(v) + " at index " + std::to_string(i) +
                                       " contradicts the planned output shape " + ShapeToString(out_shape_));
    }
    return Status::Ok();
  }

  bool allowzero_ = false;
};

// ---------------------------------------------------------------- Flatten

class FlattenKernel final : public ViewKernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    RETURN_IF_ERROR(Plan(s, &out));
    return Finish(s, out);
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out;
    RETURN_IF_ERROR(Plan(s, &out));
    *shapes = {out};
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, Shape* out) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    const Shape& in = s.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = 1;
    RETURN_IF_ERROR(ReadIntAttr(s, "axis", 1, &axis));
    if (axis < -rank || axis > rank)
      return s.Invalid("attribute 'axis' = " + std::to_string(axis) + " out of range [" + std::to_string(-rank) + ", " +
                       std::to_string(rank) + "]");
    if (axis < 0) axis += rank;
    *out = {DimProduct(in, 0, static_cast<size_t>(axis)), DimProduct(in, static_cast<size_t>(axis), in.size())};
    return Status::Ok();
  }
};

// ------------------------------------------------------- Squeeze, Unsqueeze

// Reads the axes of Squeeze/Unsqueeze: the attribute before opset 13, the
// optional input from 13. *known is false when the input is runtime data.
Status ReadAxes(const KernelSetup& s, bool required, std::vector<int64_t>* axes, bool* given, bool* known) {
  *known = true;
  if (s.opset < 13) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    RETURN_IF_ERROR(ReadIntsAttr(s, "axes", axes, given));
  } else {
    RETURN_IF_ERROR(CheckNode(s, required ? 2 : 1, 2, 1, 1));
    *given = s.HasInput(1);
    if (*given) {
      RETURN_IF_ERROR(CheckIndexDType(s, 1, "axes"));
      if (s.inputs[1].rank() > 1)
        return s.Invalid("input 'axes' has shape " + ShapeToString(s.inputs[1].shape) + ", expected 1-D");
      *known = s.inputs[1].const_data != nullptr;
      if (*known) RETURN_IF_ERROR(ConstInts(s, 1, axes));
    }
  }
  if (required && !*given) return s.Invalid("'axes' is required");
  return Status::Ok();
}

class SqueezeKernel final : public ViewKernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &out, &known));
    if (known) return Finish(s, out);
    return FinishRuntime(s, 1);
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &out, &known));
    if (!known) return s.Unsupported("Squeeze with a non-constant 'axes' input");
    *shapes = {out};
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, Shape* out, bool* known) {
    std::vector<int64_t> axes;
    bool given = false;
    RETURN_IF_ERROR(ReadAxes(s, false, &axes, &given, known));
    if (!*known) return Status::Ok();
    const Shape& in = s.inputs[0].shape;
    std::vector<int64_t> norm;
    RETURN_IF_ERROR(NormalizeAxes(s, axes, static_cast<int64_t>(in.size()), "'axes'", &norm));
    std::vector<bool> drop(in.size(), false);
    for (int64_t a : norm) {
      if (in[static_cast<size_t>(a)] != 1)
        return s.Invalid("cannot squeeze axis " + std::to_string(a) + " of size " +
                         std::to_string(in[static_cast<size_t>(a)]) + " in input shape " + ShapeToString(in));
      drop[static_cast<size_t>(a)] = true;
    }
    out->clear();
    for (size_t i = 0; i < in.size(); ++i) {
      const bool squeeze = given && !axes.empty() ? drop[i] : in[i] == 1;
      if (!squeeze) out->push_back(in[i]);
    }
    return Status::Ok();
  }

  Status CheckRuntime(const void* data) const override {
    const int64_t rank = static_cast<int64_t>(in_shape_.size());
    bool drop[kMaxRank] = {};
    for (int64_t i = 0; i < runtime_count_; ++i) {
      int64_t a = 0;
      if (!NormalizeAxis(LoadIndex(data, runtime_dtype_, i), rank, &a) || drop[a] || in_shape_[a] != 1)
        return Status::InvalidArgument("runtime 'axes' value " + std::to_string(LoadIndex(data, runtime_dtype_, i)) +
                                       " is invalid for input shape " + ShapeToString(in_shape_));
      drop[a] = true;
    }
    size_t k = 0;
    for (int64_t i = 0; i < rank; ++i) {
      const bool squeeze = runtime_count_ > 0 ? drop[i] : in_shape_[i] == 1;
      if (squeeze) continue;
      if (k >= out_shape_.size() || out_shape_[k] != in_shape_[i])
        return Status::InvalidArgument("runtime 'axes' contradict the planned output shape " +
                                       ShapeToString(out_shape_));
      ++k;
    }
    if (k != out_shape_.size())
      return Status::InvalidArgument("runtime 'axes' contradict the planned output shape " + ShapeToString(out_shape_));
    return Status::Ok();
  }
};

class UnsqueezeKernel final : public ViewKernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &out, &known));
    if (known) return Finish(s, out);
    if (s.outputs[0].rank() != s.inputs[0].rank() + s.inputs[1].num_elements())
      return s.Invalid("output 0 has rank " + std::to_string(s.outputs[0].rank()) + ", expected " +
                       std::to_string(s.inputs[0].rank() + s.inputs[1].num_elements()));
    return FinishRuntime(s, 1);
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &out, &known));
    if (!known) return s.Unsupported("Unsqueeze with a non-constant 'axes' input");
    *shapes = {out};
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, Shape* out, bool* known) {
    std::vector<int64_t> axes;
    bool given = false;
    RETURN_IF_ERROR(ReadAxes(s, true, &axes, &given, known));
    if (!*known) return Status::Ok();
    const Shape& in = s.inputs[0].shape;
    const int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
    if (out_rank > kMaxRank) return s.Unsupported("output rank " + std::to_string(out_rank));
    std::vector<int64_t> norm;
    RETURN_IF_ERROR(NormalizeAxes(s, axes, out_rank, "'axes'", &norm));
    std::vector<bool> ones(static_cast<size_t>(out_rank), false);
    for (int64_t a : norm) ones[static_cast<size_t>(a)] = true;
    out->clear();
    size_t k = 0;
    for (int64_t i = 0; i < out_rank; ++i) out->push_back(ones[static_cast<size_t>(i)] ? 1 : in[k++]);
    return Status::Ok();
  }

  Status CheckRuntime(const void* data) const override {
    const int64_t out_rank = static_cast<int64_t>(out_shape_.size());
    bool ones[kMaxRank] = {};
    for (int64_t i = 0; i < runtime_count_; ++i) {
      int64_t a = 0;
      if (!NormalizeAxis(LoadIndex(data, runtime_dtype_, i), out_rank, &a) || ones[a] || out_shape_[a] != 1)
        return Status::InvalidArgument("runtime 'axes' value " + std::to_string(LoadIndex(data, runtime_dtype_, i)) +
                                       " contradicts the planned output shape " + ShapeToString(out_shape_));
      ones[a] = true;
    }
    size_t k = 0;
    for (int64_t i = 0; i < out_rank; ++i) {
      if (ones[i]) continue;
      if (k >= in_shape_.size() || in_shape_[k] != out_shape_[i])
        return Status::InvalidArgument("runtime 'axes' contradict the planned output shape " +
                                       ShapeToString(out_shape_));
      ++k;
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeReshapeKernel() { return std::make_unique<ReshapeKernel>(); }
std::unique_ptr<Kernel> MakeFlattenKernel() { return std::make_unique<FlattenKernel>(); }
std::unique_ptr<Kernel> MakeSqueezeKernel() { return std::make_unique<SqueezeKernel>(); }
std::unique_ptr<Kernel> MakeUnsqueezeKernel() { return std::make_unique<UnsqueezeKernel>(); }

}  // namespace tensor
}  // namespace loom
