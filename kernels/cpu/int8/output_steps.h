// The output stages of an int8 Conv/Gemm/MatMul as lookup tables, bit-exact
// with requantize.h by construction, for the portable epilogue; and in
// requantize.h's fixed-point form for the x86 ones that evaluate it.
//
// requant::Requantize(acc, stage) is a non-decreasing function of the int32
// accumulator (each of its steps is: the saturating left shift, the rounding
// doubling high multiply by a multiplier >= 0, the rounding right shift, the
// zero point and the clamp). So it is described completely by where each of
// its output values ends: with first = Requantize(INT32_MIN) and
// last = Requantize(INT32_MAX),
//   Requantize(acc) = first + i   for upper[i - 1] < acc <= upper[i]
// (upper[last - first] = INT32_MAX; a value the function skips has an empty
// interval). Build finds every upper[i] by bisection on Requantize itself.
// A lookup starts at an estimate of i (acc times the stage's real scale) and
// steps down or up until acc lies in the interval: the estimate only decides
// how many steps (usually none), never the result. A table takes about 1 KiB
// per output channel.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/requantize.h"

namespace loom {
namespace int8 {

class OutputSteps {
 public:
  // Table entries per channel: a sentinel, then upper[0, 256) (an int8
  // output has at most 256 values), so bounds[c * kStride + i] is upper[i - 1]
  // and a vector lookup gathers upper[i - 1] and upper[i] for any i in range.
  static constexpr int kStride = 257;
  // Most channels a table set holds (a lane's table offset is an int32).
  static constexpr int64_t kMaxChannels = (int64_t{1} << 31) / kStride - 1;

  // Tables for `stages`, one per output channel.
  void Build(const std::vector<requant::OutputStage>& stages);

  // requant::Requantize(acc, stages[c]).
  int32_t Lookup(int64_t c, int32_t acc) const {
    const int32_t top = top_[static_cast<size_t>(c)];
    const float estimate = static_cast<float>(acc) * scale_[static_cast<size_t>(c)] + offset_[static_cast<size_t>(c)];
    // The nearest index (truncating a value >= 1 rounds it down), kept in range.
    int32_t i = estimate < 0.5f ? 0 : estimate > 255.5f ? 255 : static_cast<int32_t>(estimate + 0.5f);
    i = i > top ? top : i;
    const int32_t* bounds = bounds_.data() + c * kStride;  // bounds[i + 1] = upper[i]
    while (i > 0 && acc <= bounds[i]) --i;
    while (acc > bounds[i + 1]) ++i;
    return first_[static_cast<size_t>(c)] + i;
  }

  // The tables as arrays, for the vector lookups: per channel c the
  // estimate i ≈ acc · scale[c] + offset[c], the first output value, the
  // last index, and the bounds (kStride per channel, as above).
  const float* scale() const { return scale_.data(); }
  const float* offset() const { return offset_.data(); }
  const int32_t* first() const { return first_.data(); }
  const int32_t* top() const { return top_.data(); }
  const int32_t* bounds() const { return bounds_.data(); }

  // The same stages in requantize.h's fixed-point form, one entry per
  // channel in each array, for vector code that evaluates Requantize directly
  // (shift-and-multiply, no table): with left = max(shift, 0) and
  // right = max(-shift, 0),
  //   saturation  acc > sat_hi saturates acc · 2^left to INT32_MAX, acc < sat_lo
  //               to INT32_MIN (sat_hi = INT32_MAX >> left, sat_lo = INT32_MIN >> left)
  //   rounding    round_mask = 2^right - 1, round_half = round_mask >> 1
  //   clamp       lo = range.min - zero_point, hi = range.max - zero_point
  //               (the clamp before the zero point add, which cannot overflow then)
  struct FixedPoint {
    std::vector<int32_t> multiplier, left, sat_hi, sat_lo, right, round_mask, round_half, lo, hi, zero_point;
  };
  const FixedPoint& fixed_point() const { return fixed_; }

 private:
  FixedPoint fixed_;
  std::vector<float> scale_, offset_;
  std::vector<int32_t> first_, top_;
  std::vector<int32_t> bounds_;
};

}  // namespace int8
}  // namespace loom
