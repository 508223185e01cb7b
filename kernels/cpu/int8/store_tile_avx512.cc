// The AVX-512 epilogue of the GEMM core: requantizes sixteen int32
// accumulators at once by evaluating requantize.h's fixed-point arithmetic
// itself in vector registers (the saturating left shift, the rounding
// doubling high multiply in 64-bit lanes, the rounding right shift, the clamp
// and the zero point), bit-exact with requant::Requantize, with the stage
// constants of OutputSteps::fixed_point(). The rounding of the high multiply:
// for any product ab, the reference's trunc((ab + nudge) / 2^31) equals
// floor((ab + 2^30) / 2^31) (for ab < 0, truncating rounds up and the nudge
// is 1 - 2^30), one 64-bit add and arithmetic shift; multipliers are >= 0, so
// its one saturating case never occurs. Compiled with function-level target
// attributes only, and called only when the CPU has AVX-512F and AVX-512BW.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/gemm_s8_impl.h"

// GCC 12's unmasked AVX-512 shift and multiply intrinsics start from an
// "undefined" register that -Wmaybe-uninitialized flags once inlined (a
// known false positive of the header, not of this code).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace loom {
namespace int8 {
namespace internal {
namespace {

#define LOOM_AVX512 __attribute__((target("avx512f,avx512bw")))

// The fixed-point constants of sixteen lanes.
struct Stage16 {
  __m512i multiplier, left, sat_hi, sat_lo, right, round_mask, round_half, lo, hi, zero_point;
};

LOOM_AVX512 inline Stage16 OneChannel(const OutputSteps::FixedPoint& f, int64_t c) {
  Stage16 s;
  s.multiplier = _mm512_set1_epi32(f.multiplier[c]);
  s.left = _mm512_set1_epi32(f.left[c]);
  s.sat_hi = _mm512_set1_epi32(f.sat_hi[c]);
  s.sat_lo = _mm512_set1_epi32(f.sat_lo[c]);
  s.right = _mm512_set1_epi32(f.right[c]);
  s.round_mask = _mm512_set1_epi32(f.round_mask[c]);
  s.round_half = _mm512_set1_epi32(f.round_half[c]);
  s.lo = _mm512_set1_epi32(f.lo[c]);
  s.hi = _mm512_set1_epi32(f.hi[c]);
  s.zero_point = _mm512_set1_epi32(f.zero_point[c]);
  return s;
}

// Channels c0 + lane for the lanes in `m` (the others zero).
LOOM_AVX512 inline Stage16 SixteenChannels(const OutputSteps::FixedPoint& f, int64_t c0, __mmask16 m) {
  Stage16 s;
  s.multiplier = _mm512_maskz_loadu_epi32(m, f.multiplier.data() + c0);
  s.left = _mm512_maskz_loadu_epi32(m, f.left.data() + c0);
  s.sat_hi = _mm512_maskz_loadu_epi32(m, f.sat_hi.data() + c0);
  s.sat_lo = _mm512_maskz_loadu_epi32(m, f.sat_lo.data() + c0);
  s.right = _mm512_maskz_loadu_epi32(m, f.right.data() + c0);
  s.round_mask = _mm512_maskz_loadu_epi32(m, f.round_mask.data() + c0);
  s.round_half = _mm512_maskz_loadu_epi32(m, f.round_half.data() + c0);
  s.lo = _mm512_maskz_loadu_epi32(m, f.lo.data() + c0);
  s.hi = _mm512_maskz_loadu_epi32(m, f.hi.data() + c0);
  s.zero_point = _mm512_maskz_loadu_epi32(m, f.zero_point.data() + c0);
  return s;
}

// requant::Requantize of sixteen accumulators (int8 values in int32 lanes).
LOOM_AVX512 inline __m512i Requantize16(__m512i acc, const Stage16& s) {
  // acc · 2^left, saturating.
  __m512i x = _mm512_sllv_epi32(acc, s.left);
  x = _mm512_mask_mov_epi32(x, _mm512_cmpgt_epi32_mask(acc, s.sat_hi), _mm512_set1_epi32(INT32_MAX));
  x = _mm512_mask_mov_epi32(x, _mm512_cmplt_epi32_mask(acc, s.sat_lo), _mm512_set1_epi32(INT32_MIN));
  // floor((x · multiplier + 2^30) / 2^31), even and odd lanes in 64 bits.
  const __m512i round = _mm512_set1_epi64(int64_t{1} << 30);
  const __m512i even = _mm512_srai_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, s.multiplier), round), 31);
  const __m512i odd = _mm512_srai_epi64(
      _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(s.multiplier, 32)), round), 31);
  const __m512i high = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  // / 2^right rounded half away from zero.
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i remainder = _mm512_and_si512(high, s.round_mask);
  const __m512i threshold =
      _mm512_mask_add_epi32(s.round_half, _mm512_cmplt_epi32_mask(high, _mm512_setzero_si512()), s.round_half, one);
  __m512i q = _mm512_srav_epi32(high, s.right);
  q = _mm512_mask_add_epi32(q, _mm512_cmpgt_epi32_mask(remainder, threshold), q, one);
  // The clamp (relative to the zero point), then the zero point.
  return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(q, s.lo), s.hi), s.zero_point);
}

LOOM_AVX512 inline __mmask16 FirstLanes(int n) { return static_cast<__mmask16>((1u << n) - 1u); }

}  // namespace

LOOM_AVX512 void StoreTileAvx512(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows,
                                 int cols) {
  static_assert(kGemmS8Nr == 16, "one zmm register per tile row");
  const OutputSteps::FixedPoint& f = blk.steps->fixed_point();
  const __mmask16 m = FirstLanes(cols);
  if (blk.per_row) {
    for (int r = 0; r < rows; ++r) {
      const Stage16 s = OneChannel(f, blk.channel0 + i0 + r);
      const __m512i a = _mm512_add_epi32(_mm512_load_si512(acc + r * kGemmS8Nr), _mm512_set1_epi32(blk.bias[i0 + r]));
      _mm512_mask_cvtepi32_storeu_epi8(blk.y + (i0 + r) * blk.ldy + j0, m, Requantize16(a, s));
    }
    return;
  }
  const Stage16 s = SixteenChannels(f, blk.channel0 + j0, m);
  const __m512i bias = _mm512_maskz_loadu_epi32(m, blk.bias + j0);
  for (int r = 0; r < rows; ++r) {
    const __m512i a = _mm512_add_epi32(_mm512_load_si512(acc + r * kGemmS8Nr), bias);
    _mm512_mask_cvtepi32_storeu_epi8(blk.y + (i0 + r) * blk.ldy + j0, m, Requantize16(a, s));
  }
}

LOOM_AVX512 void RequantizeRowAvx512(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias,
                                     int64_t n, int8_t* y) {
  const Stage16 s = OneChannel(steps.fixed_point(), channel);
  const __m512i b = _mm512_set1_epi32(bias);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = FirstLanes(static_cast<int>(std::min<int64_t>(16, n - i)));
    const __m512i a = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + i), b);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, m, Requantize16(a, s));
  }
}

#undef LOOM_AVX512

}  // namespace internal
}  // namespace int8
}  // namespace loom

#pragma GCC diagnostic pop

#endif  // x86
