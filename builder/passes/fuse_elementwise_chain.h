// Fuses a chain of float32 elementwise CPU nodes into one ElementwiseChain
// node of the "loom" domain (kernels/cpu/math/elementwise_chain.h), which
// runs every step over one L1-sized block before the next block, so the
// intermediate tensors never go through memory.
//
// A chain is >= 2 nodes, each a step of that kernel (a unary op such as Relu,
// Sigmoid, LeakyRelu or loom.Swish, a Clip with constant bounds, or an Add,
// Sub, Mul, Div, Pow, Max or Min whose other operand is a scalar, a
// per-channel vector or a full-shape tensor), where each node reads the
// previous one's output, which has no other consumer and is no graph output,
// and every output has the shape of the chain's input X (a broadcast that
// grows the shape ends the chain). The first node may be a binary node of two
// computed tensors (Add(a, b) then Relu): X is a non-constant input of its
// output's shape. Scalar constants become attributes; other operands are
// inputs (operand order kept). Only nodes placed on the CPU join, and only
// when the CPU kernel takes the fused node, so it runs after placement, after
// fuse_swish and fuse_activation have given anchors their activations.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseElementwiseChain();

}  // namespace passes
}  // namespace loom
