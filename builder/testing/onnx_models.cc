#include "builder/testing/onnx_models.h"

#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace loom {
namespace testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "loom_builder_test_XXXXXX").string();
  char* p = ::mkdtemp(&tmpl[0]);
  path_ = p ? p : "/tmp";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (path_ != "/tmp") std::filesystem::remove_all(path_, ec);
}

OnnxModel::OnnxModel(int opset, int ir_version) {
  model_.set_ir_version(ir_version);
  model_.set_producer_name("loom-test");
  model_.set_producer_version("1.0");
  onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

OnnxModel& OnnxModel::Input(const std::string& name, const std::vector<int64_t>& dims, int elem_type,
                            const std::vector<std::string>& dim_names) {
  onnx::ValueInfoProto* vi = model_.mutable_graph()->add_input();
  vi->set_name(name);
  onnx::TypeProto_Tensor* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    onnx::TensorShapeProto::Dimension* d = shape->add_dim();
    if (dims[i] >= 0) {
      d->set_dim_value(dims[i]);
    } else if (dims[i] == -1) {
      d->set_dim_param(i < dim_names.size() ? dim_names[i] : "d" + std::to_string(i));
    }
  }
  return *this;
}

OnnxModel& OnnxModel::Output(const std::string& name, const std::vector<int64_t>& dims, int elem_type) {
  Input(name, dims, elem_type);
  onnx::ValueInfoProto* vi = model_.mutable_graph()->mutable_input()->ReleaseLast();
  model_.mutable_graph()->mutable_output()->AddAllocated(vi);
  return *this;
}

OnnxModel& OnnxModel::Initializer(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<float>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return *this;
}

OnnxModel& OnnxModel::InitializerInt64(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return *this;
}

onnx::NodeProto* OnnxModel::Node(const std::string& op, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* n = model_.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? (outputs.empty() ? op : outputs[0]) : name);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return n;
}

std::string OnnxModel::Serialize() const { return model_.SerializeAsString(); }

std::string OnnxModel::Save(const std::string& path) const {
  WriteBytes(path, Serialize());
  return path;
}

void SetIntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void SetFloatAttr(onnx::NodeProto* n, const std::string& name, float v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void SetIntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace testing
}  // namespace loom
