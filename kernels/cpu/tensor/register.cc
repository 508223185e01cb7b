// Registers the tensor group: every line of kernels.def.
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace tensor {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/tensor/kernels.def"
#undef LOOM_KERNEL

}  // namespace tensor

void RegisterCpuTensorKernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, tensor::factory);
#include "kernels/cpu/tensor/kernels.def"
#undef LOOM_KERNEL
}

}  // namespace loom
