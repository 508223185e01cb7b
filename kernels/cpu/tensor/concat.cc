// Concat: joins inputs along `axis`. Seen as [outer, axis * inner] matrices,
// each input is a block of columns of the output, copied row by row. An input
// that already sits at its place in the output (concat elision by the memory
// planner) is skipped.
#include <cstdint>

#include "kernels/cpu/tensor/strided_copy.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class ConcatKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    int axis = 0;
    RETURN_IF_ERROR(Plan(s, &out, &axis));
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out));
    const size_t es = DTypeSize(s.inputs[0].dtype);
    const int64_t outer = DimProduct(out, 0, static_cast<size_t>(axis));
    const int64_t inner = DimProduct(out, static_cast<size_t>(axis) + 1, out.size());
    const int64_t out_row = out[static_cast<size_t>(axis)] * inner;
    int64_t column = 0;
    copies_.resize(s.inputs.size());
    dst_offsets_.resize(s.inputs.size());
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const int64_t row = s.inputs[i].shape[static_cast<size_t>(axis)] * inner;
      const int64_t dims[2] = {outer, row};
      const int64_t src_strides[2] = {row, 1};
      const int64_t dst_strides[2] = {out_row, 1};
      copies_[i].Build(2, dims, src_strides, dst_strides, es);
      dst_offsets_[i] = column * static_cast<int64_t>(es);
      column += row;
    }
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out;
    int axis = 0;
    RETURN_IF_ERROR(Plan(s, &out, &axis));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    char* dst = static_cast<char*>(args.outputs[0]);
    for (size_t i = 0; i < copies_.size(); ++i) {
      if (args.inputs[i] == dst + dst_offsets_[i]) continue;
      copies_[i].Run(args.pool, args.inputs[i], dst + dst_offsets_[i]);
    }
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, Shape* out, int* axis) {
    RETURN_IF_ERROR(CheckNode(s, 1, SIZE_MAX, 1, 1));
    const TensorInfo& first = s.inputs[0];
    if (first.rank() == 0) return s.Invalid("input 0 is a scalar; Concat needs rank >= 1");
    if (s.opset >= 4 && !s.attrs.Has("axis")) return s.Invalid("attribute 'axis' is required");
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 1, first.rank(), axis));
    *out = first.shape;
    (*out)[static_cast<size_t>(*axis)] = 0;
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const TensorInfo& t = s.inputs[i];
      if (t.dtype != first.dtype)
        return s.Invalid("input " + std::to_string(i) + " has dtype " + DTypeName(t.dtype) + ", expected " +
                         DTypeName(first.dtype));
      bool same = t.rank() == first.rank();
      for (int d = 0; same && d < t.rank(); ++d)
        same = d == *axis || t.shape[static_cast<size_t>(d)] == first.shape[static_cast<size_t>(d)];
      if (!same)
        return s.Invalid("input " + std::to_string(i) + " has shape " + ShapeToString(t.shape) +
                         ", incompatible with input 0 shape " + ShapeToString(first.shape) + " on axis " +
                         std::to_string(*axis));
      (*out)[static_cast<size_t>(*axis)] += t.shape[static_cast<size_t>(*axis)];
    }
    return Status::Ok();
  }

  std::vector<StridedCopy> copies_;
  std::vector<int64_t> dst_offsets_;  // bytes
};

}  // namespace

std::unique_ptr<Kernel> MakeConcatKernel() { return std::make_unique<ConcatKernel>(); }

}  // namespace tensor
}  // namespace loom
