// Identity and inference-mode Dropout: copy the input (nothing when the memory
// planner runs them in place). Dropout's optional mask output is all true
// (bool from opset 10, the data type before). Training mode is refused.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class IdentityKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, s.inputs[0].shape));
    bytes_ = s.inputs[0].num_bytes();
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    *shapes = {s.inputs[0].shape};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    CopyBytes(args.pool, args.outputs[0], args.inputs[0], bytes_);
    return Status::Ok();
  }

 private:
  size_t bytes_ = 0;
};

class DropoutKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 1, s.opset >= 12 ? 3 : 1, 1, 2));
    const TensorInfo& x = s.inputs[0];
    if (!IsFloatingPoint(x.dtype))
      return s.Invalid(std::string("input 'data' has dtype ") + DTypeName(x.dtype) + ", expected a float type");
    RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, x.shape));
    if (s.HasInput(1)) {
      if (!IsFloatingPoint(s.inputs[1].dtype))
        return s.Invalid(std::string("input 'ratio' has dtype ") + DTypeName(s.inputs[1].dtype) +
                         ", expected a float type");
      RETURN_IF_ERROR(CheckScalarLike(s, 1, "ratio"));
    }
    if (s.HasInput(2)) {
      RETURN_IF_ERROR(CheckInputDType(s, 2, DType::kBool, "training_mode"));
      RETURN_IF_ERROR(CheckScalarLike(s, 2, "training_mode"));
      const void* mode = s.inputs[2].const_data;
      if (mode && *static_cast<const uint8_t*>(mode) != 0) return s.Unsupported("training_mode=true");
      if (!mode) {
        check_training_mode_ = true;
      }
    }
    bytes_ = x.num_bytes();
    has_mask_ = s.outputs.size() > 1 && s.outputs[1].present;
    if (has_mask_) {
      mask_dtype_ = s.opset >= 10 ? DType::kBool : x.dtype;
      RETURN_IF_ERROR(CheckOutput(s, 1, mask_dtype_, x.shape));
      StoreFromDouble(1.0, mask_dtype_, one_);
      count_ = x.num_elements();
    }
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 1, 3, 1, 2));
    shapes->assign(s.outputs.size(), s.inputs[0].shape);
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (check_training_mode_ && *static_cast<const uint8_t*>(args.inputs[2]) != 0)
      return Status::Unsupported("unsupported training_mode=true");
    CopyBytes(args.pool, args.outputs[0], args.inputs[0], bytes_);
    if (has_mask_) FillElements(args.pool, args.outputs[1], one_, DTypeSize(mask_dtype_), count_);
    return Status::Ok();
  }

 private:
  size_t bytes_ = 0;
  bool has_mask_ = false;
  bool check_training_mode_ = false;
  DType mask_dtype_ = DType::kBool;
  uint8_t one_[8] = {};
  int64_t count_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeIdentityKernel() { return std::make_unique<IdentityKernel>(); }
std::unique_ptr<Kernel> MakeDropoutKernel() { return std::make_unique<DropoutKernel>(); }

}  // namespace tensor
}  // namespace loom
