#include "builder/onnx/frontend.h"

#include <filesystem>

#include "builder/onnx/importer.h"
#include "builder/onnx/input_shapes.h"
#include "builder/onnx/model_checks.h"
#include "builder/onnx/model_file.h"
#include "builder/onnx/opset.h"
#include "builder/onnx/shape_inference.h"
#include "common/checksum.h"

namespace loom {
namespace onnx_import {

namespace {

Status Process(onnx::ModelProto* model, const std::string& model_dir,
               const std::map<std::string, Shape>& input_shapes, const KernelRegistry& registry, ir::Graph* graph,
               ModelInfo* info, std::vector<std::string>* notes) {
  info->opset = DefaultOpset(*model);
  info->source_nodes = model->graph().node_size();
  info->producer = model->producer_name();
  if (!model->producer_version().empty())
    info->producer += (info->producer.empty() ? "" : " ") + model->producer_version();

  RETURN_IF_ERROR(InlineExternalData(model_dir, model));
  RETURN_IF_ERROR(SortNodesTopologically(model->mutable_graph()));
  RETURN_IF_ERROR(CheckDomains(*model, registry));
  if (info->opset > kMaxOpset) return NormalizeOpset(model, notes);  // refuses, naming the opset
  RETURN_IF_ERROR(RunOnnxChecker(*model));
  RETURN_IF_ERROR(CheckDivisorAttributes(*model));
  RETURN_IF_ERROR(ApplyInputShapes(input_shapes, model, notes));
  RETURN_IF_ERROR(NormalizeOpset(model, notes));
  info->effective_opset = DefaultOpset(*model);
  RETURN_IF_ERROR(InferOnnxShapes(model, notes));
  return ImportModel(*model, graph, notes);
}

}  // namespace

Status LoadOnnxModel(const std::string& path, const std::map<std::string, Shape>& input_shapes,
                     const KernelRegistry& registry, ir::Graph* graph, ModelInfo* info,
                     std::vector<std::string>* notes) {
  onnx::ModelProto model;
  RETURN_IF_ERROR(ReadModelFile(path, &model, &info->file_hash));
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return Process(&model, dir.empty() ? "." : dir, input_shapes, registry, graph, info, notes);
}

Status LoadOnnxModelFromBytes(const void* data, size_t size, const std::string& model_dir,
                              const std::map<std::string, Shape>& input_shapes, const KernelRegistry& registry,
                              ir::Graph* graph, ModelInfo* info, std::vector<std::string>* notes) {
  onnx::ModelProto model;
  RETURN_IF_ERROR(ParseModelBytes(data, size, "<memory>", &model));
  info->file_hash = Checksum64(data, size);
  return Process(&model, model_dir, input_shapes, registry, graph, info, notes);
}

}  // namespace onnx_import
}  // namespace loom
