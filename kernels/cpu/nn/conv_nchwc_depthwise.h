// Depthwise convolution on the channel-blocked layout NCHW8c: the CPU kernel
// of loom.DepthwiseConvNchwc (ONNX Conv with group = C, one input channel per
// output channel), inputs
//   X  float32 [N, C/8, H, W, 8]
//   W  float32 [C/8, KH, KW, 8]     W[cb, i, j, c] = W_onnx[cb*8 + c, 0, i, j]
//   B  optional float32 [C]
//   R  optional residual [N, C/8, OH, OW, 8] with loom.residual = 1
// and output Y [N, C/8, OH, OW, 8] = act(conv(X, W) + B + R), with Conv's
// attributes (kernel_shape, strides, pads, dilations, auto_pad, group = C)
// and fused activation (activation_epilogue.h).
//
// Each 8-channel block is one vector and every tap one vector multiply-add,
// so rows are read and written sequentially and no padded copy is needed:
// per (image, block) plane and output row the kernel rows outside the input
// are skipped and the columns run register tiles of several pixels with the
// taps unrolled (kernel widths 3, 5, 7; column stride 1 or 2), reading a zero
// pixel for columns outside the input (conv_nchwc_depthwise_kernel.h).
// Bias, residual, Relu and Clip are applied in registers; the other fused
// activations by ApplyActivation on the stored row.
// Threads split (image, block, row range).
//
// The row kernels exist per instruction set: generic (pairs of 4-float GCC
// vectors: SSE2, NEON or scalar code) and AVX2+FMA (in
// conv_nchwc_depthwise_avx2.cc), which runs when the fp32 GEMM's path
// (ActiveGemmF32Isa(), forced with LOOM_CPU_ISA) is avx2 or avx512.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/parallel.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/nchwc_vector.h"

namespace loom {
namespace nn {

// One depthwise problem, validated by the kernel's Prepare.
struct DepthwiseNchwcGeometry {
  int64_t batch = 0, blocks = 0;  // N, C / 8
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Output columns [interior_begin, interior_end) read no column outside the
  // input (FinishDepthwiseNchwcGeometry).
  int64_t interior_begin = 0, interior_end = 0;
};

// Fills the interior columns of g from the other fields.
void FinishDepthwiseNchwcGeometry(DepthwiseNchwcGeometry* g);

// One (image, block) plane: x H x W x 8, w KH x KW x 8, bias 8 floats or
// null, residual null or laid out as y (OH x OW x 8, not overlapping it).
struct DepthwiseNchwcPlane {
  const float* x = nullptr;
  const float* w = nullptr;
  const float* bias = nullptr;
  const float* residual = nullptr;
  float* y = nullptr;
};

// Computes output rows [oh0, oh1) of one plane.
using DepthwiseNchwcRowsFn = void (*)(const DepthwiseNchwcGeometry& g, const DepthwiseNchwcPlane& p,
                                      const Activation& act, int64_t oh0, int64_t oh1);

struct DepthwiseNchwcIsa {
  const char* name;  // "generic", "avx2" or "avx512"
  DepthwiseNchwcRowsFn rows;
};

// avx512 when the GEMM's path is avx512 (and the CPU has AVX-512 F and VL),
// avx2 when it is avx2 or avx512 (and the CPU has AVX2 and FMA), else
// generic.
const DepthwiseNchwcIsa& ActiveDepthwiseNchwcIsa();
// Every path this CPU runs, generic first (tests run each).
std::vector<const DepthwiseNchwcIsa*> SupportedDepthwiseNchwcIsas();

class DepthwiseConvNchwc {
 public:
  DepthwiseConvNchwc() = default;
  DepthwiseConvNchwc(const DepthwiseNchwcGeometry& g, const Activation& act,
                     const DepthwiseNchwcIsa& isa = ActiveDepthwiseNchwcIsa());

  // The whole operator on blocked tensors (see the top of the file); bias and
  // residual may be null. Tiny problems stay on the calling thread.
  void Run(const float* x, const float* w, const float* bias, const float* residual, float* y, ThreadPool* pool) const;

 private:
  DepthwiseNchwcGeometry g_;
  Activation act_;
  const DepthwiseNchwcIsa* isa_ = nullptr;
};

// The per-path tables (null when the CPU lacks the path).
const DepthwiseNchwcIsa* DepthwiseNchwcIsaGeneric();
#if defined(__x86_64__)
const DepthwiseNchwcIsa* DepthwiseNchwcIsaAvx2();
const DepthwiseNchwcIsa* DepthwiseNchwcIsaAvx512();
#endif

}  // namespace nn
}  // namespace loom
