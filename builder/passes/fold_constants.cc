#include "builder/passes/fold_constants.h"

#include "builder/build_log.h"
#include "builder/exec/complete_shapes.h"
#include "builder/exec/evaluate.h"

namespace loom {
namespace passes {

namespace {

bool DequantizesAConstant(const ir::Graph& g, const ir::Node& n) {
  return n.op == "DequantizeLinear" && n.domain.empty() && !n.inputs.empty() && n.inputs[0] >= 0 &&
         g.value(n.inputs[0]).is_constant();
}

class FoldConstants : public Pass {
 public:
  explicit FoldConstants(bool dequantize_only) : dequantize_only_(dequantize_only) {}
  const char* name() const override { return dequantize_only_ ? "fold_dequantized" : "fold_constants"; }

  Status Run(ir::Graph& g, PassContext& ctx, int* changes) override {
    for (int i = 0; i < static_cast<int>(g.nodes().size()); ++i) {
      const ir::Node& n = g.node(i);
      if (n.dead || !exec::IsDeterministic(n)) continue;
      if (DequantizesAConstant(g, n) != dequantize_only_) continue;
      std::vector<exec::EvaluatedOutput> outputs;
      if (exec::EvaluateShapeOp(g, n, &outputs)) {
        exec::ReplaceWithConstants(&g, i, std::move(outputs));
        ++*changes;
        continue;
      }
      bool all_constant = true;
      for (int in : n.inputs) all_constant = all_constant && (in < 0 || g.value(in).is_constant());
      if (!all_constant) continue;
      Status s = exec::EvaluateNode(g, n, *ctx.registry, exec::kMaxFoldBytes, &outputs);
      if (!s.ok()) {
        BuildLog().debug("fold_constants: not folding {}: {}", n.Label(), s.ToString());
        continue;
      }
      exec::ReplaceWithConstants(&g, i, std::move(outputs));
      ++*changes;
    }
    return Status::Ok();
  }

 private:
  bool dequantize_only_;
};

}  // namespace

std::unique_ptr<Pass> MakeFoldConstants() { return std::make_unique<FoldConstants>(false); }
std::unique_ptr<Pass> MakeFoldDequantized() { return std::make_unique<FoldConstants>(true); }

}  // namespace passes
}  // namespace loom
