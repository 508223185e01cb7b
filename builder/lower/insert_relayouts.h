// Layouts at the CPU<->accelerator seam, after kernel selection. FPGA nodes
// read and write activations in the accelerator's padded NHWC layout
// (kernels/cpu/layout/padded_layout.h); CPU nodes and the caller see
// row-major tensors. For every activation an FPGA node touches, this gives
// the FPGA side its own value in the padded layout and, where the other side
// is the CPU (a CPU node, a graph input or output), inserts a CPU Relayout
// node between the two:
//   CPU producer / graph input -> Relayout -> padded value -> FPGA consumers
//   FPGA producer -> padded value -> FPGA consumers, and
//                                 -> Relayout -> row-major value -> CPU consumers / graph output
// A Relayout to the accelerator goes right after its producer, one from it
// right before the first CPU consumer, so runs of FPGA nodes stay together
// (they become one launch). The row-major value keeps its id and name, so
// graph inputs and outputs do not change.
//
// FPGA nodes also get loom.pad_channels (N) and their CPU fallback kernel
// ("cpu.<Op>.padded").
#pragma once

#include "builder/ir/graph.h"
#include "builder/place/target.h"
#include "common/status.h"

namespace loom {
namespace lower {

// No-op for a graph without FPGA nodes, and for a target whose FPGA is not
// Loom's accelerator (its kernels take the tensors as they are). *relayouts
// (optional) gets the number of Relayout nodes inserted. The plan's list of
// boundaries and their costs comes from place::ListBoundaries, on the graph
// this leaves.
Status InsertRelayouts(ir::Graph* graph, const place::Target& target, int* relayouts = nullptr);

}  // namespace lower
}  // namespace loom
