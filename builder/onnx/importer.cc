#include "builder/onnx/importer.h"

#include <unordered_map>

#include "builder/onnx/attribute_import.h"
#include "builder/onnx/model_checks.h"
#include "builder/onnx/tensor_proto.h"

namespace loom {
namespace onnx_import {

namespace {

class Importer {
 public:
  Importer(const onnx::ModelProto& model, ir::Graph* graph, std::vector<std::string>* notes)
      : model_(model), graph_(graph), notes_(notes) {}

  Status Run() {
    const onnx::GraphProto& g = model_.graph();
    for (const onnx::OperatorSetIdProto& id : model_.opset_import())
      opsets_[IsDefaultDomain(id.domain()) ? std::string() : id.domain()] = static_cast<int>(id.version());
    for (const onnx::ValueInfoProto& vi : g.value_info()) types_[vi.name()] = &vi.type();
    for (const onnx::ValueInfoProto& vi : g.output()) types_[vi.name()] = &vi.type();
    for (const onnx::ValueInfoProto& vi : g.input()) types_[vi.name()] = &vi.type();

    for (const onnx::TensorProto& t : g.initializer()) RETURN_IF_ERROR(AddInitializer(t));
    int initializer_inputs = 0;
    for (const onnx::ValueInfoProto& in : g.input()) {
      if (ids_.count(in.name())) {
        ++initializer_inputs;
        continue;
      }
      int id = 0;
      RETURN_IF_ERROR(AddTypedValue(in.name(), "input '" + in.name() + "'", &id));
      if (!graph_->value(id).shape_known)
        return Status::InvalidArgument("input '" + in.name() + "' has no static shape");
      graph_->inputs().push_back(id);
    }
    if (initializer_inputs > 0)
      notes_->push_back(std::to_string(initializer_inputs) +
                        " initializer(s) also listed as graph inputs are treated as constants");
    for (int i = 0; i < g.node_size(); ++i) RETURN_IF_ERROR(AddNode(g.node(i), i));
    for (const onnx::ValueInfoProto& out : g.output()) {
      auto it = ids_.find(out.name());
      if (it == ids_.end()) return Status::InvalidArgument("graph output '" + out.name() + "' is never produced");
      graph_->outputs().push_back(it->second);
    }
    return Status::Ok();
  }

 private:
  Status AddInitializer(const onnx::TensorProto& t) {
    if (ids_.count(t.name())) return Status::InvalidArgument("initializer '" + t.name() + "' is defined twice");
    ConstantTensor c;
    RETURN_IF_ERROR(ConvertTensorProto(t, "initializer '" + t.name() + "'", &c));
    ids_[t.name()] = graph_->AddConstant(t.name(), c.dtype, std::move(c.shape), std::move(c.data));
    return Status::Ok();
  }

  // A non-constant value typed from value_info (dtype may stay undefined and
  // the shape unknown when inference could not settle them).
  Status AddTypedValue(const std::string& name, const std::string& what, int* id) {
    ir::Value v;
    v.name = name;
    auto it = types_.find(name);
    if (it != types_.end()) {
      const onnx::TypeProto& type = *it->second;
      if (type.has_tensor_type()) {
        const onnx::TypeProto_Tensor& tt = type.tensor_type();
        if (tt.elem_type() != 0) RETURN_IF_ERROR(ConvertElemType(tt.elem_type(), what, &v.dtype));
        if (tt.has_shape()) {
          v.shape_known = true;
          for (const auto& d : tt.shape().dim()) {
            if (!d.has_dim_value() || d.dim_value() < 0) {
              v.shape_known = false;
              break;
            }
            v.shape.push_back(d.dim_value());
          }
          if (!v.shape_known) v.shape.clear();
        }
      } else if (type.value_case() != onnx::TypeProto::VALUE_NOT_SET) {
        return Status::Unsupported(what + " is not a tensor (sequence, map or optional), unsupported");
      }
    }
    *id = graph_->AddValue(std::move(v));
    ids_[name] = *id;
    return Status::Ok();
  }

