// loom.ConvNchwc (group 1) on channel-blocked tensors (nchwc_vector.h):
//   X [N, Cin/8, H, W, 8], W [Cout/8, Cin/8, KH, KW, 8 (ci), 8 (co)],
//   Y [N, Cout/8, OH, OW, 8] = act(conv(X, W) + B + R).
// With the int attribute loom.input_scale = 1, a 5th input S [N, Cin/8, 1,
// 1, 8] scales X's channels per image first: conv(X * S, W) (a squeeze-and-
// excitation Mul folded in by the builder, fold_channel_scale). Each run
// scales W's input channels by S into scratch, image by image, and the
// tiles read that copy; Winograd is not used then.
//
// The register tile is up to 6 output pixels x 2 output blocks (16 output
// channels) in 12 vector accumulators (an odd last block: 12 pixels x 1
// block). Per input channel: 2 weight vector
// loads (the 8 output channels of each block for that input channel, read
// in order from W as it arrives), up to 6 broadcasts of X and 12
// multiply-adds. Bias, residual and the piecewise-linear activations are
// applied in registers when the tile is stored; Sigmoid/Tanh/Swish run over
// the stored range afterwards (the driver).
//   pointwise  1x1, stride 1, no padding: pixels flattened over H*W, tiles of
//              6 consecutive pixels, loop over the input blocks only.
//   general    any window, strides, pads and dilations: tiles of 6 pixels of
//              one output row; per input block, kh, kw the tile's 6 input
//              pixels (or, outside the input, a zero vector) feed 8 input
//              channels. Stride-1 tiles whose windows lie inside the
//              input columns take a path without per-pixel checks.
//
// loom.ConvNchwcStem is the same convolution from a plain NCHW input, for
// the first Conv of a network (Cin = 3, any Cin), straight into NCHW8c:
//   X [N, Cin, H, W], W [Cout/8, Cin, KH, KW, 8 (co)],
//   Y [N, Cout/8, OH, OW, 8] = act(conv(X, W) + B + R).
//   stem       tiles of 6 pixels of one output row x 2 output blocks; per
//              input channel, kh, kw: 2 weight vector loads, one broadcast
//              of a scalar input value per pixel (so the column stride costs
//              nothing) and 12 multiply-adds. Tiles whose windows lie inside
//              the input columns take a path without per-pixel checks.
// A path with paired_weights (avx512: one vector holds two blocks) reads W
// reordered by PairWeights, which the kernel makes in Prepare (or takes from
// the plan as a derived constant; in Run into scratch when W is not
// constant).
// The driver (conv_nchwc.cc) splits the work into tasks of (image, range of
// pixels or rows, group of block pairs) for ParallelFor. 3x3 stride-1 convs
// that ChooseWinogradTile takes run through the Winograd convolution on the
// blocked tensors instead (conv_winograd.h).
#pragma once

#include <cstdint>

#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/nchwc_vector.h"

namespace loom {
namespace nn {

// Geometry of one problem (validated by the kernel's Prepare).
struct ConvNchwcGeometry {
  int64_t in_channels = 0, in_blocks = 0, out_blocks = 0;  // Cin, Cin / 8 (0 for the stem), Cout / 8
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Output columns [interior_begin, interior_end) read only input columns
  // inside the input for every kw.
  int64_t interior_begin = 0, interior_end = 0;
};

// One piece of work: output blocks [ob, ob + blocks) (blocks 1 to the
// path's blocks_per_task) of one
// image over output pixels [begin, end) (pointwise: flattened over OH*OW) or
// output rows [begin, end) (general, stem). Pointers are at image n: x at
// its first input block (the stem: channel), w at block ob's weights (in W,
// or in its paired copy, at the same offset), bias
// at channel ob * 8 (or null), residual and y at block ob (residual null
// when absent).
struct ConvNchwcWork {
  const float* x = nullptr;
  const float* w = nullptr;
  const float* bias = nullptr;
  const float* residual = nullptr;
  float* y = nullptr;
  int blocks = 2;
  int64_t begin = 0, end = 0;
};

// Computes one piece of work, with `act` applied in registers unless it is
// Sigmoid, Tanh or Swish (left to the caller).
using ConvNchwcFn = void (*)(const ConvNchwcGeometry& g, const Activation& act, const ConvNchwcWork& work);

struct ConvNchwcIsa {
  const char* name;
  ConvNchwcFn pointwise;
  ConvNchwcFn general;
  ConvNchwcFn stem;  // loom.ConvNchwcStem
  int blocks_per_task;  // output blocks a piece of work takes at most (2 or 4)
  int general_blocks_per_task;  // the same for the general tiles (2 or 8)
  bool paired_weights;  // the tiles read W as PairWeights orders it
};

// W (either layout) with each pair of output blocks (2p, 2p + 1) interleaved:
// where W has block 2p's run of 8 output channels for one input channel and
// tap, then, block_floats later, block 2p + 1's, the copy has the two runs
// side by side (16 floats), pair after pair; an odd last block stays as in
// W. block_floats: W's floats per output block. Same size as W.
void PairWeights(const float* w, int64_t out_blocks, int64_t block_floats, float* out);

// The table of a path (null when this CPU or build lacks it).
const ConvNchwcIsa* ConvNchwcIsaFor(NchwcIsa isa);
const ConvNchwcIsa* ConvNchwcIsaGeneric();
#if defined(__x86_64__)
const ConvNchwcIsa* ConvNchwcIsaAvx2();
const ConvNchwcIsa* ConvNchwcIsaAvx512();
#endif

}  // namespace nn
}  // namespace loom
