#include "builder/testing/ir_builder.h"

#include <cstring>

namespace loom {
namespace testing {

int IrBuilder::Input(const std::string& name, const Shape& shape, DType dtype) {
  const int id = Tensor(name, shape, dtype);
  g.inputs().push_back(id);
  return id;
}

int IrBuilder::Tensor(const std::string& name, const Shape& shape, DType dtype, bool known) {
  ir::Value v;
  v.name = name;
  v.dtype = dtype;
  if (known) v.shape = shape;
  v.shape_known = known;
  return g.AddValue(std::move(v));
}

int IrBuilder::Const(const std::string& name, const Shape& shape, const std::vector<float>& values) {
  return g.AddConstant(name, DType::kFloat32, shape, ir::Buffer::CopyOf(values.data(), values.size() * 4));
}

int IrBuilder::ConstInt64(const std::string& name, const Shape& shape, const std::vector<int64_t>& values) {
  return g.AddConstant(name, DType::kInt64, shape, ir::Buffer::CopyOf(values.data(), values.size() * 8));
}

int IrBuilder::ConstBool(const std::string& name, bool value) {
  const uint8_t b = value ? 1 : 0;
  return g.AddConstant(name, DType::kBool, {}, ir::Buffer::CopyOf(&b, 1));
}

int IrBuilder::Node(const std::string& op, const std::vector<int>& inputs, const std::vector<int>& outputs,
                    const std::string& name) {
  ir::Node n;
  n.op = op;
  n.name = name.empty() ? op + "_" + std::to_string(g.nodes().size()) : name;
  n.inputs = inputs;
  n.outputs = outputs;
  return g.AddNode(std::move(n));
}

const ir::Node* IrBuilder::FindNode(const std::string& op) const {
  for (const ir::Node& n : g.nodes())
    if (!n.dead && n.op == op) return &n;
  return nullptr;
}

std::vector<float> IrBuilder::ConstValues(int id) const {
  const ir::Value& v = g.value(id);
  std::vector<float> out(v.data ? v.data->size() / 4 : 0);
  if (!out.empty()) std::memcpy(out.data(), v.data->data(), out.size() * 4);
  return out;
}

}  // namespace testing
}  // namespace loom
