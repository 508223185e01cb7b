// Registers the math group: every line of kernels.def.
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace math {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/math/kernels.def"
#undef LOOM_KERNEL

}  // namespace math

void RegisterCpuMathKernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, math::factory);
#include "kernels/cpu/math/kernels.def"
#undef LOOM_KERNEL
  // x * sigmoid(alpha * x) in Loom's domain (builder/passes/fuse_swish.h),
  // for graphs of any opset.
  r->AddCpu("Swish", math::NewActivationKernel, "loom", "loom");
}

}  // namespace loom
