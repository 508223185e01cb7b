// Registers the nn group: every line of kernels.def.
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace nn {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/nn/kernels.def"
#undef LOOM_KERNEL
std::unique_ptr<Kernel> MakeMaxPoolNchwcKernel();      // pool_nchwc.cc
std::unique_ptr<Kernel> MakeAveragePoolNchwcKernel();  // pool_nchwc.cc
std::unique_ptr<Kernel> MakeConvNchwcKernel();  // conv_nchwc.cc
std::unique_ptr<Kernel> MakeConvNchwcStemKernel();       // conv_nchwc.cc
std::unique_ptr<Kernel> MakeDepthwiseConvNchwcKernel();  // conv_nchwc_depthwise.cc

}  // namespace nn

void RegisterCpuNnKernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, nn::factory);
#include "kernels/cpu/nn/kernels.def"
#undef LOOM_KERNEL
  // MaxPool and AveragePool on the channel-blocked layout [N, C/8, H, W, 8]
  // (builder/passes/layout_nchwc.h).
  r->AddCpu("MaxPoolNchwc", nn::MakeMaxPoolNchwcKernel, "loom", "loom");
  r->AddCpu("AveragePoolNchwc", nn::MakeAveragePoolNchwcKernel, "loom", "loom");
  // Conv on channel-blocked NCHW8c tensors (builder/passes/layout_nchwc).
  r->AddCpu("ConvNchwc", nn::MakeConvNchwcKernel, "loom", "loom");
  // The same from an NCHW input (Cin % 8 != 0: a network's first Conv) into NCHW8c.
  r->AddCpu("ConvNchwcStem", nn::MakeConvNchwcStemKernel, "loom", "loom");
  // Depthwise Conv on the channel-blocked layout (conv_nchwc_depthwise.h),
  // in Loom's domain.
  r->AddCpu("DepthwiseConvNchwc", nn::MakeDepthwiseConvNchwcKernel, "loom", "loom");
}

}  // namespace loom
