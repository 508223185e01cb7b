// The AVX2 paths of int8 Add and Mul (add_mul.cc) over runs in which both
// inputs are contiguous (same shapes), bit-exact with requantize.h.
//
// Add: an input's term requant::ScaleAddInput(q, zp, m) is, for the
// multipliers MakeAddParams makes (shift <= 0, multiplier 0 or in
// [2^30, 2^31)), with t = q − zp, M = m.multiplier, r = −m.shift:
//   high = floor((t · 2^20 · M + 2^30) / 2^31) = floor((t · M + 2^10) / 2^11)
//        = t · (M >> 11) + floor((t · (M & 2047) + 2^10) / 2^11)
//   term = RoundingDivideByPOT(high, r)
//        = (high + 2^(r−1) − [high < 0]) >> r          (r > 0; term = high for r = 0)
// and high < 0 exactly when t < 0 (or never, for M = 0, where both forms give
// 0). Every step is a 32-bit product or sum (|t| <= 255), so AddTerm holds it
// with the zero point folded into constants and the AVX2 loop evaluates it
// with two vpmulld per eight lanes; Prepare checks EvalAddTerm against
// ScaleAddInput for all 256 inputs before using it. The sum of the two terms
// takes the output stage (requantize_avx2.h) without its saturating left
// shift, so the path requires an output stage of shift <= 0.
// Mul: (qa − a_zp) · (qb − b_zp) (|·| <= 2^16) through the full output stage.
// Both: the int32 results before the zero point are packed to int16 and int8
// with saturation, the zero point added in between, then clamped to the range:
// the reference's clamp(zp + v) since |zp| <= 128 and saturated values stay
// outside the int8 range.
#pragma once

#include <cstdint>

#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/output_steps.h"

namespace loom {
namespace int8 {
namespace internal {

// ScaleAddInput(q, zero_point, m) =
//   (q · mul_high + ((q · mul_low + low_bias) >> 11) + bias − [q < negative_below]) >> right
struct AddTerm {
  int32_t mul_high = 0, mul_low = 0, low_bias = 0, bias = 0, negative_below = -128, right = 0;
};

// False for a multiplier the decomposition does not cover (shift > 0).
inline bool MakeAddTerm(int32_t zero_point, requant::Multiplier m, AddTerm* out) {
  if (m.shift > 0 || m.shift < -31 || m.multiplier < 0 || zero_point < -128 || zero_point > 127) return false;
  AddTerm t;
  t.right = -m.shift;
  t.mul_high = m.multiplier >> 11;
  t.mul_low = m.multiplier & 2047;
  t.low_bias = 1024 - zero_point * t.mul_low;
  t.bias = (t.right > 0 ? 1 << (t.right - 1) : 0) - zero_point * t.mul_high;
  t.negative_below = t.right > 0 ? zero_point : -128;  // q < -128 never holds
  *out = t;
  return true;
}

// The scalar form of the vector evaluation (q in [-128, 127]).
inline int32_t EvalAddTerm(int32_t q, const AddTerm& t) {
  const int32_t high = q * t.mul_high + ((q * t.mul_low + t.low_bias) >> 11) + t.bias;
  return (high - (q < t.negative_below ? 1 : 0)) >> t.right;
}

#if defined(__x86_64__) || defined(__i386__)
// y[i] = requant::Requantize(term_a(a[i]) + term_b(b[i]), output stage 0 of
// `output`) for i < n; its fixed-point left shift must be 0 and its range
// min <= max.
void AddAvx2(const AddTerm& term_a, const AddTerm& term_b, const OutputSteps& output, const int8_t* a, const int8_t* b,
             int8_t* y, int64_t n);
// y[i] = requant::Requantize((a[i] − a_zero_point) · (b[i] − b_zero_point),
// stage 0 of `output`) for i < n; its range min <= max.
void MulAvx2(int32_t a_zero_point, int32_t b_zero_point, const OutputSteps& output, const int8_t* a, const int8_t* b,
             int8_t* y, int64_t n);
#endif

}  // namespace internal
}  // namespace int8
}  // namespace loom
