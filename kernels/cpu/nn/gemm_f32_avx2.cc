// The fp32 GEMM's AVX2 + FMA path: a 6 x 16 register tile (12 ymm
// accumulators; per K step two B loads, six A broadcasts, twelve FMAs).
// Compiled for AVX2 and FMA by the target pragma below only (no -march
// flag); run only when the CPU has both (GemmF32IsaAvx2).
#include "kernels/cpu/nn/gemm_f32_isa.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <utility>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace {

// __m256 without its may_alias attribute (a template argument drops it).
typedef float Float8 __attribute__((vector_size(32)));

struct Avx2Vector : gemm_f32::VectorOps<Float8, Avx2Vector> {
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  template <int I>
  static T MulAddA(T acc, const float* a, T b) {
    return _mm256_fmadd_ps(_mm256_broadcast_ss(a + I), b, acc);
  }
};

constexpr GemmF32Isa kAvx2 = gemm_f32::MakeGemmF32Isa<Avx2Vector, 6, 2>("avx2");

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const GemmF32Isa* GemmF32IsaAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kAvx2 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
