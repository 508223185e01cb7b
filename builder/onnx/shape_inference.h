// ONNX shape inference over the main graph, with Loom's static input shapes
// already applied. Strict mode (node errors throw) runs first; if it throws,
// a lenient pass (node errors skipped, then also type checks) keeps whatever
// it could infer, and a note records why, so
// Loom's own shape completion (kernel InferOutputShapes) can finish the job.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

Status InferOnnxShapes(onnx::ModelProto* model, std::vector<std::string>* notes);

}  // namespace onnx_import
}  // namespace loom
