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

}  // namespace passes
}  // namespace loom
