// The fp32 GEMM's AVX-512F path: a 12 x 32 register tile (24 zmm
// accumulators; per K step two B loads, twelve A broadcasts, 24 FMAs; 12 x 32
// measured as fast as 14 x 32, 8 x 48 and 6 x 64 on the zoo models, and fills
// the usual channel counts better).
// Compiled for AVX-512F by the target pragma below only (no -march
// flag); run only when the CPU has it (GemmF32IsaAvx512).
#include "kernels/cpu/nn/gemm_f32_isa.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <utility>

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace {

// __m512 without its may_alias attribute (a template argument drops it).
typedef float Float16 __attribute__((vector_size(64)));

struct Avx512Vector : gemm_f32::VectorOps<Float16, Avx512Vector> {
  static T MulAdd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  template <int I>
  static T MulAddA(T acc, const float* a, T b) {
    return _mm512_fmadd_ps(_mm512_set1_ps(a[I]), b, acc);
  }
};

constexpr GemmF32Isa kAvx512 = gemm_f32::MakeGemmF32Isa<Avx512Vector, 12, 2>("avx512");

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const GemmF32Isa* GemmF32IsaAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
