#include "builder/onnx/opset.h"

#include <exception>
#include <map>

#include "builder/onnx/model_checks.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

namespace loom {
namespace onnx_import {

int DefaultOpset(const onnx::ModelProto& model) {
  int opset = 0;
  for (const onnx::OperatorSetIdProto& id : model.opset_import())
    if (IsDefaultDomain(id.domain()) && id.version() > opset) opset = static_cast<int>(id.version());
  return opset;
}

namespace {

// Before opset 7, PRelu applied a 1-D slope of C values per channel (axis 1);
// from opset 7 it broadcasts numpy-style (against the last axis). ONNX's
// converter has no adapter for this, so slopes are reshaped to [C, 1, ..., 1].
void FixLegacyPReluSlopes(onnx::ModelProto* model) {
  onnx::GraphProto* g = model->mutable_graph();
  std::map<std::string, const onnx::TensorShapeProto*> shapes;
  auto add = [&](const onnx::ValueInfoProto& vi) {
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      shapes[vi.name()] = &vi.type().tensor_type().shape();
  };
  for (const auto& vi : g->input()) add(vi);
  for (const auto& vi : g->value_info()) add(vi);
  for (const auto& vi : g->output()) add(vi);
  for (onnx::NodeProto& n : *g->mutable_node()) {
    if (n.op_type() != "PRelu" || !IsDefaultDomain(n.domain()) || n.input_size() != 2) continue;
    auto x = shapes.find(n.input(0));
    if (x == shapes.end() || x->second->dim_size() < 3) continue;
    const onnx::TensorShapeProto& xs = *x->second;
    for (int i = 0; i < g->initializer_size(); ++i) {
      const onnx::TensorProto& slope = g->initializer(i);
      if (slope.name() != n.input(1) || slope.dims_size() != 1 || slope.dims(0) <= 1) continue;
      if (!xs.dim(1).has_dim_value() || xs.dim(1).dim_value() != slope.dims(0)) break;
      onnx::TensorProto reshaped = slope;
      reshaped.set_name(slope.name() + "_per_channel");
      for (int d = 2; d < xs.dim_size(); ++d) reshaped.add_dims(1);
      n.set_input(1, reshaped.name());
      *g->add_initializer() = std::move(reshaped);
      break;
    }
  }
}

}  // namespace

Status NormalizeOpset(onnx::ModelProto* model, std::vector<std::string>* notes) {
  const int opset = DefaultOpset(*model);
  if (opset > kMaxOpset)
    return Status::Unsupported("unsupported opset " + std::to_string(opset) +
                               " of the default ONNX domain (Loom supports " + std::to_string(kMinOpset) + "-" +
                               std::to_string(kMaxOpset) + ")");
  if (opset >= kMinOpset) return Status::Ok();
  if (opset == 0) {
    for (const onnx::NodeProto& n : model->graph().node())
      if (IsDefaultDomain(n.domain()))
        return Status::InvalidArgument("model has nodes in the default ONNX domain but no opset_import for it");
    return Status::Ok();
  }
  // The converter's broadcast adapters need the rank of every input: infer
  // what the old opset allows first (best effort).
  try {
    onnx::shape_inference::InferShapes(*model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, false));
  } catch (...) {
  }
  std::string last_error;
  for (int target = kMinOpset; target <= kMaxOpset; ++target) {
    try {
      onnx::ModelProto converted = onnx::version_conversion::ConvertVersion(*model, target);
      if (DefaultOpset(converted) != target) {
        last_error = "converter produced opset " + std::to_string(DefaultOpset(converted));
        continue;
      }
      *model = std::move(converted);
      FixLegacyPReluSlopes(model);
      notes->push_back("model upgraded from opset " + std::to_string(opset) + " to opset " +
                       std::to_string(target));
      return Status::Ok();
    } catch (const std::exception& e) {
      last_error = OneLine(e.what());
    } catch (...) {
      last_error = "unknown error";
    }
  }
  return Status::Unsupported("unsupported opset " + std::to_string(opset) + ": the ONNX version converter could not " +
                             "upgrade the model to an opset in " + std::to_string(kMinOpset) + "-" +
                             std::to_string(kMaxOpset) + " (" + last_error + ")");
}

}  // namespace onnx_import
}  // namespace loom
