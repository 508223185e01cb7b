// Placement and kernel selection. Every node runs on the CPU for now (there
// is no accelerator configuration yet); its kernel is the first registered
// candidate for the op whose Prepare accepts the node. A node no kernel can
// run fails the build with the kernel's own reason ("unsupported ...").
#pragma once

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace place {

Status PlaceNodes(ir::Graph* graph, const KernelRegistry& registry);

}  // namespace place
}  // namespace loom
