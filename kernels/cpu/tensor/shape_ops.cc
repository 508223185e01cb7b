// Shape (with the opset 15 start/end window) and Size. Shapes are static, so
// both outputs are known in Prepare and Run only writes the stored values;
// the input data is never read.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class ShapeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(Plan(s, &values_));
    return CheckOutput(s, 0, DType::kInt64, {static_cast<int64_t>(values_.size())});
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    std::vector<int64_t> values;
    RETURN_IF_ERROR(Plan(s, &values));
    *shapes = {{static_cast<int64_t>(values.size())}};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (!values_.empty()) std::memcpy(args.outputs[0], values_.data(), values_.size() * sizeof(int64_t));
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, std::vector<int64_t>* values) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    const Shape& in = s.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t start = 0;
    int64_t end = rank;
    RETURN_IF_ERROR(ReadIntAttr(s, "start", 0, &start));
    RETURN_IF_ERROR(ReadIntAttr(s, "end", rank, &end));
    auto clamp = [rank](int64_t v) {
      if (v < 0) v += rank;
      return v < 0 ? 0 : (v > rank ? rank : v);
    };
    start = clamp(start);
    end = clamp(end);
    values->assign(in.begin() + start, in.begin() + (end > start ? end : start));
    return Status::Ok();
  }

  std::vector<int64_t> values_;
};

class SizeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt64, {}));
    size_ = s.inputs[0].num_elements();
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    *shapes = {Shape()};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    std::memcpy(args.outputs[0], &size_, sizeof(size_));
    return Status::Ok();
  }

 private:
  int64_t size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeShapeKernel() { return std::make_unique<ShapeKernel>(); }
std::unique_ptr<Kernel> MakeSizeKernel() { return std::make_unique<SizeKernel>(); }

}  // namespace tensor
}  // namespace loom
