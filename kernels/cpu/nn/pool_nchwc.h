// MaxPool and AveragePool on the channel-blocked layout (NCHW8c, see
// loom.ConvNchwc): X float32 [N, C/8, H, W, 8] -> Y [N, C/8, OH, OW, 8], 2-D
// windows with ONNX's attributes. Each pixel's 8 channels are one vector of
// 8 floats, so every window tap is one vector load.
//
// The results are bit for bit those of the NCHW MaxPool / AveragePool kernel
// (pool.cc) on the same data, NaNs and signed zeros included, because the
// reductions run in the same order as that kernel's:
//   dilations 1 (its pool_f32 path): per window column, the column's valid
//     rows reduced top to bottom; then the columns left to right, a column
//     in the padding (or past it, ceil_mode) being the identity (-inf for
//     max, 0 for average). max(a, b) = a > b ? a : b.
//   dilations > 1 (its generic loop): the valid taps row by row; max keeps
//     the first tap and takes a later one when it is greater, the average
//     sums from 0.
// Averages divide by rows x columns counted per axis (count_include_pad:
// taps inside the padded extent, else inside the input); a window without
// any input gives lowest() for max and 0 for average.
//
// Per output row the valid window rows come from a table; interior output
// columns (window inside the input horizontally) run without checks, with
// 2x2 and 3x3 windows unrolled; the border columns check each tap against
// the column table. Work is split over (n, channel block, output row).
//
// The loops are one template (pool_nchwc_impl.h) compiled per path:
//   generic  GCC 8-float vectors (two SSE2 / NEON registers, or scalar)
//   avx2     one ymm (`#pragma GCC target("avx2")`, pool_nchwc_avx2.cc)
// The AVX2 path runs when the fp32 pooling path (pool_f32_isa.h, the GEMM's
// choice; LOOM_CPU_ISA forces it) is avx2 or avx512.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/nn/nchwc_vector.h"

namespace loom {
namespace nn {

struct PoolNchwcPlan {
  bool max = true;           // false: average
  bool column_order = true;  // dilations 1: the column-first order above
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0;
  int64_t dilation_h = 1, dilation_w = 1, pad_top = 0, pad_left = 0;
  // Per output row / column: the window taps inside the input, [lo, hi) in
  // tap indices (hi == lo: none), and the average's divisor factor.
  std::vector<int64_t> row_lo, row_hi, col_lo, col_hi;
  std::vector<float> row_div, col_div;
  // Output columns [interior_lo, interior_hi) have every tap inside the input.
  int64_t interior_lo = 0, interior_hi = 0;

  int64_t InPlane() const { return in_h * in_w * kNchwcBlock; }
  int64_t OutRow() const { return out_w * kNchwcBlock; }
};

// The plan of geometry `g` (2-D, from ParseWindowGeometry).
PoolNchwcPlan MakePoolNchwcPlan(const WindowGeometry& g, bool max, bool count_include_pad);

struct PoolNchwcIsa {
  const char* name;  // the LOOM_CPU_ISA value
  // Output rows [begin, end) of the flattened (plane, oh) index, plane =
  // n * C/8 + cb: x is the whole input, y the whole output.
  void (*rows)(const PoolNchwcPlan& plan, const float* x, float* y, int64_t begin, int64_t end);
};

// The path this process runs (see above), decided once.
const PoolNchwcIsa& ActivePoolNchwcIsa();

// Every path this build has and this CPU can run, generic first (tests run each).
std::vector<const PoolNchwcIsa*> SupportedPoolNchwcIsas();

#if defined(__x86_64__)
const PoolNchwcIsa* PoolNchwcIsaAvx2();  // null when the CPU lacks AVX2
#endif

}  // namespace nn
}  // namespace loom
