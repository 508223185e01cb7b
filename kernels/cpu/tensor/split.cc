// Split: cuts the input along `axis` into the outputs. Sizes come from the
// `split` attribute (opset < 13), the `split` input (opset 1 and >= 13), or an
// equal split over the outputs (`num_outputs` from opset 18, where the last
// chunk may be smaller). The mirror image of Concat: each output is a block of
// columns of the input seen as an [outer, axis * inner] matrix.
#include <cstdint>

#include "kernels/cpu/tensor/strided_copy.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class SplitKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    std::vector<int64_t> sizes;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &sizes, &axis_, &known));
    const Shape& in = s.inputs[0].shape;
    const int64_t axis_dim = in[static_cast<size_t>(axis_)];
    if (!known) {  // runtime 'split' input: sizes come from the planned outputs
      sizes.clear();
      for (const TensorInfo& o : s.outputs)
        sizes.push_back(o.rank() == static_cast<int>(in.size()) ? o.shape[static_cast<size_t>(axis_)] : -1);
      runtime_split_ = true;
      split_dtype_ = s.inputs[1].dtype;
    }
    const size_t es = DTypeSize(s.inputs[0].dtype);
    const int64_t outer = DimProduct(in, 0, static_cast<size_t>(axis_));
    const int64_t inner = DimProduct(in, static_cast<size_t>(axis_) + 1, in.size());
    const int64_t in_row = axis_dim * inner;
    copies_.resize(s.outputs.size());
    src_offsets_.resize(s.outputs.size());
    sizes_ = sizes;
    int64_t column = 0;
    for (size_t i = 0; i < s.outputs.size(); ++i) {
      Shape out = in;
      out[static_cast<size_t>(axis_)] = sizes[i];
      RETURN_IF_ERROR(CheckOutput(s, i, s.inputs[0].dtype, out));
      const int64_t row = sizes[i] * inner;
      const int64_t dims[2] = {outer, row};
      const int64_t src_strides[2] = {in_row, 1};
      const int64_t dst_strides[2] = {row, 1};
      copies_[i].Build(2, dims, src_strides, dst_strides, es);
      src_offsets_[i] = column * static_cast<int64_t>(es);
      column += row;
    }
    if (column != in_row)
      return s.Invalid("outputs cover " + std::to_string(column / (inner ? inner : 1)) + " of " +
                       std::to_string(axis_dim) + " entries on axis " + std::to_string(axis_));
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    std::vector<int64_t> sizes;
    int axis = 0;
    bool known = false;
    RETURN_IF_ERROR(Plan(s, &sizes, &axis, &known));
    if (!known) return s.Unsupported("Split with a non-constant 'split' input");
    shapes->clear();
    for (int64_t n : sizes) {
      Shape out = s.inputs[0].shape;
      out[static_cast<size_t>(axis)] = n;
      shapes->push_back(out);
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    if (runtime_split_) {
      for (size_t i = 0; i < sizes_.size(); ++i) {
        const int64_t v = LoadIndex(args.inputs[1], split_dtype_, static_cast<int64_t>(i));
        if (v != sizes_[i])
          return Status::InvalidArgument("runtime 'split' value " + std::to_string(v) + " for output " +
                                         std::to_string(i) + " contradicts the planned size " +
                                         std::to_string(sizes_[i]));
      }
    }
    const char* src = static_cast<const char*>(args.inputs[0]);
    for (size_t i = 0; i < copies_.size(); ++i) copies_[i].Run(args.pool, src + src_offsets_[i], args.outputs[i]);
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, std::vector<int64_t>* sizes, int* axis, bool* known) {
    const bool split_input = s.opset >= 13 || s.opset < 2;
    RETURN_IF_ERROR(CheckNode(s, 1, split_input ? 2 : 1, 1, SIZE_MAX));
    const TensorInfo& x = s.inputs[0];
    if (x.rank() == 0) return s.Invalid("input is a scalar; Split needs rank >= 1");
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 0, x.rank(), axis));
    const int64_t dim = x.shape[static_cast<size_t>(*axis)];
    const int64_t n = static_cast<int64_t>(s.outputs.size());
    *known = true;
    bool given = false;
    if (s.HasInput(1)) {
      RETURN_IF_ERROR(CheckIndexDType(s, 1, "split"));
      if (s.inputs[1].rank() != 1 || s.inputs[1].num_elements() != n)
        return s.Invalid("input 'split' has shape " + ShapeToString(s.inputs[1].shape) + ", expected " +
                         std::to_string(n) + " (one size per output)");
      given = true;
      *known = s.inputs[1].const_data != nullptr;
      if (!*known) return Status::Ok();
      RETURN_IF_ERROR(ConstInts(s, 1, sizes));
    } else if (s.opset < 13) {
      RETURN_IF_ERROR(ReadIntsAttr(s, "split", sizes, &given));
    }
    if (given) {
      if (static_cast<int64_t>(sizes->size()) != n)
        return s.Invalid("'split' " + IntsToString(*sizes) + " has " + std::to_string(sizes->size()) + " values for " +
                         std::to_string(n) + " outputs");
      int64_t total = 0;
      for (int64_t v : *sizes) {
        if (v < 0) return s.Invalid("'split' " + IntsToString(*sizes) + " has a negative size");
        total += v;
      }
      if (total != dim)
        return s.Invalid("'split' " + IntsToString(*sizes) + " sums to " + std::to_string(total) + ", axis " +
                         std::to_string(*axis) + " has " + std::to_string(dim));
      return Status::Ok();
    }
    int64_t num_outputs = n;
    if (s.opset >= 18 && s.attrs.Has("num_outputs")) {
      RETURN_IF_ERROR(ReadIntAttr(s, "num_outputs", n, &num_outputs));
      if (num_outputs != n)
        return s.Invalid("attribute 'num_outputs' = " + std::to_string(num_outputs) + " but the node has " +
                         std::to_string(n) + " outputs");
      const int64_t chunk = (dim + n - 1) / n;
      if (chunk * (n - 1) > dim)
        return s.Invalid("cannot split " + std::to_string(dim) + " entries into " + std::to_string(n) + " chunks");
      sizes->assign(static_cast<size_t>(n), chunk);
      sizes->back() = dim - chunk * (n - 1);
      return Status::Ok();
    }
    if (dim % n != 0)
      return s.Invalid("axis " + std::to_string(*axis) + " of size " + std::to_string(dim) +
                       " does not split evenly into " + std::to_string(n) + " outputs");
    sizes->assign(static_cast<size_t>(n), dim / n);
    return Status::Ok();
  }

  int axis_ = 0;
  std::vector<int64_t> sizes_;
  std::vector<StridedCopy> copies_;
  std::vector<int64_t> src_offsets_;  // bytes
  bool runtime_split_ = false;
  DType split_dtype_ = DType::kInt64;
};

}  // namespace

std::unique_ptr<Kernel> MakeSplitKernel() { return std::make_unique<SplitKernel>(); }

}  // namespace tensor
}  // namespace loom
