// The ONNX front end: file -> checked, upgraded, shape-inferred model ->
// Loom graph IR. Steps, in order:
//   read + parse, inline external data, sort nodes (cycle check),
//   non-default domains, refusal of opsets > 17, ONNX checker, static input
//   shapes, opset upgrade (< 7), ONNX shape inference, import.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace onnx_import {

struct ModelInfo {
  uint64_t file_hash = 0;      // Checksum64 of the file bytes
  int opset = 0;               // default-domain opset as read
  int effective_opset = 0;     // the same after an upgrade (what nodes follow)
  int source_nodes = 0;        // nodes in the ONNX graph
  std::string producer;        // "pytorch 1.13.1"
};

Status LoadOnnxModel(const std::string& path, const std::map<std::string, Shape>& input_shapes,
                     const KernelRegistry& registry, ir::Graph* graph, ModelInfo* info,
                     std::vector<std::string>* notes);

// Same, from bytes in memory; external data is resolved against `model_dir`.
Status LoadOnnxModelFromBytes(const void* data, size_t size, const std::string& model_dir,
                              const std::map<std::string, Shape>& input_shapes, const KernelRegistry& registry,
                              ir::Graph* graph, ModelInfo* info, std::vector<std::string>* notes);

}  // namespace onnx_import
}  // namespace loom
