// Exact int8 Winograd F(2x2, 3x3) for the int8 Conv's 3x3, stride 1,
// dilation 1, single-group 2-D convolutions: 2.25x fewer multiplies than the
// im2col GEMM, bit-identical results.
//
// With B^T = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]], G' = 2G =
// [[2,0,0],[1,1,1],[1,-1,1],[0,0,2]] and A^T = [[1,1,1,0],[0,1,-1,-1]], per
// 4x4 input tile d (a 2x2 output tile) and output channel m:
//   U[m][c] = G' g[m][c] G'^T     (Prepare; |U| <= 9 · 128, int16)
//   V[c]    = B^T d[c] B          (|V| <= 4 · 128, int16)
//   M[m]    = Σ_c U[m][c] ⊙ V[c]  (16 int16 GEMMs, one per transform point, int32)
//   Y[m]    = A^T M[m] A = 4 · (the direct 3x3 convolution of the tile)
// All integer sums wrap modulo 2^32, and 4 · conv is within int32 while
// C · 9 · 128 · 128 · 4 < 2^31 (kWinogradS8MaxChannels), so Y is exact and Y / 4 (an
// arithmetic shift) is the int8 Conv's accumulator Σ x · w. The input is
// padded with its zero point (a real 0) as the direct path pads it; the bias
// (which holds the zero-point correction, README.md) is added wrapping and
// the result requantized by RequantizeRow, as the GEMM core does.
//
// Layout: an image is copied once into a zero-point-bordered buffer whose
// height and width are those of the tile grid plus 2. Tasks are (block of
// tiles, a multiple of 8, range of output channels); a task transforms
// its block's tiles into V [16][C/2][tiles][2] (channel pairs interleaved,
// the layout vpmaddwd reads), then per chunk of output channels runs the 16
// GEMMs into M [16][rows][tiles] and the output transform, requantize and
// store. The AVX2 path (conv_winograd_s8_avx2.cc) runs the GEMMs on a
// 6 x 16 vpmaddwd register tile (6 x 8 for a block's last 8 tiles); the
// portable one is plain loops.
//
// LOOM_INT8_WINOGRAD=on|off forces the path on or off for every eligible
// Conv (tests: SetWinogradS8Mode); by default it runs where it measured
// faster than the GEMM path (UseWinogradS8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/int8/output_steps.h"

namespace loom {
namespace int8 {

enum class WinogradS8Mode { kAuto, kOn, kOff };
WinogradS8Mode ActiveWinogradS8Mode();
void SetWinogradS8Mode(WinogradS8Mode mode);

// Most input channels whose 4 · conv cannot leave int32.
constexpr int64_t kWinogradS8MaxChannels = 3600;

// Whether a 3x3 stride-1 Conv with these channels and output plane runs the
// Winograd path (the mode, then the measured rule for kAuto).
bool UseWinogradS8(int64_t in_channels, int64_t out_channels, int64_t out_h, int64_t out_w);

class WinogradS8Conv {
 public:
  // weights [cout, cin, 3, 3]; input plane in_h x in_w padded by pad_top /
  // pad_left (and whatever the output extent needs) with x_zero_point;
  // steps: the output stage per output channel (kept by pointer).
  void Prepare(const int8_t* weights, int64_t cin, int64_t cout, int64_t in_h, int64_t in_w, int64_t pad_top,
               int64_t pad_left, int64_t out_h, int64_t out_w, int32_t x_zero_point, const OutputSteps* steps);
  size_t ScratchBytes(int num_threads) const;
  // One image: x [cin, in_h, in_w] -> y [cout, out_h, out_w].
  void Run(const int8_t* x, const int32_t* bias, int8_t* y, void* scratch, ThreadPool* pool) const;

  // The parts, for the per-ISA files and tests.
  int64_t cin() const { return cin_; }
  int64_t cpairs() const { return cpairs_; }
  int64_t cout() const { return cout_; }
  const int16_t* filters() const { return u_.data(); }  // [16][cout][cpairs][2]

 private:
  struct Scratch;
  Scratch Carve(void* scratch, int thread) const;
  void TransformInput(const int8_t* padded, int64_t t0, int16_t* v) const;
  void OutputRows(const int32_t* m, int64_t m0, int64_t rows, int64_t t0, const int32_t* bias, int32_t* acc,
                  int8_t* out, int8_t* y) const;

  int64_t cin_ = 0, cpairs_ = 0, cout_ = 0;
  int64_t in_h_ = 0, in_w_ = 0, pad_top_ = 0, pad_left_ = 0, out_h_ = 0, out_w_ = 0;
  int64_t tiles_h_ = 0, tiles_w_ = 0, tiles_ = 0, block_ = 0;  // block_: tiles per task
  int64_t padded_h_ = 0, padded_w_ = 0, row_stride_ = 0;       // row_stride_: padded_w_ + 16 readable bytes
  int32_t x_zero_point_ = 0;
  const OutputSteps* steps_ = nullptr;
  std::vector<int16_t> u_;
  size_t padded_bytes_ = 0, v_bytes_ = 0, m_bytes_ = 0, acc_bytes_ = 0, out_bytes_ = 0;
};

namespace internal {
// The tiles [t0, t0 + count) of a zero-point-bordered image (channel c's
// plane at padded + c · plane, rows row_stride apart, readable 16 bytes past
// the tile grid's last column), transformed into V [16][cpairs][block][2];
// slots past count and channels past cin are left to the caller.
struct WinogradS8Tiles {
  const int8_t* padded = nullptr;
  int64_t plane = 0, row_stride = 0, cin = 0, cpairs = 0, tiles_w = 0, t0 = 0, count = 0, block = 0;
};
void WinogradS8InputPortable(const WinogradS8Tiles& tiles, int16_t* v);
// One output channel's A^T M A / 4 of the first `count` (a multiple of 8) of
// a block of `stride` tiles from m (point p at m + p · point_stride) into acc
// [4][stride], position (dy, dx) of a tile at acc[(2 · dy + dx) · stride],
// the sums wrapping.
void WinogradS8OutputPortable(const int32_t* m, int64_t point_stride, int64_t stride, int64_t count, int32_t* acc);
// M[p][r][t] = Σ_c U[p][m0 + r][c] · V[p][c][t] for p < 16, r < rows, t <
// count (a multiple of 8) of a block of `stride` tiles, U and V as
// WinogradS8Conv lays them out; M's rows are `stride` apart, its points
// kWinogradS8Rows · stride.
constexpr int kWinogradS8Rows = 24;
void WinogradS8GemmPortable(const int16_t* u, int64_t cout, int64_t cpairs, int64_t m0, int64_t rows, const int16_t* v,
                            int64_t stride, int64_t count, int32_t* m);
#if defined(__x86_64__) || defined(__i386__)
void WinogradS8GemmAvx2(const int16_t* u, int64_t cout, int64_t cpairs, int64_t m0, int64_t rows, const int16_t* v,
                        int64_t stride, int64_t count, int32_t* m);
void WinogradS8InputAvx2(const WinogradS8Tiles& tiles, int16_t* v);
void WinogradS8OutputAvx2(const int32_t* m, int64_t point_stride, int64_t stride, int64_t count, int32_t* acc);
#endif
}  // namespace internal

}  // namespace int8
}  // namespace loom
