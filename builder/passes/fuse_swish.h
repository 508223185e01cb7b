// Fuses SiLU / Swish written as two nodes, y = Mul(x, Sigmoid(x)) (either
// operand order; everything float32), into one:
//  - into the Conv, ConvTranspose, Gemm or MatMul producing x, as the fused
//    activation loom.activation = "Swish" (nn/activation_epilogue.h), when x
//    is that anchor's single output, its only consumers are the Sigmoid and
//    the Mul, it is no graph output and the anchor has no fused activation
//    yet; before placement only where every device of the target that runs
//    the anchor runs the fused node (as fuse_activation), after placement
//    where the anchor's device kernel takes it;
//  - otherwise into one elementwise node Swish of the "loom" domain
//    (alpha = 1), when the CPU runs it and no other device of the target
//    takes the Sigmoid or the Mul (after placement: both are on the CPU).
// An anchor that another device of the target takes but whose fused form it
// does not (an accelerator's Conv) is left alone, with its Sigmoid and Mul.
// Registered next to fuse_activation, in both of its phases.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseSwish(bool before_placement);

}  // namespace passes
}  // namespace loom
