// Rewrites a strided int8 Conv with few input channels (a network's stem:
// 3 channels, 7x7, stride 2) into the same convolution over a
// space-to-depth view of its input, for targets with an accelerator:
//
//   Conv(x[C], w[M,C,K,K], stride s, pads)
//     -> Pad(x, zero point) -> SpaceToDepth(s) -> Conv(w'[M,C*s*s,ceil(K/s)], stride 1)
//
// The accelerator feeds input channels to the rows of its array, so 3
// channels leave 13 of 16 rows idle; after the rewrite s*s times as many
// rows work. The new weights are the old ones re-arranged (channel
// (by*s+bx)*C+c, tap (qy,qx) holds w[c, s*qy+by, s*qx+bx], zero beyond K);
// the accumulators sum the same products, so the outputs are the same bits.
// Pad and SpaceToDepth are int8 data movement on the CPU.
//
// A pre-placement pass: it rewrites a Conv only when the target's
// accelerator takes the new Conv and its cost model predicts the new Conv
// plus the Pad and SpaceToDepth on the CPU faster than the old Conv on the
// accelerator. With no accelerator on the target it does nothing.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeSpaceToDepthStem();

}  // namespace passes
}  // namespace loom
