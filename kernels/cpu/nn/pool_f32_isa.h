// The fp32 pooling fast paths and the instruction-set path the process runs.
//
// Pool2dF32Plan: a 2-D (or 1-D) MaxPool / AveragePool over one contiguous
// H x W plane with every dilation 1, prepared once from the window geometry
// (MakePool2dF32Plan; any strides, pads, ceil_mode). Per output row the
// kernel reduces the row's valid input rows into a line buffer (vectorized
// across columns, no bounds checks), whose left and right padding hold the
// reduction's identity (-inf for max, 0 for sum). A stride-s row is then split
// into its s phases (line[s * j + r] -> phase r, j), so output column o's tap k
// is phase (k % s) at o + k / s: the horizontal reduction is contiguous vector
// loads as well. AveragePool divides by per-row x per-column counts
// (count_include_pad 0 or 1) computed at Prepare. A window without any input
// (possible only when a pad is at least the kernel) gives what the generic
// kernel gives: lowest() for max, 0 for average.
//
// The reductions are the same template (pool_f32_impl.h) compiled per path:
//   generic  4 lanes  GCC vector extensions, baseline ISA (NEON on aarch64)
//   avx2     8 lanes  `#pragma GCC target("avx2")` (pool_f32_avx2.cc)
//   avx512  16 lanes  `#pragma GCC target("avx512f")` (pool_f32_avx512.cc)
// The path follows the fp32 GEMM's choice (ActiveGemmF32Isa: the CPU's best,
// or LOOM_CPU_ISA); a name without a pooling path here (neon) runs generic.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/nn/conv_geometry.h"

namespace loom {
namespace nn {

struct Pool2dF32Plan {
  bool max = true;  // false: average
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0, stride_h = 0, stride_w = 0, pad_top = 0, pad_left = 0;
  int64_t line_cols = 0;                // input columns any window reads: [0, line_cols)
  int64_t phase_len = 0;                // floats per phase; a multiple of kPool2dF32Align
  std::vector<int64_t> row_lo, row_hi;  // per output row: valid input rows [lo, hi)
  std::vector<float> row_count;         // per output row: average divisor factor (>= 1)
  std::vector<float> col_count;         // per output column (padded with 1s to phase_len)
  std::vector<int64_t> empty_cols;      // output columns whose window holds no input column
  std::vector<int64_t> tap_offset;      // per kernel column k: (k % stride_w) * phase_len + k / stride_w

  // Per-thread scratch: the line buffer and the phases.
  int64_t ScratchFloats() const { return 2 * stride_w * phase_len; }
};

constexpr int64_t kPool2dF32Align = 16;  // the widest path's lanes

// Fills `plan` when `g` is a 1-D or 2-D window with dilations 1 and non-empty
// planes; returns false otherwise (the caller keeps its generic loop).
bool MakePool2dF32Plan(const WindowGeometry& g, bool max, bool count_include_pad, Pool2dF32Plan* plan);

struct PoolF32Isa {
  const char* name;  // the LOOM_CPU_ISA value
  // One plane: in is in_h x in_w, out is out_h x out_w; scratch holds
  // plan.ScratchFloats() floats.
  void (*pool2d)(const Pool2dF32Plan& plan, const float* in, float* out, float* scratch);
  // Sum and maximum of n >= 1 floats (max: NaN-free input gives the exact maximum).
  float (*sum)(const float* x, int64_t n);
  float (*max)(const float* x, int64_t n);
};

// The path this process runs (see above), decided once.
const PoolF32Isa& ActivePoolF32Isa();

// Every path this build has and this CPU can run, generic first (tests run each).
std::vector<const PoolF32Isa*> SupportedPoolF32Isas();

#if defined(__x86_64__)
const PoolF32Isa* PoolF32IsaAvx2();    // null when the CPU lacks AVX2
const PoolF32Isa* PoolF32IsaAvx512();  // null when the CPU lacks AVX-512F
#endif

}  // namespace nn
}  // namespace loom
