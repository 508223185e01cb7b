// The tile transforms of the Winograd convolution (conv_winograd.h):
// F(2x2, 3x3) and F(4x4, 3x3) input and output transforms, vectorized across
// channels. One table per instruction-set path: the same source
// (conv_winograd_transform_impl.h) is compiled for the baseline ISA and,
// with `#pragma GCC target`, for AVX2 and AVX-512 in their own files; the
// table follows the fp32 GEMM path (gemm_f32_isa.h) so LOOM_CPU_ISA forces
// both.
#pragma once

#include <cstdint>

#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {

// Where the output tile t lands: pixel offset + i * width + j of every
// channel, for i < rows, j < cols (the valid part of an m x m tile).
struct WinogradTileDst {
  int64_t offset;
  int32_t rows, cols;
};

struct WinogradTransformFns {
  // Input transform of `tiles` tiles of a channel-last (HWC) padded input:
  // tile t's (m+2) x (m+2) window starts at src[t] (row stride row_stride
  // floats, column stride `channels`). Writes point p = i * (m+2) + j of tile
  // t, channel c to v[p * point_stride + t * channels + c].
  void (*input)(int m, const float* const* src, int64_t tiles, int64_t row_stride, int64_t channels, float* v,
                int64_t point_stride);
  // Output transform: point p of tile t, channel c is
  // mm[p * point_stride + t * channels + c]; adds bias[c] (if not null),
  // applies `act` and stores the valid part of each m x m tile to y, whose
  // channels come in blocks of `block` (1: NCHW, y[c * plane + pixel]; 8:
  // NCHW8c, y[(c / 8) * plane * 8 + pixel * 8 + c % 8], channels % 8 == 0).
  void (*output)(int m, const float* mm, int64_t tiles, int64_t point_stride, int64_t channels, const float* bias,
                 const Activation& act, const WinogradTileDst* dst, int64_t plane, int64_t width, int64_t block,
                 float* y);
};

// The table for a GEMM path (by its name; the baseline table for any other).
const WinogradTransformFns& WinogradTransformsFor(const GemmF32Isa& isa);

const WinogradTransformFns& WinogradTransformsGeneric();
#if defined(__x86_64__)
const WinogradTransformFns* WinogradTransformsAvx2();    // null when the CPU lacks AVX2 + FMA
const WinogradTransformFns* WinogradTransformsAvx512();  // null when the CPU lacks AVX-512F
#endif

}  // namespace nn
}  // namespace loom
