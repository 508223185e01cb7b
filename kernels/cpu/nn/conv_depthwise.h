// Fast fp32 depthwise convolution (one input channel per group, NCHW) for
// square 3x3 and 5x5 kernels, stride 1 or 2 (the same on both axes: each
// window and stride is a row kernel of every path, and mixed strides are rare
// enough not to be worth their compile time), dilation 1: the hot path of
// MobileNet-style networks. Conv (conv.cc) uses it when Supports()
// and keeps its generic depthwise loop for every other case.
//
// Per output plane and range of output rows, the input rows the window
// needs are copied into a small ring of zero-padded row buffers (per-thread
// scratch, no padded copy of the plane); for a column stride of 2 each row is
// de-interleaved once into its even and odd columns, so every tap is a
// contiguous vector load. Bias, a residual (Conv + Add) and the fused
// activation are applied while the output vectors are in registers. Narrow rows are computed several
// output rows at a time to keep enough independent accumulators.
//
// The row kernels exist per instruction set (generic GCC vectors, AVX2+FMA,
// AVX-512F) and follow the fp32 GEMM's choice (ActiveGemmF32Isa(), forced
// with LOOM_CPU_ISA); on ARM the generic path is NEON code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/nn/activation_epilogue.h"

namespace loom {
namespace nn {

// Geometry of one depthwise problem (already validated by Conv).
struct DepthwiseF32Geometry {
  int64_t batch = 0;
  int64_t channels = 0;    // output channels M (= input channels * multiplier)
  int64_t multiplier = 1;  // output channels per input channel
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int kernel = 3;                  // 3 or 5 (square)
  int stride_h = 1, stride_w = 1;  // 1 or 2
  int64_t pad_top = 0, pad_left = 0;
};

// Derived per-path sizes (floats), filled by the driver.
struct DepthwiseF32Layout {
  int lanes = 4;
  int ring = 0;               // row slots in the ring
  int64_t slot = 0;           // floats per slot (multiple of lanes)
  int64_t half = 0;           // stride 2: floats of the even (and of the odd) half of a slot
  int64_t thread_floats = 0;  // ring + zero row + staging row, rounded to 64 bytes
};

// Computes output rows [oh0, oh1) of one plane. `x` is the input plane, `w`
// its K*K weights, `residual` null or a plane laid out as y, added before the
// activation, `y` the output plane; `scratch` is the thread's buffer, all
// zeros (except ring data) since the thread's last fresh start.
using DepthwiseF32RowsFn = void (*)(const DepthwiseF32Geometry& g, const DepthwiseF32Layout& l, const Activation& act,
                                    const float* x, const float* w, float bias, const float* residual, float* y,
                                    int64_t oh0, int64_t oh1, float* scratch);

struct DepthwiseF32Isa {
  const char* name;  // matches the GEMM path name
  int lanes;
  DepthwiseF32RowsFn rows;
};

// The path matching ActiveGemmF32Isa(), and every path this CPU runs.
const DepthwiseF32Isa& ActiveDepthwiseF32Isa();
// The path for output rows of `out_w` floats: the active one, except that
// rows of at most 8 floats run on 8-float vectors when the active path has
// 16 (half of every 16-float vector would be wasted).
const DepthwiseF32Isa& DepthwiseF32IsaForWidth(int64_t out_w);
std::vector<const DepthwiseF32Isa*> SupportedDepthwiseF32Isas();

class DepthwiseConvF32 {
 public:
  static bool Supports(int64_t kernel_h, int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                       int64_t dilation_w);

  DepthwiseConvF32() = default;
  DepthwiseConvF32(const DepthwiseF32Geometry& g, const Activation& act,
                   const DepthwiseF32Isa& isa = ActiveDepthwiseF32Isa());

  size_t ScratchBytes(int num_threads) const;
  // y[n, oc] = act(conv(x[n, oc / multiplier], w[oc]) + bias[oc] + residual[n, oc])
  // for x of N x C x H x W, w of M x 1 x K x K, bias of M floats or null,
  // residual null or laid out as y (not overlapping it).
  void Run(const float* x, const float* w, const float* bias, float* y, void* scratch, ThreadPool* pool,
           const float* residual = nullptr) const;

 private:
  DepthwiseF32Geometry g_;
  DepthwiseF32Layout l_;
  Activation act_;
  const DepthwiseF32Isa* isa_ = nullptr;
};

// The per-path tables (null when the CPU lacks the path).
const DepthwiseF32Isa* DepthwiseF32IsaGeneric();
#if defined(__x86_64__)
const DepthwiseF32Isa* DepthwiseF32IsaAvx2();
const DepthwiseF32Isa* DepthwiseF32IsaAvx512();
#endif

}  // namespace nn
}  // namespace loom
