// The quantization side of the int8 Conv, Gemm and MatMul: the checks of the
// tensor contract (README.md) their Prepare runs after the activation check
// of tensor_quant.h, and the output stage of each output channel, built with
// requantize.h's MakeOutputStage.
//
// Everything outside the contract is Unsupported, naming what is wrong, so
// the builder falls back to another kernel (or leaves a fused activation
// unfused): non-constant or asymmetric weights, weight scales that are
// neither one nor one per output channel, a missing or non-int32 bias,
// per-channel Y, and fused activations other than Relu and Clip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/tensor_quant.h"

namespace loom {
namespace int8 {

// Where the weights and bias of a linear op are, and how many output
// channels it has.
struct LinearSpec {
  size_t weight_input = 1;
  int weight_axis = 0;  // the axis of W indexing output channels
  size_t bias_input = 2;
  int64_t channels = 0;          // M (Conv) or N (Gemm, MatMul)
  bool bias_may_be_row = false;  // bias [1, channels] accepted too (Gemm's C)
};

// Checks W (constant int8, symmetric, 1 or `channels` scales along
// weight_axis), the bias (present, int32, [channels]), output 0 (int8, per
// tensor) and the fused activation, then builds one output stage per output
// channel for an input quantized as `x`.
Status MakeLinearOutputStages(const KernelSetup& s, const LinearSpec& spec, const ActQuant& x,
                              std::vector<requant::OutputStage>* stages);

}  // namespace int8
}  // namespace loom
