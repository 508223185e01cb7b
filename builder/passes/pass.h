// A graph pass: one rewrite per file, listed with its phase in pipeline.cc.
// A pass runs at -O levels >= min_opt_level() unless named in --disable-pass,
// and reports how many nodes it changed (removed, folded or fused) for the
// build summary.
#pragma once

#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "builder/place/target.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace passes {

struct PassContext {
  const KernelRegistry* registry = &KernelRegistry::Global();
  // What the plan is built for. Post-placement passes ask the kernels of a
  // node's device, with the target's configuration of that device.
  const place::Target* target = nullptr;
  std::vector<std::string>* notes = nullptr;  // optional

  // The configuration of `device` on the target (the CPU's without a target).
  const DeviceConfig* ConfigFor(Device device) const {
    return target ? target->ConfigFor(device) : device == Device::kCpu ? &CpuDeviceConfig() : nullptr;
  }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const char* name() const = 0;
  virtual int min_opt_level() const { return 1; }
  // Rewrites `graph` (nodes stay in execution order; dead nodes may be left
  // for the pipeline to compact) and sets *changes to the nodes changed.
  virtual Status Run(ir::Graph& graph, PassContext& ctx, int* changes) = 0;
};

}  // namespace passes
}  // namespace loom
