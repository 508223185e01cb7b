// The direct path of the int8 depthwise Conv (one input channel per group,
// 1-D or 2-D): one output plane at a time, every tap of an output row summed
// in int32 (a K x K kernel with unit dilation unrolled at compile time, so
// the row loop vectorizes), then requantized a row at a time (RequantizeRow
// of gemm_s8.h). The input plane is first copied into scratch as int16
// around a border of the input zero point, so the taps read without bounds
// checks and multiply in 16 bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/int8/output_steps.h"
#include "kernels/cpu/nn/conv_geometry.h"

namespace loom {
namespace int8 {

// Scratch bytes one DepthwisePlane call needs for geometry g (a multiple of 64).
size_t DepthwiseScratchBytes(const nn::WindowGeometry& g);

// y (g.out[1] x g.out[2]) = the depthwise taps `w` (g.kernel[1] x g.kernel[2])
// over x (g.in[1] x g.in[2], zero point x_zp) plus bias, requantized as
// output channel `channel` of `steps`. Spatial axes 1 and 2 of g are used
// (axis 0 must be trivial).
void DepthwisePlane(const nn::WindowGeometry& g, const int8_t* x, int32_t x_zp, const int8_t* w, int32_t bias,
                    const OutputSteps& steps, int64_t channel, int8_t* y, void* scratch);

}  // namespace int8
}  // namespace loom
