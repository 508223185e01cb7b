// The default-domain opset of a model: Loom's kernels follow opsets 7-17.
// Older models are upgraded with ONNX's version converter; newer ones are
// refused naming the opset.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

constexpr int kMinOpset = 7;
constexpr int kMaxOpset = 17;

// The model's opset for the default domain ("" or "ai.onnx"); 0 if absent.
int DefaultOpset(const onnx::ModelProto& model);

// Leaves models with opset 7-17 alone; upgrades older ones in place (trying
// target 7, then higher targets if an adapter chain fails) and adds a note;
// refuses newer ones. Call after the input shapes are fixed: the converter
// needs input ranks.
Status NormalizeOpset(onnx::ModelProto* model, std::vector<std::string>* notes);

}  // namespace onnx_import
}  // namespace loom
