// loom.ConvNchwc's AVX2 + FMA path. Compiled for AVX2 and FMA by the target
// pragma below only (no -march flag); run only when the CPU has both
// (ConvNchwcIsaAvx2).
#include "kernels/cpu/nn/conv_nchwc.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_isa.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "kernels/cpu/nn/conv_nchwc_kernel.h"

namespace loom {
namespace nn {
namespace {

struct Avx2Vector : gemm_f32::VectorOps<Float8, Avx2Vector> {
  // A broadcast straight from memory (VectorOps' 0 + x adds first).
  static T Set1(float x) { return _mm256_set1_ps(x); }
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
};

constexpr ConvNchwcIsa kAvx2 = {
    "avx2", &conv_nchwc::Pointwise<Avx2Vector>, &conv_nchwc::General<Avx2Vector>, &conv_nchwc::Stem<Avx2Vector>, 2, 2,
    false};

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const ConvNchwcIsa* ConvNchwcIsaAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kAvx2 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
