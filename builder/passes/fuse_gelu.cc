#include "builder/passes/fuse_gelu.h"

#include <cmath>
#include <vector>

#include "builder/passes/match_util.h"

namespace loom {
namespace passes {

namespace {

bool Near(float value, double exact) { return std::fabs(value - exact) <= 1e-6 * std::fabs(exact); }

// The other input of Mul node `n` if it is the scalar constant `exact`.
bool MulBy(const ir::Graph& g, const ir::Node& n, int id, double exact) {
  float c = 0;
  return ScalarConst(g, OtherInput(n, id), &c) && Near(c, exact);
}

class FuseGelu : public Pass {
 public:
  const char* name() const override { return "fuse_gelu"; }
  int min_opt_level() const override { return 3; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    const ir::UseLists uses = g.BuildUseLists();
    for (size_t i = 0; i < g.nodes().size(); ++i) {
      std::vector<int> chain;
      int x = -1;
      if (!Match(g, uses, static_cast<int>(i), &chain, &x)) continue;
      const int last = chain.back();
      ir::Node gelu;
      gelu.name = g.node(last).name;
      gelu.op = "Gelu";
      gelu.opset = 20;
      gelu.attrs.SetString("approximate", "none");
      gelu.inputs = {x};
      gelu.outputs = g.node(last).outputs;
      gelu.fused = {"Div", "Erf", "Add", "Mul", "Mul"};
      for (int n : chain) g.node(n).dead = true;
      g.node(last) = std::move(gelu);  // where y was made: x is ready there
      ++*changes;
    }
    return Status::Ok();
  }

 private:
  // From the Erf at `erf`: the chain's nodes (the one making y last) and x.
  static bool Match(const ir::Graph& g, const ir::UseLists& uses, int erf, std::vector<int>* chain, int* x) {
    const ir::Node& e = g.node(erf);
    if (e.dead || e.op != "Erf" || !e.domain.empty() || e.inputs.size() != 1 || e.outputs.size() != 1) return false;
    // q = x / sqrt(2) or x * (1 / sqrt(2)), read only by the Erf.
    const int q = e.inputs[0];
    const int scale = q >= 0 ? uses.producer[static_cast<size_t>(q)] : -1;
    if (scale < 0 || g.IsGraphOutput(q) || uses.consumers[static_cast<size_t>(q)].size() != 1) return false;
    const ir::Node& s = g.node(scale);
    float c = 0;
    if (s.dead || !s.domain.empty() || s.inputs.size() != 2) return false;
    if (s.op == "Div" && ScalarConst(g, s.inputs[1], &c) && Near(c, std::sqrt(2.0))) {
      *x = s.inputs[0];
    } else if (s.op == "Mul" && ScalarConst(g, s.inputs[1], &c) && Near(c, std::sqrt(0.5))) {
      *x = s.inputs[0];
    } else if (s.op == "Mul" && ScalarConst(g, s.inputs[0], &c) && Near(c, std::sqrt(0.5))) {
      *x = s.inputs[1];
    } else {
      return false;
    }
    if (*x < 0 || g.value(*x).dtype != DType::kFloat32) return false;
    // a = erf + 1
    const int add = SoleConsumer(g, uses, e.outputs[0], "Add");
    if (add < 0 || !ScalarConst(g, OtherInput(g.node(add), e.outputs[0]), &c) || c != 1.f) return false;
    const int a = g.node(add).outputs[0];
    const int m1 = SoleConsumer(g, uses, a, "Mul");
    if (m1 < 0) return false;
    const int other = OtherInput(g.node(m1), a);
    *chain = {scale, erf, add};
    if (other == *x) {  // (x * a) * 0.5
      const int m2 = SoleConsumer(g, uses, g.node(m1).outputs[0], "Mul");
      if (m2 < 0 || !MulBy(g, g.node(m2), g.node(m1).outputs[0], 0.5)) return false;
      chain->insert(chain->end(), {m1, m2});
    } else if (MulBy(g, g.node(m1), a, 0.5)) {  // x * (a * 0.5)
      const int m2 = SoleConsumer(g, uses, g.node(m1).outputs[0], "Mul");
      if (m2 < 0 || OtherInput(g.node(m2), g.node(m1).outputs[0]) != *x) return false;
      chain->insert(chain->end(), {m1, m2});
    } else {  // (x * 0.5) * a: the half is made before the Erf's chain
      const int half = other >= 0 ? uses.producer[static_cast<size_t>(other)] : -1;
      if (half < 0 || g.IsGraphOutput(other) || uses.consumers[static_cast<size_t>(other)].size() != 1) return false;
      const ir::Node& h = g.node(half);
      if (h.dead || h.op != "Mul" || !h.domain.empty() || OtherInput(h, *x) < 0 || !MulBy(g, h, *x, 0.5)) return false;
      chain->insert(chain->begin(), half);
      chain->push_back(m1);
    }
    return g.value(g.node(chain->back()).outputs[0]).shape == g.value(*x).shape;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseGelu() { return std::make_unique<FuseGelu>(); }

}  // namespace passes
}  // namespace loom
