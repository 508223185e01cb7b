#include "builder/passes/match_util.h"

#include <vector>

namespace loom {
namespace passes {

bool ScalarConst(const ir::Graph& g, int id, float* value) {
  if (id < 0) return false;
  const ir::Value& v = g.value(id);
  if (!v.is_constant() || v.dtype != DType::kFloat32 || NumElements(v.shape) != 1) return false;
  *value = v.data->as<float>()[0];
  return true;
}

int SoleConsumer(const ir::Graph& g, const ir::UseLists& uses, int id, const char* op) {
  if (id < 0 || g.IsGraphOutput(id)) return -1;
  const std::vector<int>& c = uses.consumers[static_cast<size_t>(id)];
  if (c.size() != 1) return -1;
  const ir::Node& n = g.node(c[0]);
  return !n.dead && n.domain.empty() && n.op == op && n.outputs.size() == 1 && n.outputs[0] >= 0 ? c[0] : -1;
}

int OtherInput(const ir::Node& n, int id) {
  if (n.inputs.size() != 2) return -1;
  return n.inputs[0] == id ? n.inputs[1] : n.inputs[1] == id ? n.inputs[0] : -1;
}

bool PerChannelConst(const ir::Graph& g, int id, const Shape& out, size_t axis, std::vector<double>* values) {
  if (id < 0 || axis >= out.size()) return false;
  const ir::Value& v = g.value(id);
  if (!v.is_constant() || v.dtype != DType::kFloat32 || v.shape.size() > out.size()) return false;
  const size_t offset = out.size() - v.shape.size();
  bool along_axis = false;
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] == 1) continue;
    if (i + offset != axis || v.shape[i] != out[axis]) return false;
    along_axis = true;
  }
  const float* data = v.data->as<float>();
  values->resize(static_cast<size_t>(out[axis]));
  for (size_t c = 0; c < values->size(); ++c) (*values)[c] = data[along_axis ? c : 0];
  return true;
}

}  // namespace passes
}  // namespace loom
