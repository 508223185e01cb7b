// The AVX2 epilogue of the GEMM core: requantizes eight int32 accumulators at
// once by evaluating requantize.h's fixed-point arithmetic itself
// (requantize_avx2.h; the AVX-512 epilogue's method, store_tile_avx512.cc, in
// ymm registers), bit-exact with requant::Requantize, with the stage
// constants of OutputSteps::fixed_point(). No gathers, no tables.
// Compiled with function-level target attributes only, and called only when
// the CPU has AVX2.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/gemm_s8_impl.h"
#include "kernels/cpu/int8/requantize_avx2.h"

namespace loom {
namespace int8 {
namespace internal {
namespace {

// The first n (<= 8) lanes of v[c0, c0 + n), the others zero.
LOOM_AVX2 inline __m256i LoadFirst(const int32_t* v, int n) {
  if (n == 8) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v));
  alignas(32) int32_t tmp[8] = {};
  std::memcpy(tmp, v, static_cast<size_t>(n) * sizeof(int32_t));
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
}

// Channels c0 + lane for lanes < n (the others zero: multiplier 0 maps them
// to a clamp of 0, never stored).
LOOM_AVX2 inline Stage8 EightChannels(const OutputSteps::FixedPoint& f, int64_t c0, int n) {
  Stage8 s;
  s.multiplier = LoadFirst(f.multiplier.data() + c0, n);
  s.left = LoadFirst(f.left.data() + c0, n);
  s.sat_hi = LoadFirst(f.sat_hi.data() + c0, n);
  s.sat_lo = LoadFirst(f.sat_lo.data() + c0, n);
  s.right = LoadFirst(f.right.data() + c0, n);
  s.round_mask = LoadFirst(f.round_mask.data() + c0, n);
  s.round_half = LoadFirst(f.round_half.data() + c0, n);
  s.lo = LoadFirst(f.lo.data() + c0, n);
  s.hi = LoadFirst(f.hi.data() + c0, n);
  s.zero_point = LoadFirst(f.zero_point.data() + c0, n);
  return s;
}

// Stores the first n (<= 16) int8 values of two vectors of eight lanes
// (lo: values 0-7, hi: 8-15; all in int8 range).
LOOM_AVX2 inline void Store16(__m256i lo, __m256i hi, int n, int8_t* y) {
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
  const __m128i b = _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  if (n == 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), b);
  } else {
    alignas(16) int8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), b);
    std::memcpy(y, tmp, static_cast<size_t>(n));
  }
}

}  // namespace

LOOM_AVX2 void StoreTileAvx2(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols) {
  static_assert(kGemmS8Nr == 16, "two ymm registers per tile row");
  const OutputSteps::FixedPoint& f = blk.steps->fixed_point();
  if (blk.per_row) {
    for (int r = 0; r < rows; ++r) {
      const Stage8 s = OneChannel(f, blk.channel0 + i0 + r);
      const __m256i bias = _mm256_set1_epi32(blk.bias[i0 + r]);
      const __m256i* a = reinterpret_cast<const __m256i*>(acc + r * kGemmS8Nr);
      const __m256i lo = Requantize8(_mm256_add_epi32(_mm256_load_si256(a), bias), s);
      const __m256i hi = cols > 8 ? Requantize8(_mm256_add_epi32(_mm256_load_si256(a + 1), bias), s) : lo;
      Store16(lo, hi, cols, blk.y + (i0 + r) * blk.ldy + j0);
    }
    return;
  }
  const int n0 = std::min(8, cols), n1 = std::max(0, cols - 8);
  const Stage8 s0 = EightChannels(f, blk.channel0 + j0, n0);
  const __m256i bias0 = LoadFirst(blk.bias + j0, n0);
  if (n1 == 0) {
    for (int r = 0; r < rows; ++r) {
      const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + r * kGemmS8Nr));
      const __m256i v = Requantize8(_mm256_add_epi32(a, bias0), s0);
      Store16(v, v, cols, blk.y + (i0 + r) * blk.ldy + j0);
    }
    return;
  }
  const Stage8 s1 = EightChannels(f, blk.channel0 + j0 + 8, n1);
  const __m256i bias1 = LoadFirst(blk.bias + j0 + 8, n1);
  for (int r = 0; r < rows; ++r) {
    const __m256i* a = reinterpret_cast<const __m256i*>(acc + r * kGemmS8Nr);
    const __m256i lo = Requantize8(_mm256_add_epi32(_mm256_load_si256(a), bias0), s0);
    const __m256i hi = Requantize8(_mm256_add_epi32(_mm256_load_si256(a + 1), bias1), s1);
    Store16(lo, hi, cols, blk.y + (i0 + r) * blk.ldy + j0);
  }
}

LOOM_AVX2 void RequantizeRowAvx2(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias, int64_t n,
                                 int8_t* y) {
  const Stage8 s = OneChannel(steps.fixed_point(), channel);
  const __m256i b = _mm256_set1_epi32(bias);
  for (int64_t i = 0; i < n; i += 16) {
    const int m = static_cast<int>(std::min<int64_t>(16, n - i));
    const __m256i lo = Requantize8(_mm256_add_epi32(LoadFirst(acc + i, std::min(8, m)), b), s);
    const __m256i hi = m > 8 ? Requantize8(_mm256_add_epi32(LoadFirst(acc + i + 8, m - 8), b), s) : lo;
    Store16(lo, hi, m, y + i);
  }
}

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
