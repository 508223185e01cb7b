#include "builder/onnx/input_shapes.h"

#include <unordered_set>

namespace loom {
namespace onnx_import {

namespace {

std::string DimName(const onnx::TensorShapeProto::Dimension& d) {
  return d.has_dim_param() && !d.dim_param().empty() ? d.dim_param() : std::string();
}

bool IsConcrete(const onnx::TensorShapeProto::Dimension& d) { return d.has_dim_value() && d.dim_value() >= 0; }

// "x=1x3x<height>x<width>": a --shape argument with the known dims filled in.
std::string ShapeHint(const std::string& input, const onnx::TensorShapeProto& shape) {
  std::string s = input + "=";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i) s += 'x';
    const auto& d = shape.dim(i);
    if (IsConcrete(d)) {
      s += std::to_string(d.dim_value());
    } else if (i == 0) {
      s += '1';
    } else {
      s += "<" + (DimName(d).empty() ? std::string("?") : DimName(d)) + ">";
    }
  }
  return s;
}

Status OverrideShape(const std::string& name, const Shape& dims, onnx::TypeProto_Tensor* tensor, bool* changed) {
  for (int64_t d : dims)
    if (d < 0)
      return Status::InvalidArgument("--shape " + name + "=" + ShapeToString(dims) + ": dims must be >= 0");
  if (tensor->has_shape() && tensor->shape().dim_size() != static_cast<int>(dims.size()))
    return Status::InvalidArgument("--shape " + name + "=" + ShapeToString(dims) + " has rank " +
                                   std::to_string(dims.size()) + ", but input '" + name + "' has rank " +
                                   std::to_string(tensor->shape().dim_size()));
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  if (shape->dim_size() == 0)
    for (size_t i = 0; i < dims.size(); ++i) shape->add_dim();
  for (int i = 0; i < shape->dim_size(); ++i) {
    onnx::TensorShapeProto::Dimension* d = shape->mutable_dim(i);
    if (IsConcrete(*d) && d->dim_value() != dims[static_cast<size_t>(i)]) *changed = true;
    d->set_dim_value(dims[static_cast<size_t>(i)]);
  }
  return Status::Ok();
}

Status ResolveSymbolicDims(const std::string& name, onnx::TypeProto_Tensor* tensor, std::vector<std::string>* notes) {
  if (!tensor->has_shape())
    return Status::InvalidArgument("input '" + name + "' has no shape; give it with --shape " + name +
                                   "=<dims, e.g. 1x3x224x224>");
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (int i = 0; i < shape->dim_size(); ++i) {
    onnx::TensorShapeProto::Dimension* d = shape->mutable_dim(i);
    if (IsConcrete(*d)) continue;
    const std::string param = DimName(*d);
    if (i == 0) {
      notes->push_back("input '" + name + "': dim 0 " + (param.empty() ? std::string("(unnamed)") : "'" + param + "'") +
                       " set to 1");
      d->set_dim_value(1);
      continue;
    }
    return Status::InvalidArgument("input '" + name + "' dim " + std::to_string(i) + " (" +
                                   (param.empty() ? std::string("unnamed") : "'" + param + "'") +
                                   ") is symbolic; fix it with --shape " + ShapeHint(name, *shape));
  }
  return Status::Ok();
}

}  // namespace

Status ApplyInputShapes(const std::map<std::string, Shape>& overrides, onnx::ModelProto* model,
                        std::vector<std::string>* notes) {
  onnx::GraphProto* graph = model->mutable_graph();
  std::unordered_set<std::string> initializers;
  for (const onnx::TensorProto& t : graph->initializer()) initializers.insert(t.name());

  std::string input_list;
  for (const onnx::ValueInfoProto& in : graph->input()) {
    if (initializers.count(in.name())) continue;
    input_list += (input_list.empty() ? "" : ", ") + in.name();
  }
  for (const auto& kv : overrides) {
    bool found = false;
    for (const onnx::ValueInfoProto& in : graph->input()) found = found || in.name() == kv.first;
    if (!found || initializers.count(kv.first))
      return Status::InvalidArgument("--shape names unknown input '" + kv.first + "' (model inputs: " +
                                     (input_list.empty() ? std::string("none") : input_list) + ")");
  }

  bool changed = false;
  for (onnx::ValueInfoProto& in : *graph->mutable_input()) {
    if (initializers.count(in.name())) continue;
    if (!in.type().has_tensor_type())
      return Status::Unsupported("input '" + in.name() + "' is not a tensor (sequence, map or optional), unsupported");
    onnx::TypeProto_Tensor* tensor = in.mutable_type()->mutable_tensor_type();
    auto it = overrides.find(in.name());
    if (it != overrides.end()) {
      RETURN_IF_ERROR(OverrideShape(in.name(), it->second, tensor, &changed));
    } else {
      RETURN_IF_ERROR(ResolveSymbolicDims(in.name(), tensor, notes));
    }
  }
  if (changed) {
    graph->clear_value_info();
    for (onnx::ValueInfoProto& out : *graph->mutable_output())
      if (out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace loom
