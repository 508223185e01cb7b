#include "kernels/cpu/cpu_kernels.h"

namespace loom {

void RegisterCpuKernels(KernelRegistry* r) {
  RegisterCpuMathKernels(r);
  RegisterCpuNnKernels(r);
  RegisterCpuTensorKernels(r);
}

}  // namespace loom
