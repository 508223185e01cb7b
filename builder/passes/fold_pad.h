// Folds a Pad into the Conv, AveragePool or MaxPool reading it, when the
// consumer's own `pads` attribute gives the same result:
//
//   y = Conv(Pad(x, pads, 0), W)  ->  y = Conv(x, W, pads = conv pads + Pad's spatial pads)
//
// The Pad must be constant mode with constant, non-negative pads that leave
// the batch and channel dims alone, on a float tensor, and the consumer must
// have auto_pad NOTSET. What the padded cells must hold depends on the
// consumer: zeros for Conv; zeros for an AveragePool that then counts them
// (count_include_pad becomes 1, so its own pads must be zero or already
// counted, and ceil_mode 0); -inf for MaxPool (ceil_mode 0). Each summed pad
// must stay below the consumer's dilated window (no window wholly in the
// padding: the accelerator's layers refuse that). A Pad whose pads
// are all zero is dropped for any of these consumers. Consumers that cannot
// take the pads keep reading the Pad, which dies when none is left.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeFoldPad();

}  // namespace passes
}  // namespace loom
