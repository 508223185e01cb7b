// The instruction-set paths of the fp32 GEMM core (gemm_f32.h) and the one
// the process runs.
//
// Each path is a table of a register-tile micro-kernel and the packers that
// lay operands out for it, with its tile size MR x NR:
//   generic  4 x 8    GCC vector extensions, baseline ISA (SSE2 on x86-64)
//   avx2     6 x 16   AVX2 + FMA: 12 ymm accumulators, broadcast A, FMA
//   avx512   12 x 32  AVX-512F: 24 zmm accumulators, broadcast A, FMA
//   neon     8 x 12   aarch64 (vfmaq_laneq_f32); 4 x 8 on armhf (vmlaq_lane_f32)
// The vector paths are compiled with `#pragma GCC target` inside their own
// files (gemm_f32_avx2.cc, gemm_f32_avx512.cc, gemm_f32_neon.cc): the default
// build runs on any CPU of its architecture and no vector instruction runs
// unless the CPU reports it (__builtin_cpu_supports on x86, AT_HWCAP on armhf;
// NEON is part of aarch64).
//
// ActiveGemmF32Isa() is decided once per process (thread-safe): the environment
// variable LOOM_CPU_ISA=generic|avx2|avx512|neon forces a path; otherwise the
// fastest path the CPU supports. A forced path the CPU lacks, or an unknown
// name, falls back to that fastest path with a one-line note on stderr.
//
// Packed operands depend on MR / NR, so everything that packs (PackedMatrixF32
// at Prepare, the packing inside GemmF32) uses the same table.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/nn/activation_epilogue.h"

namespace loom {
namespace nn {

// Where a finished MR x NR register tile goes and how it is finished.
// first K block: C = alpha * acc + beta * C (C is not read when beta == 0);
// later blocks:  C += alpha * acc.
// last K block, then: C += residual(i, j) + row_bias[i] + col_bias[j]; C = act(C).
struct GemmF32Tile {
  float* c = nullptr;  // C(row0, col0)
  int64_t ldc = 0;
  int rows = 0, cols = 0;  // the valid part of the tile (<= MR, NR)
  bool first = true, last = true;
  float alpha = 1.f, beta = 0.f;
  const float* row_bias = nullptr;  // at row0, or null
  const float* col_bias = nullptr;  // at col0, or null
  const float* residual = nullptr;  // at (row0, col0) with row stride ldc, or null
  const Activation* act = nullptr;
};

// acc = A_panel(kc x MR)^T * B_panel(kc x NR), stored through `tile`.
using GemmF32MicroKernelFn = void (*)(int64_t kc, const float* a, const float* b, const GemmF32Tile& tile);
// op(A) rows [i0, i0 + mc) x K [k0, k0 + kc) into MR-row panels of kc x MR,
// zero-padded below row m (mc is a multiple of MR).
using GemmF32PackAFn = void (*)(const float* a, int64_t lda, bool trans, int64_t m, int64_t i0, int64_t mc, int64_t k0,
                                int64_t kc, float* dst);
// op(B) K [k0, k0 + kc) x columns [n0, n0 + nc) into NR-column panels of
// kc x NR, zero-padded right of column n.
using GemmF32PackBFn = void (*)(const float* b, int64_t ldb, bool trans, int64_t n, int64_t k0, int64_t kc, int64_t n0,
                                int64_t nc, float* dst);
// As PackB for a gathered B: op(B)(k, n) = b[k_offset[k] + n_offset[n]],
// n < n_end (Conv's implicit im2col).
using GemmF32GatherBFn = void (*)(const float* b, const int32_t* k_offset, const int32_t* n_offset, int64_t n_end,
                                  int64_t k0, int64_t kc, int64_t n0, int64_t nc, float* dst);

struct GemmF32Isa {
  const char* name;  // the LOOM_CPU_ISA value
  int mr, nr;        // register tile: rows of an A panel, columns of a B panel
  GemmF32MicroKernelFn micro_kernel;
  GemmF32PackAFn pack_a;
  GemmF32PackBFn pack_b;
  GemmF32GatherBFn gather_b;
};

// The path this process runs (see above).
const GemmF32Isa& ActiveGemmF32Isa();

// Every path this build has and this CPU can run, generic first (tests force each).
std::vector<const GemmF32Isa*> SupportedGemmF32Isas();

// Stores rows x cols of a row-major accumulator tile (row stride ld) through
// `tile` with scalar code: the partial edge tiles of every path.
void StoreGemmF32Tile(const GemmF32Tile& tile, const float* acc, int ld);

// The tables of the vector paths of this architecture: null when the CPU
// cannot run them.
#if defined(__x86_64__)
const GemmF32Isa* GemmF32IsaAvx2();
const GemmF32Isa* GemmF32IsaAvx512();
#elif defined(__aarch64__) || defined(__arm__)
const GemmF32Isa* GemmF32IsaNeon();
#endif

}  // namespace nn
}  // namespace loom
