// requantize.h's fixed-point Requantize evaluated in eight int32 lanes of a
// ymm register, bit-exact with requant::Requantize, shared by the AVX2 files
// (store_tile_avx2.cc: the GEMM epilogue; add_mul_avx2.cc: int8 Add and Mul).
// The stage constants are OutputSteps::fixed_point()'s.
// AVX2 has 32 x 32 -> 64-bit products of the even lanes only
// (_mm256_mul_epi32) and no 64-bit arithmetic shift, so the rounding doubling
// high multiply floor((x · multiplier + 2^30) / 2^31) (the reference's
// rounding, see store_tile_avx512.cc) takes bits 31..62 of the 64-bit sum:
// a logical shift right by 31 leaves them in the low half of an even lane,
// a shift left by 1 in the high half of an odd lane (the result fits int32,
// so the sign bits above are never needed). No gathers, no tables.
// Include only from files compiled for x86 whose functions carry the avx2
// target attribute (LOOM_AVX2), called only when the CPU has AVX2.
#pragma once

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/int8/output_steps.h"

#ifndef LOOM_AVX2
#define LOOM_AVX2 __attribute__((target("avx2")))
#endif

namespace loom {
namespace int8 {
namespace internal {

// The fixed-point constants of eight lanes.
struct Stage8 {
  __m256i multiplier, left, sat_hi, sat_lo, right, round_mask, round_half, lo, hi, zero_point;
};

// Channel c's constants in every lane.
LOOM_AVX2 inline Stage8 OneChannel(const OutputSteps::FixedPoint& f, int64_t c) {
  Stage8 s;
  s.multiplier = _mm256_set1_epi32(f.multiplier[c]);
  s.left = _mm256_set1_epi32(f.left[c]);
  s.sat_hi = _mm256_set1_epi32(f.sat_hi[c]);
  s.sat_lo = _mm256_set1_epi32(f.sat_lo[c]);
  s.right = _mm256_set1_epi32(f.right[c]);
  s.round_mask = _mm256_set1_epi32(f.round_mask[c]);
  s.round_half = _mm256_set1_epi32(f.round_half[c]);
  s.lo = _mm256_set1_epi32(f.lo[c]);
  s.hi = _mm256_set1_epi32(f.hi[c]);
  s.zero_point = _mm256_set1_epi32(f.zero_point[c]);
  return s;
}

// floor((x · multiplier + 2^30) / 2^31) per lane: SaturatingRoundingDoublingHighMul
// for multiplier >= 0 (INT32_MIN · INT32_MIN cannot occur).
LOOM_AVX2 inline __m256i RoundingHighMul8(__m256i x, __m256i multiplier) {
  const __m256i round = _mm256_set1_epi64x(int64_t{1} << 30);
  const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, multiplier), round), 31);
  const __m256i odd = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(multiplier, 32)), round), 1);
  return _mm256_blend_epi32(even, odd, 0xAA);
}

// RoundingDivideByPOT(x, right) per lane: the threshold is one more for a
// negative value (subtracting its all-ones sign mask adds 1).
LOOM_AVX2 inline __m256i RoundingShift8(__m256i x, const Stage8& s) {
  const __m256i remainder = _mm256_and_si256(x, s.round_mask);
  const __m256i threshold = _mm256_sub_epi32(s.round_half, _mm256_srai_epi32(x, 31));
  return _mm256_sub_epi32(_mm256_srav_epi32(x, s.right), _mm256_cmpgt_epi32(remainder, threshold));
}

// requant::MultiplyByQuantizedMultiplier of eight accumulators.
LOOM_AVX2 inline __m256i MultiplyByQuantizedMultiplier8(__m256i acc, const Stage8& s) {
  // acc · 2^left, saturating.
  __m256i x = _mm256_sllv_epi32(acc, s.left);
  x = _mm256_blendv_epi8(x, _mm256_set1_epi32(INT32_MAX), _mm256_cmpgt_epi32(acc, s.sat_hi));
  x = _mm256_blendv_epi8(x, _mm256_set1_epi32(INT32_MIN), _mm256_cmpgt_epi32(s.sat_lo, acc));
  return RoundingShift8(RoundingHighMul8(x, s.multiplier), s);
}

// requant::Requantize of eight accumulators (int8 values in int32 lanes).
LOOM_AVX2 inline __m256i Requantize8(__m256i acc, const Stage8& s) {
  const __m256i q = MultiplyByQuantizedMultiplier8(acc, s);
  // The clamp (relative to the zero point), then the zero point.
  return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, s.lo), s.hi), s.zero_point);
}

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
