// Naive kernels of the channel-blocked ops (loom.ToNchwc, loom.FromNchwc,
// loom.ConvNchwc, loom.ConvNchwcStem, loom.DepthwiseConvNchwc: layout NCHW8c, weights and
// attributes as builder/passes/layout_nchwc.h writes them), so builder tests
// can run plans of the layout pass end to end against the NCHW plan
// independently of the optimized kernels. Prepare checks only what the loops
// need.
#pragma once

#include "kernels/common/registry.h"

namespace loom {
namespace testing {

// The registry `base` without its NCHWc kernels;
KernelRegistry WithoutNchwcKernels(const KernelRegistry& base);
// and with these references instead (the conversions and Convs; the NCHWc
// pooling kernels of `base` are kept as they are).
KernelRegistry WithNchwcReferenceKernels(const KernelRegistry& base);

}  // namespace testing
}  // namespace loom
