// The NCHWc pooling loops (pool_nchwc.h) for AVX2: the shared template
// (pool_nchwc_impl.h) compiled by the target pragma below only (no -march
// flag), one ymm per channel block; run only when the CPU has AVX2.
#include "kernels/cpu/nn/pool_nchwc.h"

#if defined(__x86_64__)

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx2")
#include "kernels/cpu/nn/pool_nchwc_impl.h"

namespace loom {
namespace nn {
namespace {

typedef float Float8 __attribute__((vector_size(32)));
struct Avx2Tag {};

constexpr PoolNchwcIsa kAvx2 = pool_nchwc::PoolNchwcImpl<Float8, Float8, Avx2Tag>::MakeIsa("avx2");

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const PoolNchwcIsa* PoolNchwcIsaAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? &kAvx2 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
