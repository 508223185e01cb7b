// The numbers of Loom's int8 scheme, as the builder picks them (the
// arithmetic that uses them is kernels/common/requantize.h):
//   activations  int8, asymmetric, per tensor: [lo, hi] (lo <= 0 <= hi) maps
//                onto [-128, 127]; real 0 is exactly the zero point;
//   weights      int8, symmetric (zero point 0), per output channel: scale =
//                max|w| / 127, values in [-127, 127];
//   bias         int32 with scale x_scale * w_scale[m] and the input zero
//                point folded in: round(b / (x_scale w_scale[m])) - x_zp Σ w[m].
// Rounding is to nearest, ties to even, as ONNX's QuantizeLinear rounds.
#pragma once

#include <cstdint>
#include <vector>

#include "builder/quantize/calibration.h"
#include "common/dtype.h"
#include "common/quant_params.h"
#include "common/status.h"

namespace loom {
namespace quantize {

// Scale and zero point for an int8 activation covering `range`. A degenerate
// range (all zero) gets scale 1 and zero point 0.
QuantParams ActivationParams(const ActivationRange& range);

// q = clamp(round(x / scale) + zero_point, -128, 127).
int8_t QuantizeValue(float x, float scale, int32_t zero_point);

// Symmetric per-channel int8 weights along `axis` of `shape` (scale max|w|/127
// per channel, 1 for an all-zero channel). Fails on NaN or Inf weights.
Status QuantizeWeights(const float* w, const Shape& shape, int axis, std::vector<int8_t>* q, QuantParams* params);

// Per-tensor asymmetric int8 for a constant operand (Add/Mul/Concat inputs).
Status QuantizeConstant(const float* x, int64_t n, std::vector<int8_t>* q, QuantParams* params);

// The int32 bias of a Conv/Gemm/MatMul with int8 weights `w` (channel m along
// `axis`), input params `x` and real bias `bias` (null: zero): for channel m,
// round(bias[m] / (x_scale w_scale[m])) - x_zp Σ w[m]. Fails if a value
// leaves the int32 range.
Status FoldBias(const float* bias, const std::vector<int8_t>& w, const Shape& w_shape, int axis,
                const QuantParams& w_params, const QuantParams& x, std::vector<int32_t>* out);

// Same for a bias that arrives already quantized (int32 with scale
// x_scale w_scale[m]): bias[m] - x_zp Σ w[m].
Status FoldQuantizedBias(const int32_t* bias, const std::vector<int8_t>& w, const Shape& w_shape, int axis,
                         const QuantParams& x, std::vector<int32_t>* out);

}  // namespace quantize
}  // namespace loom
