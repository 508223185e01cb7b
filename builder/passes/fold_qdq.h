// Folds QuantizeLinear / DequantizeLinear pairs (QDQ) into int8 nodes, for
// pre-quantized models (ONNX Runtime's quantizer, torch's export) and for
// `loom build --int8`, which writes its quantization as QDQ and lets this
// pass turn it into int8 nodes. A node folds when
//   - each float data input comes from a DequantizeLinear of an int8 tensor
//     with per-tensor parameters (the value an upstream QuantizeLinear or
//     folded node produced, or an int8 constant);
//   - Conv / Gemm / MatMul weights come from a DequantizeLinear of a constant
//     int8 tensor, symmetric (zero points 0; uint8 with every zero point 128
//     is taken as int8), per tensor or per output channel; the bias (float,
//     or int32 through a DequantizeLinear) becomes int32 with the input zero
//     point folded in (builder/quantize/quant_scheme.h); a MatMul gains the
//     bias as a third input (kernels/cpu/int8/README.md);
//   - its one output goes only to a QuantizeLinear (optionally through one
//     Relu or Clip, which folds too, onto the same parameters), and
//   - a kernel takes the int8 node: one of the int8 group ("*.int8"), or,
//     for ops that only move values (Reshape, Transpose, ...), any kernel
//     when input and output parameters are equal.
// The folded node reads the int8 tensors and writes the QuantizeLinear's
// output; DequantizeLinear nodes left without consumers are dropped by
// eliminate_dead_nodes. uint8 activations (QuantizeLinear to uint8 read only
// by DequantizeLinear nodes of the same parameters) become int8 with the zero
// point moved by -128, which changes no real value. What does not fold keeps
// running in float between its QuantizeLinear and DequantizeLinear nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "builder/passes/pass.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace passes {

// One folded node: its name, the float tensor it used to produce and the
// int8 value it produces now.
struct FoldedNode {
  std::string node;
  std::string float_output;
  int int8_output = -1;
};

// Folds what it can; `folded` (optional) lists what folded, in order.
Status FoldQdq(ir::Graph* graph, const KernelRegistry& registry, std::vector<FoldedNode>* folded);

std::unique_ptr<Pass> MakeFoldQdq();

}  // namespace passes
}  // namespace loom
