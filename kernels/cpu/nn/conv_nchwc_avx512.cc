// loom.ConvNchwc's AVX-512 path: work of up to 4 output blocks (8 for the
// general tiles of rows of 12 pixels or more), their tiles on pair vectors
// (one zmm holds one pixel's 8 output channels of each of two blocks; the
// weights of the two blocks, side by side in the paired W (PairWeights), in
// one load, the outputs split with one vextractf32x8): 6 pixels x 8 blocks,
// 12 x 4, or 16 x 2; a last single block on the AVX2 vector with AVX-512's
// 32 registers. Compiled for
// AVX-512 F, DQ and VL by the target pragma below only (no -march flag); run
// only when the CPU has them (ConvNchwcIsaAvx512).
#include "kernels/cpu/nn/conv_nchwc.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
// GCC 12's 256-to-512-bit casts and inserts start from _mm512_undefined_ps(),
// which -W(maybe-)uninitialized reports once inlined; every lane is written.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include "kernels/cpu/nn/conv_nchwc_kernel.h"

namespace loom {
namespace nn {
namespace {

// __m512 without its may_alias attribute (a template argument drops it).
typedef float Float16 __attribute__((vector_size(64)));

// Both blocks of a pair: lanes 0-7 the first block's, 8-15 the second's.
struct PairVector : gemm_f32::VectorOps<Float16, PairVector> {
  static T Set1(float x) { return _mm512_set1_ps(x); }
  static T MulAdd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T LoadPair(const float* lo, const float* hi) {
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(lo)), _mm256_loadu_ps(hi), 1);
  }
  static void StorePair(float* lo, float* hi, T v) {
    _mm256_storeu_ps(lo, _mm512_castps512_ps256(v));
    _mm256_storeu_ps(hi, _mm512_extractf32x8_ps(v, 1));
  }
};

// One block (an odd last block), as the avx2 path's vector.
struct BlockVector : gemm_f32::VectorOps<Float8, BlockVector> {
  static T Set1(float x) { return _mm256_set1_ps(x); }
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
};

constexpr ConvNchwcIsa kAvx512 = {"avx512",
                                  &conv_nchwc::Pointwise<PairVector, BlockVector>,
                                  &conv_nchwc::General<PairVector, BlockVector>,
                                  &conv_nchwc::Stem<PairVector, BlockVector>,
                                  4,
                                  8,
                                  true};

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC diagnostic pop
#pragma GCC pop_options

namespace loom {
namespace nn {

const ConvNchwcIsa* ConvNchwcIsaAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma")
             ? &kAvx512
             : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
