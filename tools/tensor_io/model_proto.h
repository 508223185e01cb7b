// The parts of an onnx.ModelProto that a single-node test case needs (ONNX's
// backend test data: model.onnx), decoded without libprotobuf: the opset
// imports, the graph's nodes with their attributes, the graph inputs and
// outputs with their element types, and the initializers. The builder reads
// models through libonnx; this reader is for tests and tools that must build
// without it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/attributes.h"
#include "common/status.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {

struct OnnxNode {
  std::string op_type;
  std::string domain;  // as written: "" or "ai.onnx" for the default domain
  std::vector<std::string> inputs, outputs;  // "" marks an absent optional one
  Attributes attrs;
  // Attributes of kinds Attributes cannot hold (graphs, sparse tensors, type
  // protos, string tensors), by name; they are not in `attrs`.
  std::vector<std::string> unreadable_attrs;
};

// A graph input or output. elem_type is 0 for values that are not tensors
// (sequences, maps, optionals).
struct OnnxValueInfo {
  std::string name;
  int32_t elem_type = 0;
};

struct OnnxModel {
  std::map<std::string, int64_t> opsets;  // domain ("" for ai.onnx) -> version
  std::vector<OnnxNode> nodes;
  std::vector<OnnxValueInfo> inputs;  // may include initializers (IR < 4)
  std::vector<OnnxValueInfo> outputs;
  std::vector<HostTensor> initializers;  // HostTensor::name is the value name
};

Status ParseModelProto(const uint8_t* data, size_t size, OnnxModel* out);
Status ReadModelProto(const std::string& path, OnnxModel* out);

}  // namespace loom
