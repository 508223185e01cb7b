// Placement: puts every node on one of the target's devices.
//
// A device is feasible for a node when one of its kernels accepts the node
// (Prepare with that device's configuration). The target's cost model
// prices each node on each feasible device and each tensor handed from one
// device to the other (boundary: cache maintenance, layout conversion,
// launch). For a target of two devices (the CPU and an accelerator) the
// placement minimizes the predicted total over the whole graph, node times
// plus boundaries, exactly, as a minimum s-t cut (min_cut.h): a value
// crossing devices pays once however many consumers it has, graph inputs
// come from the CPU's memory and graph outputs return to it. So a node may
// stay on the slower device to avoid boundaries; its reason says so. With
// one device every node takes it. Each node records its device, its
// predicted time there (boundaries are priced apart: boundaries.h lists
// them for the plan) and the reason, for `loom inspect --explain`:
//   "fpga: 3x3 conv, predicted 1.90 ms vs cpu 41.0 ms"
//   "cpu: predicted 0.20 ms vs fpga 0.31 ms (placed with its neighbours: ...)"
//   "cpu: depthwise conv (group 32) not supported by fpga16"
// (a refusal quotes the device kernel, whose reason for the accelerator is
// AccelLayerFromSetup's, and names the device by its configuration). A node
// no device can run fails the build with the CPU kernel's refusal
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
