// Registers the nn group: every line of kernels.def.
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace nn {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/nn/kernels.def"
#undef LOOM_KERNEL
std::unique_ptr<Kernel> MakeDepthwiseConvNchwcKernel();  // conv_nchwc_depthwise.cc

}  // namespace nn

void RegisterCpuNnKernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, nn::factory);
#include "kernels/cpu/nn/kernels.def"
#undef LOOM_KERNEL
  // Depthwise Conv on the channel-blocked layout (conv_nchwc_depthwise.h),
  // in Loom's domain.
  r->AddCpu("DepthwiseConvNchwc", nn::MakeDepthwiseConvNchwcKernel, "loom", "loom");
}

}  // namespace loom
