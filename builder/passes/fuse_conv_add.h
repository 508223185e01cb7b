// Fuses a residual Add into the float32 Conv that feeds it:
//   Add(Conv(x, w, b), r) or Add(r, Conv(x, w, b))  ->  Conv(x, w, b, r)
// with the Loom attribute loom.residual = 1 (the CPU Conv kernel computes
// Y = act(conv(x, w) + b + r), kernels/cpu/nn/residual_input.h), "Add" listed
// in `fused` and the Add removed. The fused node runs where the Conv ran, so
// r must be available there: a graph input, a constant or produced by an
// earlier node. Also required: the Conv output has no other consumer and is
// not a graph output, r has exactly the Conv output's shape and dtype (no
// broadcasting), the Conv has no activation yet (an activation after the Add
// fuses afterwards: this pass runs before the post-placement
// fuse_activation), both nodes are on the CPU, and the CPU kernel chosen for
// the fused node takes it (a kernel path without the residual refuses in
// Prepare and nothing changes). Post-placement, -O2.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFuseConvAdd();

}  // namespace passes
}  // namespace loom
