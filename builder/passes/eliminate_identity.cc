#include "builder/passes/eliminate_identity.h"

namespace loom {
namespace passes {

namespace {

// Dropout is a no-op at inference: before opset 12 always (is_test or not);
// from 12 unless training_mode is given and true (or not constant).
bool IsInferenceDropout(const ir::Graph& g, const ir::Node& n, const ir::UseLists& uses) {
  if (n.op != "Dropout") return false;
  if (n.outputs.size() > 1 && n.outputs[1] >= 0 &&
      (!uses.consumers[static_cast<size_t>(n.outputs[1])].empty() || g.IsGraphOutput(n.outputs[1])))
    return false;
  if (n.inputs.size() < 3 || n.inputs[2] < 0) return true;
  const ir::Value& training = g.value(n.inputs[2]);
  return training.is_constant() && training.dtype == DType::kBool && training.data->size() >= 1 &&
         training.data->data()[0] == 0;
}

// A Cast to the dtype its input already has (torch's QDQ export writes
// uint8 -> uint8 Casts after QuantizeLinear).
bool IsNoOpCast(const ir::Graph& g, const ir::Node& n) {
  return n.op == "Cast" && !n.inputs.empty() && n.inputs[0] >= 0 && !n.outputs.empty() && n.outputs[0] >= 0 &&
         g.value(n.inputs[0]).dtype == g.value(n.outputs[0]).dtype;
}

class EliminateIdentity : public Pass {
 public:
  const char* name() const override { return "eliminate_identity"; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    ir::UseLists uses = g.BuildUseLists();
    std::vector<int>& producer = uses.producer;
    for (ir::Node& n : g.nodes()) {
      if (n.dead || !n.domain.empty()) continue;
      if (n.op != "Identity" && !IsInferenceDropout(g, n, uses) && !IsNoOpCast(g, n)) continue;
      if (n.inputs.empty() || n.outputs.empty() || n.inputs[0] < 0 || n.outputs[0] < 0) continue;
      const int in = n.inputs[0];
      const int out = n.outputs[0];
      if (!g.IsGraphOutput(out)) {
        n.dead = true;
        g.ReplaceNodeInputUses(out, in);
        ++*changes;
        continue;
      }
      const int p = producer[static_cast<size_t>(in)];
      if (p < 0 || g.IsGraphOutput(in) || g.value(in).is_constant()) continue;  // keep the copy
      n.dead = true;
      for (int& o : g.node(p).outputs)
        if (o == in) o = out;
      g.ReplaceNodeInputUses(in, out);
      producer[static_cast<size_t>(out)] = p;
      ++*changes;
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeEliminateIdentity() { return std::make_unique<EliminateIdentity>(); }

}  // namespace passes
}  // namespace loom
