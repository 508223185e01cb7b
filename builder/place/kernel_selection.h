// Kernel selection: every node gets the first kernel of its device, in
// registry order, whose Prepare accepts it with the device's configuration
// and whose KernelDef::layouts takes its tensors' layouts. It runs after the
// post-placement passes, which may rewrite placed nodes (fusions, inserted
// conversions), so the kernel id written into the plan is the one that
// accepted the final node.
#pragma once

#include "builder/ir/graph.h"
#include "builder/place/target.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace place {

Status SelectKernels(ir::Graph* graph, const Target& target, const KernelRegistry& registry);

}  // namespace place
}  // namespace loom
