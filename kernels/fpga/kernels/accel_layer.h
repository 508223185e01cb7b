// A plan node as the accelerator runs it: the one place that decides whether
// the accelerator can take a node, and that turns the node's attributes,
// constants and quantization into a lowering layer (lowering/layer.h). The
// FPGA kernels' Prepare, the builder's lowering and the placer's cost model
// all call it, so what is placed on the FPGA is what gets lowered and what
// runs.
//
// The node comes as its kernel sees it (KernelSetup), with the int8 tensor
// contract of kernels/cpu/int8/README.md; the layer computes exactly what
// the CPU int8 kernel of the node computes (the same requantize.h stages):
//
//   Conv     2-D, group 1, batch 1, int8 X/Y per tensor, constant symmetric
//            int8 W (one scale or one per output channel), constant int32
//            bias (the CPU reads it at run time; the accelerator bakes it
//            into its parameter image), fused Relu/Clip (loom.activation) as
//            the output clamp; within the accelerator's window limits
//            (layer.h)
//   Gemm     A [M, K] int8 (transA 0, alpha 1, beta 1), constant B (either
//            transB), constant int32 bias C [N] or [1, N]: a 1 x M image of
//            K channels
//   MatMul   A [M, K] or [1, M, K] int8 with constant 2-D B [K, N] and
//            Loom's int32 bias input, constant
//   Add      two non-constant int8 tensors of the same shape (one HwcOf
//            maps: 4-D or 3-D with batch 1, or 2-D), no broadcasting, fused
//            Relu/Clip
//   MaxPool  2-D, batch 1, int8, one output (no Indices; storage_order,
//            which only orders Indices, is ignored), ceil_mode 0, output
//            quantization equal to the input's
//
// The int8 contract is checked by the CPU kernels' own helpers
// (kernels/cpu/int8/tensor_quant.h, linear_output.h), so the accelerator
// takes a subset of what the CPU int8 kernels take; then come the
// accelerator's limits: layer.h's Validate*, the tiling (one output pixel's
// input tile, one kernel row of weights must fit the buffers) and every
// tensor and constant image below 4 GiB (32-bit command offsets).
//
// Activation tensors map to h x w x c as the accelerator stores them
// (NHWC, channels padded to N): a 4-D [1, C, H, W] tensor is H x W x C; a
// 2-D [M, K] (or [1, M, K]) one is 1 x M x K.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/fpga/lowering/layer.h"
#include "kernels/fpga/lowering/lowering.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

// An activation tensor's accelerator shape.
struct Hwc {
  uint32_t h = 1, w = 1, c = 1;
};

struct AccelLayer {
  enum class Kind { kConv, kAdd, kMaxPool };
  Kind kind = Kind::kConv;
  lowering::ConvLayer conv;        // kConv (Conv, Gemm, MatMul)
  lowering::AddLayer add;          // kAdd
  lowering::MaxPoolLayer maxpool;  // kMaxPool
  std::vector<Hwc> inputs;         // the activation inputs: 1, or 2 for Add
  Hwc output;
  // Node inputs that are activations, in order (Conv/Gemm/MatMul: {0};
  // Add: {0, 1}; MaxPool: {0}).
  std::vector<int> activation_inputs;

  uint64_t Macs() const;  // Conv: the layer's MACs; 0 otherwise
};

// The activation shape of `shape` (see above); InvalidArgument for another
// rank, Unsupported for a batch other than 1, an empty dim or one past 32 bits.
Status HwcOf(const Shape& shape, Hwc* out);

// Bytes of an h x w x c int8 tensor in the accelerator's layout (channels
// padded to config.n): what a NHWC_PADDED plan tensor of that shape holds.
uint64_t PaddedBytes(const contract::AccelConfig& config, const Hwc& hwc);

// The layer of the node `setup` describes (setup.op is "Conv", "Gemm",
// "MatMul", "Add" or "MaxPool"; setup.device() may be any configuration:
// `config` is what the layer is checked against). Unsupported with a short
// reason, without the node's label or an "unsupported" prefix (the placer
// shows "fpga16 cannot run it: <reason>"): "depthwise conv (group 32)",
// "uint8 activations", "kernel 17x17, the accelerator supports at most
// 15x15"; InvalidArgument for a node that breaks the ONNX spec or the tensor
// contract's shapes. The layer's name is its op in lower case ("conv",
// "gemm", "matmul", "add", "maxpool"); callers may set the node's name for
// the lowering's messages.
Status AccelLayerFromSetup(const KernelSetup& setup, const contract::AccelConfig& config, AccelLayer* out);

// Lowers `layer` with its activation inputs at `inputs` (index-aligned with
// layer.inputs), its output at `output` and, for a Conv, its constant
// images at `constants` (ignored otherwise).
Status LowerAccelLayer(const contract::AccelConfig& config, const AccelLayer& layer,
                       const std::vector<lowering::DramTensor>& inputs, lowering::DramTensor output,
                       const lowering::ConstantPlacement& constants, lowering::Program* out);

}  // namespace fpga
}  // namespace loom
