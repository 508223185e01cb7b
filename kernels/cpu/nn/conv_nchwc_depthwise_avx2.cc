// The NCHW8c depthwise convolution's AVX2 + FMA path (one ymm per block).
// Compiled for AVX2 and FMA by the target pragma below only (no -march
// flag); run only when the CPU has both (DepthwiseNchwcIsaAvx2).
#include "kernels/cpu/nn/conv_nchwc_depthwise.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_isa.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "kernels/cpu/nn/conv_nchwc_depthwise_kernel.h"

namespace loom {
namespace nn {
namespace {

struct Avx2Vector : gemm_f32::VectorOps<Float8, Avx2Vector> {
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
};

// 8-pixel blocks: 8 accumulators, up to 7 weights and the input pixel in
// the 16 ymm registers.
constexpr DepthwiseNchwcIsa kAvx2 = {"avx2", &depthwise_nchwc::PlaneRowsAny<Avx2Vector, 8>};

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const DepthwiseNchwcIsa* DepthwiseNchwcIsaAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kAvx2 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
