// Registers the quant group: every line of kernels.def.
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace quant {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/quant/kernels.def"
#undef LOOM_KERNEL

}  // namespace quant

void RegisterCpuQuantKernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, quant::factory);
#include "kernels/cpu/quant/kernels.def"
#undef LOOM_KERNEL
}

}  // namespace loom
