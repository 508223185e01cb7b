// The integer convolution core of ConvInteger and QLinearConv: validates x,
// w, their zero points and Conv's attributes, and computes every output's
// int32 accumulator
//   acc[n][m][p] = sum over (c, tap) of (x - x_zero_point) · (w - w_zero_point[m])
// handing each one to the caller's epilogue (ConvInteger stores it,
// QLinearConv adds its bias and requantizes). x and w are uint8 or int8
// (independently), x_zero_point per tensor, w_zero_point per tensor or per
// output channel; an absent zero point is 0. Geometry is Conv's
// (kernels/cpu/nn/conv_geometry.h): 1-D to 3-D, groups, strides, dilations,
// pads, auto_pad. As in ONNX's reference, padding is applied after the zero
// point is subtracted, so padded taps contribute 0.
//
// Algorithm: the weights become int16 rows W'[m][k] (k over channel-in-group
// and kernel taps, ONNX's weight order), converted once in Prepare when w and
// its zero point are constant, else into scratch at the start of Run. The
// output positions of each (image, group) are cut into tiles; a task gathers
// its tile into a per-thread int16 im2col buffer col[p][k] (zero point
// subtracted, 0 for padded taps), and every accumulator is DotI16(W'[m], col[p]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/quant/int_dot.h"

namespace loom {
namespace quant {

// Where a node keeps the core's inputs (ConvInteger's order by default).
struct IntConvInputs {
  size_t x = 0, w = 1, x_zero_point = 2, w_zero_point = 3;
};

class IntConv {
 public:
  // Validates x, w, their zero points (when present) and the Conv attributes
  // of `s`; `out_shape` receives [N, M, spatial...]. The output's own dtype
  // and shape are the caller's to check.
  Status Prepare(const KernelSetup& s, const IntConvInputs& inputs, Shape* out_shape);

  // Scratch Run needs with up to `num_threads` threads.
  size_t ScratchBytes(int num_threads) const {
    return (packed_w_.empty() ? w_bytes_ : 0) + static_cast<size_t>(num_threads) * tile_bytes_;
  }

  int64_t out_channels() const { return out_channels_; }

  // Calls emit(m, index, acc) once for every output: `index` is its row-major
  // position in y ((n · M + m) · P + p), `m` its output channel. emit runs
  // concurrently on the pool's threads, each call on a distinct index.
  // `scratch` holds ScratchBytes(threads) bytes, 64-byte aligned.
  template <typename Emit>
  void Run(const KernelArgs& args, char* scratch, Emit&& emit) const;

 private:
  // W'[m][k] = w[m][k] - w_zero_point[m] for output channels [m0, m1).
  void ConvertWeights(const void* w, const void* w_zp, int64_t m0, int64_t m1, int16_t* dst) const;
  // W': the packed weights, or (non-constant w) converted into `scratch`.
  const int16_t* Weights(const KernelArgs& args, char* scratch) const;
  // Gathers the output positions of `task` into col[j][k]; returns the
  // task's first output position p0 and sets its image, group and count.
  int64_t GatherTask(const void* x, int32_t x_zp, int64_t task, int16_t* col, int64_t* n, int64_t* group,
                     int64_t* count) const;

  IntConvInputs in_;
  nn::WindowGeometry g_;
  bool x_signed_ = false, w_signed_ = false;
  bool has_x_zp_ = false;
  int64_t w_zp_count_ = 0;  // 0: absent, 1: per tensor, else per output channel
  int64_t batch_ = 0, in_channels_ = 0, out_channels_ = 0, group_ = 1;
  int64_t cin_g_ = 0, cout_g_ = 0, k_ = 0;  // k_ = cin_g_ * kernel size
  int64_t tile_ = 1;                        // output positions per task
  int64_t tiles_per_plane_ = 0;
  std::vector<int16_t> packed_w_;           // W' when w is constant
  size_t w_bytes_ = 0;                      // scratch for W' otherwise
  size_t tile_bytes_ = 0;                   // per-thread im2col tile
};

template <typename Emit>
void IntConv::Run(const KernelArgs& args, char* scratch, Emit&& emit) const {
  const int16_t* wq = Weights(args, scratch);
  char* tiles = scratch + (packed_w_.empty() ? w_bytes_ : 0);
  const void* x = args.inputs[in_.x];
  const int32_t x_zp = has_x_zp_ ? Load8(args.inputs[in_.x_zero_point], x_signed_, 0) : 0;
  const int64_t out_size = g_.OutSize();
  const int64_t tasks = batch_ * group_ * tiles_per_plane_;
  ParallelFor(args.pool, tasks, 1, [&](int64_t begin, int64_t end, int thread) {
    int16_t* col = reinterpret_cast<int16_t*>(tiles + static_cast<size_t>(thread) * tile_bytes_);
    for (int64_t task = begin; task < end; ++task) {
      int64_t n = 0, gi = 0, count = 0;
      const int64_t p0 = GatherTask(x, x_zp, task, col, &n, &gi, &count);
      for (int64_t m = gi * cout_g_; m < (gi + 1) * cout_g_; ++m) {
        const int16_t* wrow = wq + m * k_;
        const int64_t base = (n * out_channels_ + m) * out_size + p0;
        for (int64_t j = 0; j < count; ++j) emit(m, base + j, DotI16(wrow, col + j * k_, k_));
      }
    }
  });
}

}  // namespace quant
}  // namespace loom
