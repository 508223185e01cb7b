// Runs a build-time graph on this machine, through a plan written in memory
// and the engine, for calibration and the int8 report. Every node runs on the
// CPU; `probes` name values to read after each run besides the graph outputs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"
#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace quantize {

class GraphRunner {
 public:
  // Probes that are graph inputs or constants are left out.
  static Status Create(ir::Graph graph, const std::vector<std::string>& probes, const KernelRegistry& registry,
                       int num_threads, std::unique_ptr<GraphRunner>* out);

  // `inputs` in the graph's input order, each of the input's dtype and size.
  Status Run(const std::vector<HostTensor>& inputs);

  // A float32 output or probe after Run; null (and *count 0) if there is none.
  const float* Float(const std::string& name, size_t* count) const;

 private:
  std::shared_ptr<const Engine> engine_;
  std::unique_ptr<ExecutionContext> context_;
};

}  // namespace quantize
}  // namespace loom
