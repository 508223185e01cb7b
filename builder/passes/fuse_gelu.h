// Recognizes GELU written out op by op (torch's exact GELU before opset 20:
// x * 0.5 * (1 + erf(x / sqrt(2))), as in ViT's MLP blocks) and replaces it
// with one Gelu node (opset 20, approximate "none"):
//
//   a = Add(Erf(Div(x, sqrt(2))), 1)        (or Mul(x, 1/sqrt(2)))
//   y = Mul(Mul(x, a), 0.5)  |  Mul(Mul(x, 0.5), a)  |  Mul(x, Mul(a, 0.5))
//
// Every intermediate must feed only the next step, the constants must be
// float32 scalars within 1e-6 of their exact values, and the tensors
// float32. One pass over x instead of five.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseGelu();

}  // namespace passes
}  // namespace loom
