// ReverseSequence: for each batch entry b, reverses the first
// sequence_lens[b] steps along time_axis and copies the rest. time_axis and
// batch_axis are 0 and 1 in either order; the dims after them form one
// contiguous block per (time, batch) pair. Lengths outside [0, max_time] are
// data errors reported as OutOfRange.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class ReverseSequenceKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    const TensorInfo& x = s.inputs[0];
    if (x.rank() < 2) return s.Invalid("input has shape " + ShapeToString(x.shape) + ", expected rank >= 2");
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "sequence_lens"));
    int64_t time_axis = 0, batch_axis = 1;
    RETURN_IF_ERROR(ReadIntAttr(s, "time_axis", 0, &time_axis));
    RETURN_IF_ERROR(ReadIntAttr(s, "batch_axis", 1, &batch_axis));
    if (!((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0)))
      return s.Invalid("time_axis=" + std::to_string(time_axis) + " and batch_axis=" + std::to_string(batch_axis) +
                       " must be 0 and 1 in some order");
    time_major_ = time_axis == 0;
    max_time_ = x.shape[static_cast<size_t>(time_axis)];
    batch_ = x.shape[static_cast<size_t>(batch_axis)];
    if (s.inputs[1].shape != Shape{batch_})
      return s.Invalid("input 'sequence_lens' has shape " + ShapeToString(s.inputs[1].shape) + ", expected " +
                       std::to_string(batch_));
    RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, x.shape));
    block_ = static_cast<size_t>(DimProduct(x.shape, 2, x.shape.size())) * DTypeSize(x.dtype);
    lens_dtype_ = s.inputs[1].dtype;
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    *shapes = {s.inputs[0].shape};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t len = LoadIndex(args.inputs[1], lens_dtype_, b);
      if (len < 0 || len > max_time_)
        return Status::OutOfRange("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
                                  " out of range [0, " + std::to_string(max_time_) + "]");
    }
    const char* src = static_cast<const char*>(args.inputs[0]);
    char* dst = static_cast<char*>(args.outputs[0]);
    ParallelFor(args.pool, batch_ * max_time_, 64, [&](int64_t begin, int64_t end, int) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t b = item / max_time_;
        const int64_t t = item % max_time_;
        const int64_t len = LoadIndex(args.inputs[1], lens_dtype_, b);
        const int64_t from = t < len ? len - 1 - t : t;
        std::memcpy(dst + Offset(t, b), src + Offset(from, b), block_);
      }
    });
    return Status::Ok();
  }

 private:
  size_t Offset(int64_t t, int64_t b) const {
    return static_cast<size_t>(time_major_ ? t * batch_ + b : b * max_time_ + t) * block_;
  }

  bool time_major_ = true;
  int64_t max_time_ = 0, batch_ = 0;
  size_t block_ = 0;
  DType lens_dtype_ = DType::kInt64;
};

}  // namespace

std::unique_ptr<Kernel> MakeReverseSequenceKernel() { return std::make_unique<ReverseSequenceKernel>(); }

}  // namespace tensor
}  // namespace loom
