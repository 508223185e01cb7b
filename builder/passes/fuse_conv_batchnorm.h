// Folds an inference BatchNormalization into the Conv before it:
//   s = scale / sqrt(var + epsilon)
//   W'[m, ...] = W[m, ...] * s[m]        B'[m] = (B[m] - mean[m]) * s[m] + bias[m]
// Needs float32 constant weights and BN parameters, and the Conv output feeding
// only the BN (and not being a graph output). The Conv lists
// "BatchNormalization" in `fused`. A BN without such a Conv stays a BN node.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseConvBatchNorm();

}  // namespace passes
}  // namespace loom
