#include "builder/passes/pipeline.h"

#include <algorithm>

#include "builder/build_log.h"
#include "builder/passes/eliminate_dead_nodes.h"
#include "builder/passes/eliminate_identity.h"
#include "builder/passes/fold_constants.h"
#include "builder/passes/fuse_activation.h"
#include "builder/passes/fuse_conv_batchnorm.h"

namespace loom {
namespace passes {

std::vector<std::unique_ptr<Pass>> DefaultPipeline() {
  std::vector<std::unique_ptr<Pass>> p;
  p.push_back(MakeEliminateIdentity());    // Identity, inference Dropout
  p.push_back(MakeFoldConstants());        // constant subgraphs, Shape chains
  p.push_back(MakeEliminateDeadNodes());   // what folding left unused
  p.push_back(MakeFuseConvBatchNorm());    // Conv + BN -> Conv
  p.push_back(MakeFuseActivation());       // Conv/Gemm/MatMul + Relu... -> one node
  return p;
}

Status RunPipeline(std::vector<std::unique_ptr<Pass>>& passes, const PipelineOptions& options, PassContext& ctx,
                   ir::Graph& graph, std::vector<std::string>* applied) {
  for (const std::string& name : options.disabled) {
    const bool known = std::any_of(passes.begin(), passes.end(), [&](const auto& p) { return name == p->name(); });
    if (known) continue;
    std::string list;
    for (const auto& p : passes) list += (list.empty() ? "" : ", ") + std::string(p->name());
    return Status::InvalidArgument("--disable-pass: unknown pass '" + name + "' (passes: " + list + ")");
  }
  for (const auto& pass : passes) {
    const std::string name = pass->name();
    if (options.opt_level < pass->min_opt_level()) continue;
    if (std::find(options.disabled.begin(), options.disabled.end(), name) != options.disabled.end()) continue;
    int changes = 0;
    Status s = pass->Run(graph, ctx, &changes);
    if (!s.ok()) return s.WithContext("pass " + name);
    graph.Compact();
    s = graph.Validate();
    if (!s.ok()) return Status::Internal("pass " + name + " left an invalid graph: " + s.message());
    BuildLog().info("pass {}: {} nodes changed, {} nodes left", name, changes, graph.live_node_count());
    if (changes > 0) applied->push_back(name + ": " + std::to_string(changes) + " nodes");
  }
  return Status::Ok();
}

}  // namespace passes
}  // namespace loom
