// Folds the Mul of a per-output-channel constant s into the weights and bias
// of the float Conv, Gemm or MatMul before it (as fuse_conv_batchnorm does for
// BatchNormalization):
//
//   Conv(x, W, B) * s    ->  Conv(x, W', B')     W'[m, ...] = W[m, ...] * s[m]   B' = B * s
//   Gemm(A, W, C) * s    ->  Gemm(A, W', C')     column n of op(W) times s[n]    C' = C * s
//   MatMul(A, W[, B]) * s -> MatMul(A, W'[, B'])  W 2-D: column n times s[n]
//
// s is a float32 constant that broadcasts as one value per output channel
// (Conv: axis 1, else the last axis; see PerChannelConst) without widening the
// output. The weights and any bias must be float32 constants, the product's
// output read only by the Mul (not a graph output) and carry no fused
// activation. The Add of such a constant is fuse_bias_add's.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFoldScaleIntoConv();

}  // namespace passes
}  // namespace loom