  Status AddConstantNode(const onnx::NodeProto& n, const std::string& label) {
    if (n.output_size() != 1 || n.attribute_size() != 1)
      return Status::InvalidArgument(label + ": expected one output and one attribute");
    const onnx::AttributeProto& a = n.attribute(0);
    const std::string& out = n.output(0);
    ConstantTensor c;
    if (a.name() == "value") {
      RETURN_IF_ERROR(ConvertTensorProto(a.t(), label + ": value", &c));
    } else if (a.name() == "value_float" || a.name() == "value_floats") {
      const bool scalar = a.name() == "value_float";
      c.dtype = DType::kFloat32;
      if (!scalar) c.shape = {a.floats_size()};
      const float f = a.f();
      c.data = scalar ? ir::Buffer::CopyOf(&f, sizeof(float))
                      : ir::Buffer::CopyOf(a.floats().data(), sizeof(float) * static_cast<size_t>(a.floats_size()));
    } else if (a.name() == "value_int" || a.name() == "value_ints") {
      const bool scalar = a.name() == "value_int";
      c.dtype = DType::kInt64;
      if (!scalar) c.shape = {a.ints_size()};
      const int64_t i = a.i();
      c.data = scalar ? ir::Buffer::CopyOf(&i, sizeof(int64_t))
                      : ir::Buffer::CopyOf(a.ints().data(), sizeof(int64_t) * static_cast<size_t>(a.ints_size()));
    } else {
      return Status::Unsupported(label + ": unsupported Constant attribute '" + a.name() + "'");
    }
    if (ids_.count(out)) return Status::InvalidArgument(label + ": output '" + out + "' is already defined");
    ids_[out] = graph_->AddConstant(out, c.dtype, std::move(c.shape), std::move(c.data));
    return Status::Ok();
  }

  Status AddNode(const onnx::NodeProto& n, int index) {
    ir::Node node;
    node.name = ImportedNodeName(n, index);
    node.op = n.op_type();
    node.domain = IsDefaultDomain(n.domain()) ? std::string() : n.domain();
    const std::string label = node.Label();
    if (node.domain.empty() && node.op == "Constant") return AddConstantNode(n, label);
    auto opset = opsets_.find(node.domain);
    node.opset = opset == opsets_.end() ? 1 : opset->second;
    for (const onnx::AttributeProto& a : n.attribute()) {
      Attribute attr;
      RETURN_IF_ERROR(ConvertAttribute(a, label, &attr));
      node.attrs.Set(std::move(attr));
    }
    for (const std::string& in : n.input()) {
      if (in.empty()) {
        node.inputs.push_back(-1);
        continue;
      }
      auto it = ids_.find(in);
      if (it == ids_.end()) return Status::InvalidArgument(label + ": input '" + in + "' is never produced");
      node.inputs.push_back(it->second);
    }
    for (const std::string& out : n.output()) {
      if (out.empty()) {
        node.outputs.push_back(-1);
        continue;
      }
      if (ids_.count(out)) return Status::InvalidArgument(label + ": output '" + out + "' is already defined");
      int id = 0;
      RETURN_IF_ERROR(AddTypedValue(out, "tensor '" + out + "' (output of " + label + ")", &id));
      node.outputs.push_back(id);
    }
    graph_->AddNode(std::move(node));
    return Status::Ok();
  }

  const onnx::ModelProto& model_;
  ir::Graph* graph_;
  std::vector<std::string>* notes_;
  std::unordered_map<std::string, int> opsets_;
  std::unordered_map<std::string, const onnx::TypeProto*> types_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace

Status ImportModel(const onnx::ModelProto& model, ir::Graph* graph, std::vector<std::string>* notes) {
  return Importer(model, graph, notes).Run();
}

}  // namespace onnx_import
}  // namespace loom
