// Makes every graph output a tensor that a node writes: an output that ended
// up constant (folded) is produced by an Identity copy of a new constant, so
// the output keeps its name and lives in the arena like any other output. A
// graph input that is also a graph output gets a copy node too (the plan
// keeps inputs and outputs apart).
// Always runs after the passes (it is needed for correctness, not speed).
#pragma once

#include "builder/ir/graph.h"

namespace loom {
namespace passes {

// Returns the number of copy nodes added.
// `opset` is the model's default-domain opset, given to the copy nodes.
int MaterializeConstantOutputs(ir::Graph* graph, int opset);

}  // namespace passes
}  // namespace loom
