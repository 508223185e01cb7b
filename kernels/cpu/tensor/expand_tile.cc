// Expand (bidirectional broadcast of the input against `shape`) and Tile
// (`repeats` copies per dim). Both become a StridedCopy with source stride 0
// on repeated dims; Tile splits each output dim d into (repeat, input dim d).
// The copy depends only on the static shapes, so with a runtime shape or
// repeats input Run only checks the values against the planned output.
#include "kernels/cpu/tensor/strided_copy.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

// Broadcast of two dims; -1 when incompatible.
inline int64_t BroadcastDim(int64_t a, int64_t b) {
  if (a == b || b == 1) return a;
  if (a == 1) return b;
  return -1;
}

class ExpandKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "shape"));
    const TensorInfo& x = s.inputs[0];
    const TensorInfo& shape = s.inputs[1];
    if (shape.rank() != 1) return s.Invalid("input 'shape' has shape " + ShapeToString(shape.shape) + ", expected 1-D");
    const Shape& out = s.outputs[0].shape;
    if (shape.const_data) {
      Shape want;
      RETURN_IF_ERROR(Broadcast(s, &want));
      RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, want));
    } else {
      runtime_ = true;
      shape_dtype_ = shape.dtype;
      shape_len_ = shape.num_elements();
      const int64_t want_rank = shape_len_ > x.rank() ? shape_len_ : x.rank();
      if (s.outputs[0].dtype != x.dtype || static_cast<int64_t>(out.size()) != want_rank)
        return s.Invalid("output 0 is " + std::string(DTypeName(s.outputs[0].dtype)) + " " + ShapeToString(out) +
                         ", expected " + DTypeName(x.dtype) + " of rank " + std::to_string(want_rank));
      const size_t lead = out.size() - x.shape.size();
      for (size_t d = 0; d < x.shape.size(); ++d)
        if (BroadcastDim(x.shape[d], out[lead + d]) != out[lead + d])
          return s.Invalid("input shape " + ShapeToString(x.shape) + " does not broadcast to output " +
                           ShapeToString(out));
    }
    in_shape_ = x.shape;
    out_shape_ = out;
    // Source strides aligned to the right of the output dims; 0 where broadcast.
    const Shape in_strides = StridesOf(x.shape);
    const size_t lead = out.size() - x.shape.size();
    int64_t src[kMaxRank], dst[kMaxRank];
    const Shape out_strides = StridesOf(out);
    for (size_t d = 0; d < out.size(); ++d) {
      src[d] = d < lead || x.shape[d - lead] == 1 ? 0 : in_strides[d - lead];
      dst[d] = out_strides[d];
    }
    copy_.Build(static_cast<int>(out.size()), out.data(), src, dst, DTypeSize(x.dtype));
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "shape"));
    if (!s.inputs[1].const_data) return s.Unsupported("Expand with a non-constant 'shape' input");
    Shape out;
    RETURN_IF_ERROR(Broadcast(s, &out));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (runtime_) {
      const size_t lead = out_shape_.size() - static_cast<size_t>(shape_len_);
      for (int64_t i = 0; i < shape_len_; ++i) {
        const int64_t v = LoadIndex(args.inputs[1], shape_dtype_, i);
        const size_t d = lead + static_cast<size_t>(i);
        const size_t in_lead = out_shape_.size() - in_shape_.size();
        const int64_t in_dim = d >= in_lead ? in_shape_[d - in_lead] : 1;
        if (v < 0 || BroadcastDim(in_dim, v) != out_shape_[d])
          return Status::InvalidArgument("runtime 'shape' value " + std::to_string(v) + " at index " +
                                         std::to_string(i) + " contradicts the planned output shape " +
                                         ShapeToString(out_shape_));
      }
    }
    copy_.Run(args.pool, args.inputs[0], args.outputs[0]);
    return Status::Ok();
  }

 private:
  static Status Broadcast(const KernelSetup& s, Shape* out) {
    std::vector<int64_t> shape;
    RETURN_IF_ERROR(ConstInts(s, 1, &shape));
    const Shape& in = s.inputs[0].shape;
    const size_t rank = shape.size() > in.size() ? shape.size() : in.size();
    if (rank > static_cast<size_t>(kMaxRank)) return s.Unsupported("output rank " + std::to_string(rank));
    out->assign(rank, 1);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t a = d + in.size() >= rank ? in[d + in.size() - rank] : 1;
      const int64_t b = d + shape.size() >= rank ? shape[d + shape.size() - rank] : 1;
      const int64_t r = b < 0 ? -1 : BroadcastDim(a, b);
      if (r < 0)
        return s.Invalid("input shape " + ShapeToString(in) + " does not broadcast with 'shape' " +
                         ShapeToString(shape));
      (*out)[d] = r;
    }
    if (NumElements(*out) < 0) return s.Invalid("expanded shape " + ShapeToString(*out) + " is too large");
    return Status::Ok();
  }

  StridedCopy copy_;
  bool runtime_ = false;
  DType shape_dtype_ = DType::kInt64;
  int64_t shape_len_ = 0;
  Shape in_shape_, out_shape_;
};

class TileKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckInputs(s));
    const TensorInfo& x = s.inputs[0];
    const Shape& out = s.outputs[0].shape;
    if (s.inputs[1].const_data) {
      Shape want;
      RETURN_IF_ERROR(Tiled(s, &want));
      RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, want));
    } else {
      runtime_ = true;
      repeats_dtype_ = s.inputs[1].dtype;
      if (s.outputs[0].dtype != x.dtype || out.size() != x.shape.size())
        return s.Invalid("output 0 is " + std::string(DTypeName(s.outputs[0].dtype)) + " " + ShapeToString(out) +
                         ", expected " + DTypeName(x.dtype) + " of rank " + std::to_string(x.rank()));
      for (size_t d = 0; d < out.size(); ++d) {
        if (x.shape[d] == 0 ? out[d] != 0 : out[d] % x.shape[d] != 0)
          return s.Invalid("output shape " + ShapeToString(out) + " is not a tiling of input shape " +
                           ShapeToString(x.shape));
      }
    }
    in_shape_ = x.shape;
    out_shape_ = out;
    // Output dim d = (repeat r, input index i): offset r * in_d + i.
    const int rank = x.rank();
    const Shape in_strides = StridesOf(x.shape);
    const Shape out_strides = StridesOf(out);
    int64_t dims[2 * kMaxRank], src[2 * kMaxRank], dst[2 * kMaxRank];
    for (int d = 0; d < rank; ++d) {
      const int64_t in_d = x.shape[static_cast<size_t>(d)];
      dims[2 * d] = in_d == 0 ? 0 : out[static_cast<size_t>(d)] / in_d;
      dims[2 * d + 1] = in_d;
      src[2 * d] = 0;
      src[2 * d + 1] = in_strides[static_cast<size_t>(d)];
      dst[2 * d] = in_d * out_strides[static_cast<size_t>(d)];
      dst[2 * d + 1] = out_strides[static_cast<size_t>(d)];
    }
    copy_.Build(2 * rank, dims, src, dst, DTypeSize(x.dtype));
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckInputs(s));
    if (!s.inputs[1].const_data) return s.Unsupported("Tile with a non-constant 'repeats' input");
    Shape out;
    RETURN_IF_ERROR(Tiled(s, &out));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (runtime_) {
      for (size_t d = 0; d < in_shape_.size(); ++d) {
        const int64_t r = LoadIndex(args.inputs[1], repeats_dtype_, static_cast<int64_t>(d));
        if (r < 0 || (in_shape_[d] != 0 && r != out_shape_[d] / in_shape_[d]))
          return Status::InvalidArgument("runtime 'repeats' value " + std::to_string(r) + " on axis " +
                                         std::to_string(d) + " contradicts the planned output shape " +
                                         ShapeToString(out_shape_));
      }
    }
    copy_.Run(args.pool, args.inputs[0], args.outputs[0]);
    return Status::Ok();
  }

 private:
  static Status CheckInputs(const KernelSetup& s) {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "repeats"));
    if (s.inputs[1].rank() != 1 || s.inputs[1].num_elements() != s.inputs[0].rank())
      return s.Invalid("input 'repeats' has shape " + ShapeToString(s.inputs[1].shape) + ", expected " +
                       std::to_string(s.inputs[0].rank()) + " (one repeat per input dim)");
    return Status::Ok();
  }
  static Status Tiled(const KernelSetup& s, Shape* out) {
    std::vector<int64_t> repeats;
    RETURN_IF_ERROR(ConstInts(s, 1, &repeats));
    *out = s.inputs[0].shape;
    for (size_t d = 0; d < out->size(); ++d) {
      if (repeats[d] < 0) return s.Invalid("'repeats' " + IntsToString(repeats) + " has a negative value");
      if ((*out)[d] != 0 && repeats[d] > (int64_t{1} << 56) / (*out)[d])
        return s.Invalid("'repeats' " + IntsToString(repeats) + " is too large");
      (*out)[d] *= repeats[d];
    }
    if (NumElements(*out) < 0) return s.Invalid("tiled shape " + ShapeToString(*out) + " is too large");
    return Status::Ok();
  }

  StridedCopy copy_;
  bool runtime_ = false;
  DType repeats_dtype_ = DType::kInt64;
  Shape in_shape_, out_shape_;
};

}  // namespace

std::unique_ptr<Kernel> MakeExpandKernel() { return std::make_unique<ExpandKernel>(); }
std::unique_ptr<Kernel> MakeTileKernel() { return std::make_unique<TileKernel>(); }

}  // namespace tensor
}  // namespace loom
