// What QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear share: the
// scale / zero-point inputs (per-tensor, or per-axis along `axis` from opset
// 13), the walk over a tensor in runs of one channel, and ONNX's rounding.
//
// A per-axis tensor of shape [..., C, ...] (C = shape[axis]) is a sequence of
// runs of `inner` elements (the product of the dims after axis); run r uses
// channel r % C. Per-tensor is the case C = 1, inner = all elements.
#pragma once

#include <algorithm>
#include <cstdint>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/kernel.h"

namespace loom {
namespace quant {

// Elements per parallel task.
constexpr int64_t kQuantGrain = 1 << 14;

// The scale (input 1) and optional zero point (input 2) of a
// Quantize/DequantizeLinear node, as Prepare validated them.
struct LinearQuantParams {
  int64_t channels = 1;  // 1: per-tensor
  int64_t inner = 1;     // elements per run of one channel
  bool has_zero_point = false;
  DType zero_point_dtype = DType::kUndefined;
  // Non-null when the input is constant (the node's const_data).
  const float* const_scale = nullptr;
  const void* const_zero_point = nullptr;
};

// Validates inputs 1 and 2 against `x` (input 0): the scale is float32 (other
// float dtypes are unsupported), with one element (per-tensor; a scalar or a
// 1-D tensor of one element) or, from opset 13, 1-D of length x.shape[axis]
// (`axis` attribute, default 1, negative counts from the back); the zero
// point, when present, has the scale's shape. Its dtype is the caller's to
// check. A non-zero `block_size` attribute (blocked quantization) is
// unsupported.
Status PrepareLinearQuantParams(const KernelSetup& s, LinearQuantParams* p);

// Calls fn(channel, begin, end) for the runs of one channel covering the
// element range [begin, end).
template <typename F>
void ForEachChannelRun(const LinearQuantParams& p, int64_t begin, int64_t end, F&& fn) {
  while (begin < end) {
    const int64_t run = begin / p.inner;
    const int64_t run_end = std::min(end, (run + 1) * p.inner);
    fn(run % p.channels, begin, run_end);
    begin = run_end;
  }
}

// Rounds to the nearest integer, ties to even (ONNX's rounding, numpy's
// rint), for |v| < 2^22: adding 1.5 * 2^23 leaves no fraction bits, so the
// addition itself rounds under the default round-to-nearest-even mode.
// Unlike std::nearbyint it vectorizes on every target.
inline float RoundHalfToEven(float v) {
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  return (v + kMagic) - kMagic;
}

// saturate(round_half_to_even(v) + zero_point) into [lo, hi], for integer lo,
// hi and zero_point with |lo - zero_point|, |hi - zero_point| < 2^22. Clamping
// before rounding gives the same result (rounding is monotone and keeps
// integers) and keeps the value in RoundHalfToEven's range; NaN becomes lo.
inline float QuantizeValue(float v, float zero_point, float lo, float hi) {
  v = std::min(hi - zero_point, std::max(lo - zero_point, v));
  return RoundHalfToEven(v) + zero_point;
}

}  // namespace quant
}  // namespace loom
