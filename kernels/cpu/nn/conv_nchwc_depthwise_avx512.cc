// The NCHW8c depthwise convolution's AVX-512 path: the column-stride-1
// interiors on zmm pairs of pixels (PairBlock), everything else on one ymm
// per block with AVX-512's 32 registers. Compiled for AVX-512 F and VL by
// the target pragma below only (no -march flag); run only when the CPU has
// them (DepthwiseNchwcIsaAvx512).
#include "kernels/cpu/nn/conv_nchwc_depthwise.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx2,fma")
// GCC 12's 256-to-512-bit broadcasts start from _mm512_undefined_ps(), which
// -Wmaybe-uninitialized reports once inlined; every lane is written.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "kernels/cpu/nn/conv_nchwc_depthwise_kernel.h"

namespace loom {
namespace nn {
namespace {

// __m512 without its may_alias attribute (a template argument drops it).
typedef float Float16 __attribute__((vector_size(64)));

struct BlockVector : gemm_f32::VectorOps<Float8, BlockVector> {
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
};

// Two consecutive pixels of one block.
struct PairVector : gemm_f32::VectorOps<Float16, PairVector> {
  static T MulAdd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  // vbroadcastf64x4 (AVX-512 F; the f32x8 form needs DQ): the same 32 bytes.
  static T Broadcast8(const float* p) {
    return _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p))));
  }
};

constexpr DepthwiseNchwcIsa kAvx512 = {"avx512", &depthwise_nchwc::PlaneRowsAny<BlockVector, 8, PairVector>};

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC diagnostic pop
#pragma GCC pop_options

namespace loom {
namespace nn {

const DepthwiseNchwcIsa* DepthwiseNchwcIsaAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma")
             ? &kAvx512
             : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
