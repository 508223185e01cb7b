// The fp32 depthwise convolution's AVX-512F path (16-float vectors).
// Compiled for AVX-512F by the target pragma below only (no -march
// flag); run only when the CPU has it (DepthwiseF32IsaAvx512).
#include "kernels/cpu/nn/conv_depthwise.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#include "kernels/cpu/nn/conv_depthwise_kernel.h"

namespace loom {
namespace nn {
namespace {

// __m512 without its may_alias attribute (a template argument drops it).
typedef float Float16 __attribute__((vector_size(64)));

struct Avx512Vector : gemm_f32::VectorOps<Float16, Avx512Vector> {
  static T MulAdd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
};

constexpr DepthwiseF32Isa kAvx512 = {"avx512", Avx512Vector::kLanes, &depthwise_f32::PlaneRowsAny<Avx512Vector>};

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const DepthwiseF32Isa* DepthwiseF32IsaAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif
