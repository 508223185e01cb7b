// The fp32 pooling reductions (pool_f32_isa.h) for AVX2 (8 lanes): the shared
// template (pool_f32_impl.h) compiled by the target pragma below only (no
// -march flag); run only when the CPU has it (PoolF32IsaAvx2).
#include "kernels/cpu/nn/pool_f32_isa.h"

#if defined(__x86_64__)

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx2")
#include "kernels/cpu/nn/pool_f32_impl.h"

namespace loom {
namespace nn {
namespace {

typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int32x8 __attribute__((vector_size(32)));
struct Avx2Tag {};

constexpr PoolF32Isa kAvx2 = pool_f32::PoolImpl<Float8, Int32x8, Avx2Tag>::MakeIsa("avx2");

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const PoolF32Isa* PoolF32IsaAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? &kAvx2 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
