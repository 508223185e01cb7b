#include "builder/onnx/node_shape_inference.h"

#include <exception>
#include <memory>
#include <string>
#include <unordered_map>

#include "builder/onnx/model_checks.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace loom {
namespace onnx_import {

namespace {

void SetTensor(DType dtype, const Shape& dims, const void* data, size_t bytes, onnx::TensorProto* t) {
  t->set_data_type(static_cast<int32_t>(dtype));
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(static_cast<const char*>(data), bytes));
}

void ToAttributeProto(const Attribute& a, onnx::AttributeProto* p) {
  p->set_name(a.name);
  switch (a.kind) {
    case Attribute::Kind::kInt:
      p->set_type(onnx::AttributeProto::INT);
      p->set_i(a.i);
      break;
    case Attribute::Kind::kFloat:
      p->set_type(onnx::AttributeProto::FLOAT);
      p->set_f(a.f);
      break;
    case Attribute::Kind::kString:
      p->set_type(onnx::AttributeProto::STRING);
      p->set_s(a.s);
      break;
    case Attribute::Kind::kInts:
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : a.ints) p->add_ints(v);
      break;
    case Attribute::Kind::kFloats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (float v : a.floats) p->add_floats(v);
      break;
    case Attribute::Kind::kStrings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const std::string& v : a.strings) p->add_strings(v);
      break;
    case Attribute::Kind::kTensor:
      p->set_type(onnx::AttributeProto::TENSOR);
      if (a.tensor)
        SetTensor(a.tensor->dtype, a.tensor->dims, a.tensor->data.data(), a.tensor->data.size(), p->mutable_t());
      break;
  }
}

}  // namespace

Status InferNodeShapesWithOnnx(const ir::Graph& graph, const ir::Node& node, std::vector<Shape>* shapes) {
  const std::string label = node.Label();
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op, node.opset, node.domain);
  if (!schema || !schema->has_type_and_shape_inference_function())
    return Status::Unsupported(label + ": no ONNX shape inference for this op");

  onnx::NodeProto proto;
  proto.set_op_type(node.op);
  proto.set_domain(node.domain);
  proto.set_name(node.name);
  for (const Attribute& a : node.attrs.all()) {
    if (a.name.rfind("loom.", 0) == 0) continue;
    ToAttributeProto(a, proto.add_attribute());
  }
  std::vector<std::unique_ptr<onnx::TypeProto>> types;
  std::vector<std::unique_ptr<onnx::TensorProto>> data;
  std::unordered_map<std::string, onnx::TypeProto*> types_by_name;
  std::unordered_map<std::string, const onnx::TensorProto*> data_by_name;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int id = node.inputs[i];
    if (id < 0) {
      proto.add_input("");
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    proto.add_input(name);
    const ir::Value& v = graph.value(id);
    if (!v.shape_known || v.dtype == DType::kUndefined)
      return Status::InvalidArgument(label + ": input '" + v.name + "' has no static shape");
    auto type = std::make_unique<onnx::TypeProto>();
    type->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(v.dtype));
    onnx::TensorShapeProto* shape = type->mutable_tensor_type()->mutable_shape();
    for (int64_t d : v.shape) shape->add_dim()->set_dim_value(d);
    types_by_name[name] = type.get();
    types.push_back(std::move(type));
    if (v.is_constant()) {
      auto t = std::make_unique<onnx::TensorProto>();
      t->set_name(name);
      SetTensor(v.dtype, v.shape, v.data->data(), v.data->size(), t.get());
      data_by_name[name] = t.get();
      data.push_back(std::move(t));
    }
  }
  for (size_t i = 0; i < node.outputs.size(); ++i)
    proto.add_output(node.outputs[i] < 0 ? "" : "out" + std::to_string(i));

  try {
    onnx::shape_inference::InferenceContextImpl ctx(proto, types_by_name, data_by_name, {});
    schema->GetTypeAndShapeInferenceFunction()(ctx);
    shapes->assign(node.outputs.size(), Shape());
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] < 0) continue;
      const onnx::TypeProto* out = ctx.getOutputType(i);
      if (!out || !out->has_tensor_type() || !out->tensor_type().has_shape())
        return Status::InvalidArgument(label + ": ONNX shape inference left output " + std::to_string(i) + " unknown");
      for (const auto& d : out->tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0)
          return Status::InvalidArgument(label + ": ONNX shape inference left a dim of output " + std::to_string(i) +
                                         " unknown");
        (*shapes)[i].push_back(d.dim_value());
      }
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(label + ": ONNX shape inference: " + OneLine(e.what()));
  } catch (...) {
    return Status::InvalidArgument(label + ": ONNX shape inference failed");
  }
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace loom
