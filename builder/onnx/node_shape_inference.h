// ONNX's own shape inference for one IR node, given Loom's now-static input
// shapes and constant inputs (folded during shape completion). Used when ONNX
// inference over the whole model stopped early (e.g. at a Reshape whose shape
// came from a Shape -> Gather -> Concat chain) and the node's kernel cannot
// infer its output shapes itself (it has no InferOutputShapes).
#pragma once

#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"

namespace loom {
namespace onnx_import {

// Fills one static shape per node output; fails if the op has no ONNX schema
// or inference function, throws, or leaves any dim unknown.
Status InferNodeShapesWithOnnx(const ir::Graph& graph, const ir::Node& node, std::vector<Shape>* shapes);

}  // namespace onnx_import
}  // namespace loom
