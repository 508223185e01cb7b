// Registers the int8 group: every line of kernels.def, as "cpu.<op>.int8".
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"

namespace loom {
namespace int8 {

#define LOOM_KERNEL(op, factory) std::unique_ptr<Kernel> factory();
#include "kernels/cpu/int8/kernels.def"
#undef LOOM_KERNEL

}  // namespace int8

void RegisterCpuInt8Kernels(KernelRegistry* r) {
#define LOOM_KERNEL(op, factory) r->AddCpu(op, int8::factory, "int8");
#include "kernels/cpu/int8/kernels.def"
#undef LOOM_KERNEL
}

}  // namespace loom
