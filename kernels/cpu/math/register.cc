// Registers the math group: every line of kernels.def.
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace math {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/math/kernels.def"
#undef LOOM_KERNEL
std::unique_ptr<Kernel> NewElementwiseChainKernel();  // elementwise_chain.cc

}  // namespace math

void RegisterCpuMathKernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, math::factory);
#include "kernels/cpu/math/kernels.def"
#undef LOOM_KERNEL
  // x * sigmoid(alpha * x) in Loom's domain (builder/passes/fuse_swish.h),
  // for graphs of any opset.
  r->AddCpu("Swish", math::NewActivationKernel, "loom", "loom");
  // Chains of float32 elementwise ops as one node
  // (builder/passes/fuse_elementwise_chain.h).
  r->AddCpu("ElementwiseChain", math::NewElementwiseChainKernel, "loom", "loom");
}

}  // namespace loom
