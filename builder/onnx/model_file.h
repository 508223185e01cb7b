// Reading an ONNX file from disk: the bytes, their hash, the protobuf parse
// and the tensors stored as external data next to the model.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "onnx/onnx_pb.h"

namespace loom {
namespace onnx_import {

// Reads and parses `path` into `model`, with clear errors for a missing or
// empty file, bytes that are not a protobuf ModelProto, and a model without a
// graph. `hash` receives Checksum64 of the file bytes.
Status ReadModelFile(const std::string& path, onnx::ModelProto* model, uint64_t* hash);

// Parses model bytes already in memory (`what` names them in messages).
Status ParseModelBytes(const void* data, size_t size, const std::string& what, onnx::ModelProto* model);

// Replaces every tensor stored as external data (initializers and Constant
// node attributes) by its bytes, read from files relative to `model_dir`.
// Locations must stay inside the folder: absolute paths, paths escaping it
// (also through links), missing files and out-of-range offset/length are
// refused.
Status InlineExternalData(const std::string& model_dir, onnx::ModelProto* model);

}  // namespace onnx_import
}  // namespace loom
