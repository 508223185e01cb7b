// The optimization pipeline: the ordered list of passes (pipeline.cc) and the
// driver that honours -O levels and --disable-pass.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "builder/passes/pass.h"
#include "common/status.h"

namespace loom {
namespace passes {

// All passes, in the order they run.
std::vector<std::unique_ptr<Pass>> DefaultPipeline();

struct PipelineOptions {
  int opt_level = 1;
  std::vector<std::string> disabled;  // pass names; an unknown name is an error
};

// Runs the enabled passes in order, compacting and validating the graph after
// each. `applied` receives "name: N nodes" for each pass that changed the graph.
Status RunPipeline(std::vector<std::unique_ptr<Pass>>& passes, const PipelineOptions& options, PassContext& ctx,
                   ir::Graph& graph, std::vector<std::string>* applied);

}  // namespace passes
}  // namespace loom
