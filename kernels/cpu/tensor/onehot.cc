// OneHot: out has the indices shape with a new dim of size `depth` at `axis`;
// out[.., j, ..] = values[1] where j == index (negative indices count from
// depth) and values[0] elsewhere; out-of-range indices give an all-off row.
// Indices and depth may be of any numeric type (floats truncate). With a
// runtime depth, Run checks it against the planned output shape.
#include <cmath>
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class OneHotKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    int64_t depth = -1;
    int axis = 0;
    RETURN_IF_ERROR(Plan(s, &depth, &axis));
    const Shape& idx = s.inputs[0].shape;
    const DType dtype = s.inputs[2].dtype;
    if (depth >= 0) {
      RETURN_IF_ERROR(CheckOutput(s, 0, dtype, OutShape(idx, axis, depth)));
    } else {
      const TensorInfo& o = s.outputs[0];
      if (o.dtype != dtype || o.rank() != static_cast<int>(idx.size()) + 1 ||
          OutShape(idx, axis, o.shape[static_cast<size_t>(axis)]) != o.shape)
        return s.Invalid("output 0 is " + std::string(DTypeName(o.dtype)) + " " + ShapeToString(o.shape) +
                         ", expected " + DTypeName(dtype) + " " + ShapeToString(OutShape(idx, axis, -1)) +
                         " with -1 the depth");
      depth_runtime_ = true;
      depth_dtype_ = s.inputs[1].dtype;
    }
    depth_ = s.outputs[0].shape[static_cast<size_t>(axis)];
    outer_ = DimProduct(idx, 0, static_cast<size_t>(axis));
    inner_ = DimProduct(idx, static_cast<size_t>(axis), idx.size());
    idx_dtype_ = s.inputs[0].dtype;
    elem_size_ = DTypeSize(dtype);
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    int64_t depth = -1;
    int axis = 0;
    RETURN_IF_ERROR(Plan(s, &depth, &axis));
    if (depth < 0) return s.Unsupported("OneHot with a non-constant 'depth' input");
    *shapes = {OutShape(s.inputs[0].shape, axis, depth)};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (depth_runtime_) {
      const double d = LoadAsDouble(args.inputs[1], depth_dtype_, 0);
      if (!(d >= 1 && d < 9e15) || static_cast<int64_t>(d) != depth_)
        return Status::InvalidArgument("runtime depth " + std::to_string(d) + " contradicts the planned " +
                                       std::to_string(depth_));
    }
    const char* values = static_cast<const char*>(args.inputs[2]);
    char* out = static_cast<char*>(args.outputs[0]);
    FillElements(args.pool, out, values, elem_size_, outer_ * depth_ * inner_);
    const void* indices = args.inputs[0];
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        const double v = LoadAsDouble(indices, idx_dtype_, o * inner_ + i);
        if (!(v > -static_cast<double>(depth_) - 1 && v < static_cast<double>(depth_))) continue;
        int64_t j = static_cast<int64_t>(v);
        if (j < 0) j += depth_;
        if (j < 0 || j >= depth_) continue;
        std::memcpy(out + static_cast<size_t>((o * depth_ + j) * inner_ + i) * elem_size_, values + elem_size_,
                    elem_size_);
      }
    }
    return Status::Ok();
  }

 private:
  static Shape OutShape(const Shape& idx, int axis, int64_t depth) {
    Shape out = idx;
    out.insert(out.begin() + axis, depth);
    return out;
  }
  // depth = -1 when the depth input is runtime data.
  static Status Plan(const KernelSetup& s, int64_t* depth, int* axis) {
    RETURN_IF_ERROR(CheckNode(s, 3, 3, 1, 1));
    const TensorInfo& idx = s.inputs[0];
    if (idx.dtype == DType::kBool) return s.Invalid("input 'indices' is bool, expected a numeric type");
    if (s.inputs[1].dtype == DType::kBool) return s.Invalid("input 'depth' is bool, expected a numeric type");
    RETURN_IF_ERROR(CheckScalarLike(s, 1, "depth"));
    if (s.inputs[2].rank() != 1 || s.inputs[2].num_elements() != 2)
      return s.Invalid("input 'values' has shape " + ShapeToString(s.inputs[2].shape) + ", expected 2");
    if (idx.rank() + 1 > kMaxRank) return s.Unsupported("output rank " + std::to_string(idx.rank() + 1));
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", -1, idx.rank() + 1, axis));
    *depth = -1;
    if (s.inputs[1].const_data) {
      const double d = LoadAsDouble(s.inputs[1].const_data, s.inputs[1].dtype, 0);
      if (!(d >= 1 && d < 9e15)) return s.Invalid("depth " + std::to_string(d) + " must be >= 1");
      *depth = static_cast<int64_t>(d);
    }
    return Status::Ok();
  }

  bool depth_runtime_ = false;
  DType depth_dtype_ = DType::kInt64;
  int64_t depth_ = 0, outer_ = 0, inner_ = 0;
  DType idx_dtype_ = DType::kInt64;
  size_t elem_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeOneHotKernel() { return std::make_unique<OneHotKernel>(); }

}  // namespace tensor
}  // namespace loom
