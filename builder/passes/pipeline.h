// The build's passes as data: pipeline.cc lists every pass with its phase.
//
//   graph           target-independent rewrites, before quantization
//   pre-placement   rewrites of the (quantized) nodes the placer prices:
//                   fusions every device takes, accelerator-friendly forms
//   post-placement  rewrites that depend on where nodes run: device-specific
//                   fusions
//
// builder.cc runs the whole build in this order:
//   import -> graph passes -> quantization -> pre-placement passes
//   -> placement (place/) -> post-placement passes -> kernel selection
//   -> layouts (lower/) -> memory planning (memory/) -> lowering -> plan
//   writing (plan/)
// `loom build --list-passes` prints it with each phase's passes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "builder/passes/pass.h"
#include "common/status.h"

namespace loom {
namespace passes {

// kGraph: target-independent, before quantization. kPrePlacement: after
// quantization, on the nodes as the placer will price them (a rewrite must
// not take a device away from a node). kPostPlacement: device-specific, on
// placed nodes.
enum class Phase { kGraph, kPrePlacement, kPostPlacement };
const char* PhaseName(Phase phase);  // "graph", "pre-placement", "post-placement"

// -O levels: 0 runs only what correctness needs; 1 adds clean-ups (dead and
// identity nodes, constant folding, QDQ folding); 2 adds the standard fusions
// (BatchNormalization, activations, accelerator stems); 3 (the default) adds
// the pattern rewrites for speed (layer norm, GELU, ...).
constexpr int kMaxOptLevel = 3;

struct PipelineOptions {
  int opt_level = kMaxOptLevel;
  std::vector<std::string> disabled;  // pass names; an unknown name is an error
  // Called after every pass that runs (changed the graph or not), e.g. to
  // dump it; an error stops the build.
  std::function<Status(Phase phase, const std::string& pass, const ir::Graph& graph)> after_pass;
};

struct PipelineEntry {
  Phase phase = Phase::kGraph;
  std::unique_ptr<Pass> pass;
  std::string what;  // one line for --list-passes
};

class Pipeline {
 public:
  void Add(Phase phase, std::unique_ptr<Pass> pass, std::string what);
  const std::vector<PipelineEntry>& entries() const { return entries_; }

  // Fails when `options` disables a pass no phase has, listing the passes.
  Status CheckOptions(const PipelineOptions& options) const;
  // Runs the enabled passes of `phase` in order, compacting and validating
  // the graph after each. `applied` receives "name: N nodes" for each pass
  // that changed the graph.
  Status Run(Phase phase, const PipelineOptions& options, PassContext& ctx, ir::Graph& graph,
             std::vector<std::string>* applied) const;

 private:
  std::vector<PipelineEntry> entries_;
};

// Every pass of the build, by phase, in the order they run.
Pipeline DefaultPipeline();

}  // namespace passes
}  // namespace loom
