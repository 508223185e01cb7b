// The fp32 pooling reductions (pool_f32_isa.h) for AVX-512F (16 lanes): the shared
// template (pool_f32_impl.h) compiled by the target pragma below only (no
// -march flag); run only when the CPU has it (PoolF32IsaAvx512).
#include "kernels/cpu/nn/pool_f32_isa.h"

#if defined(__x86_64__)

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx512f,avx2")
#include "kernels/cpu/nn/pool_f32_impl.h"

namespace loom {
namespace nn {
namespace {

typedef float Float16 __attribute__((vector_size(64)));
typedef int32_t Int32x16 __attribute__((vector_size(64)));
struct Avx512Tag {};

constexpr PoolF32Isa kAvx512 = pool_f32::PoolImpl<Float16, Int32x16, Avx512Tag>::MakeIsa("avx512");

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const PoolF32Isa* PoolF32IsaAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
