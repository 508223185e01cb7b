// Fuses an activation into the Conv, ConvTranspose, Gemm, MatMul or int8 Add
// that feeds it (that output having no other consumer and not being a graph
// output). The
// anchor gets Loom attributes the nn kernels implement:
//   loom.activation        "Relu" | "Clip" | "LeakyRelu" | "Sigmoid" |
//                          "HardSigmoid" | "HardSwish" | "Tanh"
//   loom.activation_min/max   Clip bounds (omitted when infinite)
//   loom.activation_alpha/beta   LeakyRelu alpha; HardSigmoid alpha and beta
// and lists the activation in `fused`. It runs twice. Before placement it
// fuses only where every device of the target whose kernels take the anchor
// takes the fused node too (prepared with the target's configuration of the
// device), so the placer prices the pair as one node and loses no choice.
// After placement, the anchor's device kernel must accept the fused node (an
// activation placed on another device moves onto the anchor's). Otherwise
// nothing changes, so fusing never breaks a build.
#pragma once

#include <memory>
#include <vector>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseActivation(bool before_placement);

// Shared with the other fusing passes (fuse_swish.h):
// whether `device`'s kernels (configured as the context says) take `node`;
bool DeviceTakesNode(const ir::Graph& g, const PassContext& ctx, const ir::Node& node, Device device);
// the devices of the context's target (the CPU alone without a target);
std::vector<Device> TargetDevices(const PassContext& ctx);
// before placement: whether every device of the target that runs `anchor`
// runs `fused` too (and one does), so fusing takes no choice away from the
// placer.
bool EveryDeviceTakesFusion(const ir::Graph& g, const PassContext& ctx, const ir::Node& anchor,
                            const ir::Node& fused);

}  // namespace passes
}  // namespace loom
