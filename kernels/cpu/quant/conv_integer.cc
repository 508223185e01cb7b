// ConvInteger: Conv on (x - x_zero_point) and (w - w_zero_point) with int32
// output; x and w uint8 or int8 (independently), x_zero_point per tensor,
// w_zero_point per tensor or per output channel, both optional. Attributes,
// geometry and the algorithm are the integer convolution core's
// (int_conv.h); the accumulators are the outputs.
#include <memory>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/int_conv.h"

namespace loom {
namespace quant {
namespace {

class ConvIntegerKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 2, 4, 1, 1));
    Shape out_shape;
    RETURN_IF_ERROR(conv_.Prepare(setup, IntConvInputs(), &out_shape));
    return CheckOutput(setup, 0, DType::kInt32, out_shape);
  }
  size_t ScratchBytes(int num_threads) const override { return conv_.ScratchBytes(num_threads); }
  Status Run(const KernelArgs& args) const override {
    int32_t* y = args.out<int32_t>(0);
    conv_.Run(args, static_cast<char*>(args.scratch), [y](int64_t, int64_t i, int32_t acc) { y[i] = acc; });
    return Status::Ok();
  }

 private:
  IntConv conv_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConvIntegerKernel() { return std::make_unique<ConvIntegerKernel>(); }

}  // namespace quant
}  // namespace loom
