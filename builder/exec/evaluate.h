// Runs one node on the host with the real CPU kernel, for constant folding:
// every present input must be constant. Output shapes come from the graph or,
// when unknown, from the kernel's InferOutputShapes.
#pragma once

#include <cstddef>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace exec {

struct EvaluatedOutput {
  Shape shape;
  ir::ConstData data;  // null for an omitted output
};

// Fails (without running anything) if an input is not constant or an output
// would exceed `max_output_bytes`. Errors are bare: the caller adds the
// node's label.
Status EvaluateNode(const ir::Graph& graph, const ir::Node& node, const KernelRegistry& registry,
                    size_t max_output_bytes, std::vector<EvaluatedOutput>* outputs);

// False for ops whose result must not be computed at build time (random
// generators).
bool IsDeterministic(const ir::Node& node);

// Turns the node's outputs into constants holding `outputs` and marks the
// node dead (value ids stay the same, so no rewiring is needed).
void ReplaceWithConstants(ir::Graph* graph, int node_index, std::vector<EvaluatedOutput> outputs);

// Shape/Size only read their input's shape: computed here directly, so they
// fold even when the input is an activation. Returns false for other ops or
// when the input shape is unknown.
bool EvaluateShapeOp(const ir::Graph& graph, const ir::Node& node, std::vector<EvaluatedOutput>* outputs);

}  // namespace exec
}  // namespace loom
