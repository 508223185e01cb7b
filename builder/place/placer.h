// Placement: puts every node on one of the target's devices.
//
// A device is feasible for a node when one of its kernels accepts the node
// (Prepare with that device's configuration). Among the feasible devices the
// node takes the one with the lowest predicted time from the target's cost
// model, counting the boundary cost of bringing each input from the device of
// its producer. Nodes are visited in execution order, so producers are placed
// first; ties go to the device listed first by the target. Each node records
// its device, its predicted time and the reason, for `loom inspect --explain`.
// A node no device can run fails the build with the CPU kernel's refusal
// ("unsupported ...").
//
// Placement chooses devices, not kernels: post-placement passes may still
// rewrite nodes, and kernel selection (kernel_selection.h) runs after them.
#pragma once

#include "builder/ir/graph.h"
#include "builder/place/target.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace place {

Status PlaceNodes(ir::Graph* graph, const Target& target, const KernelRegistry& registry);

}  // namespace place
}  // namespace loom
