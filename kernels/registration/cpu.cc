// The kernel groups of a CPU-only build. Each build configuration has one
// such file (CMake picks it: LOOM_KERNEL_REGISTRATION in kernels/), listing
// the groups whose kernels KernelRegistry::Global() holds; each group's own
// register.cc lists its kernels one line each.
#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {

void RegisterBuiltinKernels(KernelRegistry* r) {
  RegisterCpuInt8Kernels(r);  // first: int8 kernels refuse float nodes
  RegisterCpuMathKernels(r);
  RegisterCpuNnKernels(r);
  RegisterCpuTensorKernels(r);
  RegisterCpuQuantKernels(r);
  RegisterCpuLayoutKernels(r);  // last: only for padded-layout nodes
}

}  // namespace loom
