// The operand side of the int8 Gemm (gemm.cc): which Gemm nodes the int8
// contract takes and how its operands line up. Shared with the accelerator's
// layer (kernels/fpga/kernels/accel_layer.h), so both take the same nodes.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/cpu/int8/linear_output.h"

namespace loom {
namespace int8 {

// Y [M, N] = A [M, K] · op(B) + C.
struct GemmOperands {
  int64_t m = 0, k = 0, n = 0;
  bool trans_b = false;  // B is [N, K] (else [K, N])
  LinearSpec spec;       // B's output-column axis, N channels, C [N] or [1, N]
};

// Checks A and B (2-D, inner dims equal), the attributes (transA 0, alpha
// and beta 1: else Unsupported) and output 0 (int8 [M, N]); the node's
// input and output counts are the caller's (CheckNode).
Status ReadGemmOperands(const KernelSetup& s, GemmOperands* out);

}  // namespace int8
}  // namespace loom
