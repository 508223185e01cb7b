// The one definition of Loom's int8 requantization arithmetic. Every int8
// computation — the CPU kernels, the accelerator's functional model and the
// RTL tests — uses these functions or checks against them, so they agree bit
// for bit. No other file re-derives this arithmetic.
//
// It is gemmlowp's / TFLite's fixed-point scheme:
//
//   a real scale s > 0 becomes (multiplier, shift) with
//       s ≈ multiplier · 2^(shift − 31),  multiplier an int32 in [2^30, 2^31)
//   (frexp, round, renormalise when the rounding reaches 2^31; a scale too
//   small for any shift becomes multiplier 0, which maps everything to the
//   zero point), and an int32 accumulator `acc` (the int32 bias included)
//   becomes
//       y = clamp(zp + RoundingDivideByPOT(
//                        SaturatingRoundingDoublingHighMul(acc · 2^max(shift, 0), multiplier),
//                        max(−shift, 0)),
//                 qmin, qmax)
//   where SaturatingRoundingDoublingHighMul(a, b) is 2ab / 2^32 rounded to
//   nearest (a = b = INT32_MIN, the one overflow, saturates to INT32_MAX),
//   RoundingDivideByPOT(x, e) is x / 2^e rounded half away from zero, and
//   acc · 2^shift saturates to the int32 range. Both are gemmlowp's functions
//   to the bit: its nudge-and-truncate rounds a tie of the high multiply
//   toward +infinity (away from zero for a positive product, toward zero for
//   a negative one); RoundingDivideByPOT's ties go away from zero both ways.
//   ReLU, ReLU6 and Clip are the clamp bounds [qmin, qmax] (ActivationRange).
//
// Two more forms build on it:
//   Add     inputs of different scales (residual Add): each input, minus its
//           zero point and shifted left by kAddLeftShift, is scaled by its
//           scale / (2 · max input scale); the sum is requantized by
//           2 · max input scale / (2^kAddLeftShift · output scale).
//   Rescale one int8 tensor to another scale and zero point (Concat inputs,
//           pooling and Resize with differing parameters):
//           y = clamp(zp_out + Requantize(q − zp_in, s_in / s_out)).
#pragma once

#include <cstdint>
#include <limits>

#include "common/status.h"

namespace loom {
namespace requant {

// s ≈ multiplier · 2^(shift − 31); multiplier is 0 or in [2^30, 2^31).
struct Multiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;  // in [-31, 31]
};

// The fixed-point form of a real scale. Fails for a scale that is not finite
// and positive, or whose shift would pass 31 (scales near 2^31 and above,
// which no int32 result could use).
Status QuantizeMultiplier(double scale, Multiplier* out);

// 2ab / 2^32 rounded to nearest, ties toward +infinity; INT32_MIN · INT32_MIN
// (the one case that overflows) saturates to INT32_MAX.
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == std::numeric_limits<int32_t>::min() && b == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));  // division truncates toward zero
}

// x / 2^exponent rounded half away from zero; exponent in [0, 31].
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int64_t mask = (int64_t{1} << exponent) - 1;
  const int64_t remainder = static_cast<int64_t>(x) & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int32_t>((static_cast<int64_t>(x) >> exponent) + (remainder > threshold ? 1 : 0));
}

// acc · s in the fixed-point form above, before the zero point and clamp.
inline int32_t MultiplyByQuantizedMultiplier(int32_t acc, Multiplier m) {
  const int left = m.shift > 0 ? m.shift : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  int64_t shifted = static_cast<int64_t>(acc) * (int64_t{1} << left);
  if (shifted > std::numeric_limits<int32_t>::max()) shifted = std::numeric_limits<int32_t>::max();
  if (shifted < std::numeric_limits<int32_t>::min()) shifted = std::numeric_limits<int32_t>::min();
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(static_cast<int32_t>(shifted), m.multiplier), right);
}

