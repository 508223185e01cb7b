// Fuses an activation into the Conv, ConvTranspose, Gemm or MatMul that feeds
// it (that output having no other consumer and not being a graph output). The
// anchor gets Loom attributes the nn kernels implement:
//   loom.activation        "Relu" | "Clip" | "LeakyRelu" | "Sigmoid" |
//                          "HardSigmoid" | "HardSwish" | "Tanh"
//   loom.activation_min/max   Clip bounds (omitted when infinite)
//   loom.activation_alpha/beta   LeakyRelu alpha; HardSigmoid alpha and beta
// and lists the activation in `fused`. A post-placement pass: both nodes must
// be on one device, and that device's kernel for the anchor (prepared with the
// target's configuration of the device) must accept the fused node; otherwise
// nothing changes, so fusing never breaks a build.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseActivation();

}  // namespace passes
}  // namespace loom
