// Winograd convolution for fp32 2-D Conv with a 3x3 kernel, stride 1,
// dilation 1 and one group: F(4x4, 3x3) (6x6 input tiles, 36 transform
// points) or F(2x2, 3x3) (4x4 tiles, 16 points).
//
//   Prepare  U_p = (G g G^T)_p for every filter, written straight into one
//            packed GEMM B operand [Cin x Cout] per point p
//            (conv_winograd_filter.h, once).
//   Run      per image: X is copied once into a zero-padded channel-last
//            buffer (the pads and the partial tiles at the right/bottom edge
//            read zeros); then per block of tiles (ParallelFor, one block per
//            task): input transform V_p = (B^T d B)_p into [tiles x Cin] per
//            point, one GEMM per point M_p = V_p * U_p [tiles x Cout] (the
//            packed GEMM core, serial inside the task), output transform
//            A^T M A with the bias and the fused activation, stored to the
//            valid part of each tile; with a residual (Conv + Add), the
//            activation waits until the block's output rows have it added.
// X, Y and the residual are NCHW or channel-blocked NCHW8c ([N, C/8, H, W,
// 8], nchwc_vector.h; shape.channel_block = 8): staging then copies 8
// contiguous channels per pixel, and the output transform stores each
// point's 8-channel blocks whole.
// The tile block is sized so that V and M of a block stay in the L2 cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/nn/gemm_f32.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {

struct WinogradConvShape {
  int64_t batch = 1, in_channels = 0, out_channels = 0;
  int64_t in_h = 0, in_w = 0;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  // The layout of X, Y and the residual: 1 for NCHW, 8 for NCHW8c (Cin and
  // Cout multiples of 8).
  int64_t channel_block = 1;
  int64_t OutH() const { return in_h + pad_top + pad_bottom - 2; }
  int64_t OutW() const { return in_w + pad_left + pad_right - 2; }
};

// The Winograd shape of a Conv with window g (g.IsWinograd3x3()).
WinogradConvShape WinogradShapeOf(int64_t batch, int64_t in_channels, int64_t out_channels, const WindowGeometry& g,
                                  int64_t channel_block = 1);

class WinogradConvF32 {
 public:
  // tile_m: 4 for F(4x4, 3x3), 2 for F(2x2, 3x3). w: [Cout, Cin, 3, 3], or
  // null to set up everything but the transformed weights (Run must not be
  // called then).
  // tiles_per_block: 0 picks the block from the cache budget.
  void Prepare(const WinogradConvShape& shape, int tile_m, const float* w, const Activation& act,
               const GemmF32Isa& isa = ActiveGemmF32Isa(), int64_t tiles_per_block = 0);
  // The transformed filters as one derived constant (kernel.h): the key that
  // names their layout for this shape, tile and path, and their bytes.
  static std::string FilterKey(const WinogradConvShape& shape, int tile_m, const GemmF32Isa& isa = ActiveGemmF32Isa());
  static size_t FilterBytes(const WinogradConvShape& shape, int tile_m, const GemmF32Isa& isa = ActiveGemmF32Isa());
  // Uses filters transformed earlier (FilterKey's layout, FilterBytes bytes,
  // kept alive by the caller) instead of transforming w: call right after
  // Prepare(..., w = null, ...) with the same arguments.
  void UseTransformedFilters(const float* u);
  // The transformed filters (FilterBytes), null before they exist.
  const float* transformed_filters() const { return u_.empty() ? nullptr : u_[0].data(); }
  size_t ScratchBytes(int num_threads) const;
  // x [N, Cin, H, W], bias [Cout] or null, y [N, Cout, OH, OW]; residual
  // null or [N, Cout, OH, OW] added before the activation (not overlapping
  // y); x, y and residual blocked by shape.channel_block; scratch holds
  // ScratchBytes(threads) bytes, 64-byte aligned.
  void Run(const float* x, const float* bias, float* y, void* scratch, ThreadPool* pool,
           const float* residual = nullptr) const;

  int tile_m() const { return m_; }

 private:
  // Copies image x into the zero-padded channel-last buffer xt.
  void StageInput(const float* x, float* xt, ThreadPool* pool) const;
  // y = act(y + r) over the output of tiles [t0, t0 + tn) of one image (y
  // holds conv + bias, still hot in the cache).
  void AddResidual(int64_t t0, int64_t tn, const float* r, float* y) const;

  WinogradConvShape s_;
  int m_ = 4, a_ = 6;  // tile, tile + 2
  const GemmF32Isa* isa_ = nullptr;
  Activation act_;
  std::vector<PackedMatrixF32> u_;  // per point: [Cin x Cout]
  int64_t tiles_h_ = 0, tiles_w_ = 0, tiles_ = 0, block_ = 0;
  int64_t hp_ = 0, wp_ = 0;  // padded channel-last input: hp_ x wp_ x Cin
  size_t input_bytes_ = 0;   // the padded input
  size_t thread_bytes_ = 0;  // per task slice: V, M, tile tables, GEMM scratch
  size_t v_bytes_ = 0, m_bytes_ = 0, table_bytes_ = 0;
};

// Whether the Winograd path should run a Conv of this shape, and with which
// tile: returns 0 (direct path), 2 or 4. `requested` (0, 2 or 4: the node's
// loom.winograd, a tactic the builder measured fastest) decides when given,
// else a rule measured on one machine. The environment variable
// LOOM_CONV_WINOGRAD overrides both: "0"/"off" never, "2"/"f2" and
// "4"/"f4"/"1"/"on" always with that tile.
int ChooseWinogradTile(const WinogradConvShape& shape, int requested = -1);

}  // namespace nn
}  // namespace loom