// The integer range an output may take: the dtype's ([-128, 127] for int8,
// [0, 255] for uint8), narrowed by a fused activation.
struct Range {
  int32_t min = -128;
  int32_t max = 127;
};

inline int32_t Clamp(int32_t v, Range r) { return v < r.min ? r.min : v > r.max ? r.max : v; }

// The range of an int8 (is_signed) or uint8 tensor with `scale` and
// `zero_point` whose real values an activation limits to [lo, hi]: ReLU is
// [0, +inf), ReLU6 [0, 6], Clip(a, b) [a, b]; no activation is (-inf, +inf).
// A bound maps to zero_point + round(bound / scale) (half away from zero),
// then is kept inside the dtype's range.
Range ActivationRange(bool is_signed, float scale, int32_t zero_point, float lo, float hi);

// The output stage of a Conv/Gemm/MatMul/Mul: accumulator -> int8/uint8 value.
struct OutputStage {
  Multiplier m;
  int32_t zero_point = 0;
  Range range;
};

// The output stage of one output channel of a Conv/Gemm/MatMul: the
// accumulator's scale is in_scale · weight_scale (the int32 bias has that
// scale too), requantized to out_scale, computed in double as
// (double)in_scale · weight_scale / out_scale. Every int8 Conv/Gemm/MatMul
// (CPU kernels, the accelerator's model, the RTL tests) derives its
// per-channel stages with this function.
Status MakeOutputStage(float in_scale, float weight_scale, float out_scale, int32_t out_zero_point, Range range,
                       OutputStage* out);

inline int32_t Requantize(int32_t acc, const OutputStage& s) {
  // zero_point + the scaled value cannot overflow: |zero_point| <= 255.
  const int64_t v = static_cast<int64_t>(s.zero_point) + MultiplyByQuantizedMultiplier(acc, s.m);
  return v < s.range.min ? s.range.min : v > s.range.max ? s.range.max : static_cast<int32_t>(v);
}

// --- Add of two quantized tensors with different scales ---------------------

// Headroom for the inputs: (q - zp) spans 9 bits, so 2^20 leaves the sum of
// two scaled inputs inside int32.
constexpr int kAddLeftShift = 20;

struct AddParams {
  int32_t a_zero_point = 0, b_zero_point = 0;
  Multiplier a, b;     // s_a / (2 max(s_a, s_b)), s_b / (2 max(s_a, s_b))
  OutputStage output;  // 2 max(s_a, s_b) / (2^kAddLeftShift s_out), zero point, range
};

Status MakeAddParams(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point, float out_scale,
                     int32_t out_zero_point, Range range, AddParams* out);

// One input of an Add before the output stage: (q - zero_point) shifted left
// by kAddLeftShift and scaled by its multiplier. The accelerator's ADD writes
// the sum of two of these into its accumulators; STORE applies the output stage.
inline int32_t ScaleAddInput(int32_t q, int32_t zero_point, Multiplier m) {
  return MultiplyByQuantizedMultiplier((q - zero_point) * (1 << kAddLeftShift), m);
}

inline int32_t RequantizeAdd(int32_t qa, int32_t qb, const AddParams& p) {
  const int32_t a = ScaleAddInput(qa, p.a_zero_point, p.a);
  const int32_t b = ScaleAddInput(qb, p.b_zero_point, p.b);
  return Requantize(a + b, p.output);
}

// --- Rescale: one tensor's values to another scale and zero point ----------

// With equal scales the multiplier is exactly 1 (2^30 · 2^(1 − 31)), so
// values pass unchanged apart from the zero-point difference.
struct RescaleParams {
  int32_t in_zero_point = 0;
  OutputStage output;  // s_in / s_out, the output zero point and range
};

Status MakeRescaleParams(float in_scale, int32_t in_zero_point, float out_scale, int32_t out_zero_point, Range range,
                         RescaleParams* out);

inline int32_t Rescale(int32_t q, const RescaleParams& p) { return Requantize(q - p.in_zero_point, p.output); }

}  // namespace requant
}  // namespace loom
