// Converts a checked, shape-inferred ONNX model into Loom's graph IR.
// Initializers and Constant nodes become constant values; initializers that
// are also listed as graph inputs (old IR versions) stay constants (noted).
// Value types come from graph inputs/outputs and value_info; a value whose
// shape inference left a dim unknown is imported with shape_known = false.
#pragma once

#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

Status ImportModel(const onnx::ModelProto& model, ir::Graph* graph, std::vector<std::string>* notes);

}  // namespace onnx_import
}  // namespace loom
