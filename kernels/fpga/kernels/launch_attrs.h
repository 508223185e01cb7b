// The attributes through which the builder's lowering hands an FPGA node's
// launch to its kernel (fpga_kernels.h). Consecutive FPGA nodes share one
// launch: the first carries it, the others join it.
//
//   loom.fpga_launch       int: nodes the launch computes, this one first;
//                          0 on a node that joined an earlier node's launch
//   loom.launch_inputs     int: trailing inputs that belong to the launch
//                          (2 on the first node: the command stream, 32 bytes
//                          per command, and the constant image, both uint8
//                          constants; 0 otherwise). CPU fallbacks drop them.
//   loom.fpga_flush        ints: arena (offset, bytes) pairs the CPU wrote that
//                          the launch reads or overwrites: flushed from the
//                          CPU's cache before ap_start
//   loom.fpga_invalidate   ints: arena (offset, bytes) pairs the launch wrote
//                          that the CPU reads next: invalidated after ap_done
//   loom.fpga_macs         int: the launch's own MACs
//   loom.fpga_array_macs   int: the MACs the array issues (channel padding
//                          included), for utilization in profiles
//   loom.pad_channels      int: N, the padding of the NHWC_PADDED tensors
//                          (kernels/cpu/layout/padded_layout.h)
//
// The command stream addresses slot 0 = the execution context's arena (the
// plan's arena offsets) and slot 1 = the constant image.
#pragma once

namespace loom {
namespace fpga {

constexpr char kLaunchNodesAttr[] = "loom.fpga_launch";
constexpr char kLaunchInputsAttr[] = "loom.launch_inputs";
constexpr char kFlushAttr[] = "loom.fpga_flush";
constexpr char kInvalidateAttr[] = "loom.fpga_invalidate";
constexpr char kMacsAttr[] = "loom.fpga_macs";
constexpr char kArrayMacsAttr[] = "loom.fpga_array_macs";

constexpr int kLaunchInputs = 2;    // commands, constant image
constexpr unsigned kArenaSlot = 0;
constexpr unsigned kConstantSlot = 1;

}  // namespace fpga
}  // namespace loom
