// The graph as Graphviz DOT text, for `loom build --dump-graph DIR`: one box
// per node (op, fused ops, name, device when placed), an ellipse per graph
// input and output, and an edge per activation labelled with its dtype and
// shape. Constants are not drawn; a node lists how many it reads.
#pragma once

#include <string>

#include "builder/ir/graph.h"

namespace loom {
namespace ir {

std::string GraphToDot(const Graph& graph, const std::string& title);

}  // namespace ir
}  // namespace loom
