// Folds a per-channel scale of a blocked tensor (a squeeze-and-excitation
// Mul) into the 1x1 loom.ConvNchwc that reads it:
//   ConvNchwc(Mul(x, s), w, ...)  ->  ConvNchwc(x, w, ..., s)
// with x [N, C/8, H, W, 8], s [N, C/8, 1, 1, 8] (either operand order), the
// Loom attribute loom.input_scale = 1 and s as input 4 (bias and residual
// slots kept, -1 when absent): the kernel scales w's input channels by s
// once per run and image, Cout * C multiplies in place of the Mul's pass
// over C * H * W floats. So the pass folds only where that is fewer,
// Cout < H * W, and 1x1 Convs only (a 3x3 one would lose Winograd). Also
// required: the Mul's output has this Conv as its only consumer and is not a
// graph output, w is a constant, both nodes run on the CPU and its kernel
// takes the folded node. Post-placement, after layout_nchwc; -O3.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFoldChannelScale();

}  // namespace passes
}  // namespace loom
