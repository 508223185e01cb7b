// Recognizes layer normalization exported op by op (opsets before 17 have
// no LayerNormalization; torch writes it out, as in ViT) and replaces the
// chain with one LayerNormalization node (opset 17) over the last axis:
//
//   mean = ReduceMean(x, axes=[-1])       d = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2), axes=[-1])
//   n    = Div(d, Sqrt(Add(var, epsilon)))
//   y    = Add(Mul(n, scale), bias)        (Mul and Add optional)
//
// Every intermediate must feed only the next step (d feeds the Pow and the
// Div), epsilon, scale and bias must be float32 constants (scale and bias
// vectors over the last axis, or scalars), and the reductions keep their
// dims. One read of x instead of nine passes over it; the kernel
// accumulates in double, so the result differs from the chain only by
// rounding.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseLayerNorm();

}  // namespace passes
}  // namespace loom
