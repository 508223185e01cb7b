#include "builder/passes/eliminate_dead_nodes.h"

namespace loom {
namespace passes {

namespace {

class EliminateDeadNodes : public Pass {
 public:
  const char* name() const override { return "eliminate_dead_nodes"; }
  int min_opt_level() const override { return 0; }

  Status Run(ir::Graph& g, PassContext&, int* changes) override {
    std::vector<char> needed(g.values().size(), 0);
    for (int out : g.outputs()) needed[static_cast<size_t>(out)] = 1;
    for (auto it = g.nodes().rbegin(); it != g.nodes().rend(); ++it) {
      ir::Node& n = *it;
      if (n.dead) continue;
      bool used = false;
      for (int out : n.outputs) used = used || (out >= 0 && needed[static_cast<size_t>(out)]);
      if (!used) {
        n.dead = true;
        ++*changes;
        continue;
      }
      for (int in : n.inputs)
        if (in >= 0) needed[static_cast<size_t>(in)] = 1;
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeEliminateDeadNodes() { return std::make_unique<EliminateDeadNodes>(); }

}  // namespace passes
}  // namespace loom
