// Runs float32 CPU convolution chains in the channel-blocked layout NCHW8c:
// a tensor of logical shape [N, C, H, W] with C % 8 == 0 is stored as
// [N, C/8, H, W, 8], blocked[n, cb, h, w, c] = nchw[n, cb*8 + c, h, w], so
// the loom.ConvNchwc and loom.DepthwiseConvNchwc kernels vectorize over 8
// channels and read and write memory sequentially.
//
//   1. Members: CPU float32 2-D Convs with constant weights (and bias or
//      none), Cin and Cout multiples of 8, group 1 (3x3 stride-1 ones run
//      through Winograd on the blocked tensors, as the NCHW Conv would) or
//      depthwise (group == Cin == Cout), auto_pad resolved into explicit
//      pads; and the layout-agnostic nodes
//      around them: unary elementwise ops, Add/Sub/Mul/Div/Max/Min of
//      tensors of one shape or by a scalar or a per-channel [N, C, 1, 1]
//      tensor, Concat along the channels, GlobalAveragePool (ReduceMean over
//      the 5-D tensor's H and W), MaxPool (no Indices) and AveragePool with
//      explicit pads (loom.MaxPoolNchwc / loom.AveragePoolNchwc, when
//      registered). loom.ElementwiseChain and the rest bound regions.
//      A group-1 Conv whose input cannot be blocked (Cin % 8 != 0: the
//      first Conv of a network) joins as loom.ConvNchwcStem, which reads
//      its input as NCHW and writes the blocked output: no conversion
//      before it, and it counts as a Conv of its region.
//   2. Regions: members connected through the tensors they pass one
//      another. A region with at least 2 Convs is converted (one Conv does
//      not pay for the conversions); its tensors become 5-D.
//   3. An NCHW tensor entering a region goes through one loom.ToNchwc shared
//      by its readers (a constant is converted at build time); a blocked
//      tensor read outside its region, or a graph output, comes back through
//      one loom.FromNchwc writing the original value, so graph outputs keep
//      their names and shapes. With H*W == 1 both layouts hold the same
//      bytes and a Reshape (a view) converts instead.
//   4. Weights are reordered at build time: OIHW -> [Cout/8, Cin/8, KH, KW,
//      8 (ci), 8 (co)]; the stem's OIHW -> [Cout/8, Cin, KH, KW, 8 (co)];
//      depthwise [C, 1, KH, KW] -> [C/8, KH, KW, 8]. The new
//      nodes carry explicit kernel_shape, strides, pads and dilations, and
//      the Conv's fused activation and loom.residual.
// A registry without loom.ToNchwc / loom.FromNchwc leaves the graph alone;
// a Conv kind joins only when its kernel is registered.
#pragma once

#include <memory>

#include "builder/passes/pass.h"

namespace loom {
namespace passes {

std::unique_ptr<Pass> MakeLayoutNchwc();

}  // namespace passes
}  // namespace loom
