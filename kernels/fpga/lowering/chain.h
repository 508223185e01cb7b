// Chaining: several lowered Programs as one command stream, so consecutive
// accelerator nodes run in one launch (one ap_start, one interrupt).
//
// A Program assumes empty token FIFOs and nothing about the on-chip buffers,
// and the next layer's loads read what this layer's stores wrote. Load and
// store share no token FIFO, so the barrier between programs A and B goes
// through the compute unit:
//   A's last store-queue command     also pushes a token to compute
//   a one-row ADD (compute queue)    pops it, then pushes a token to load
//   B's first load-queue command     pops that token first
// The ADD reads input row 0 and overwrites accumulator row 0: B assumes
// nothing about either. Store-queue commands run in order, so B's stores and
// parameter loads already follow A's; B's computes wait for B's loads.
#pragma once

#include <vector>

#include "common/status.h"
#include "kernels/fpga/lowering/lowering.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace lowering {

// Appends `next` to `stream` with the barrier above between them (none when
// `stream` is empty). Internal error if either side already uses the token
// the barrier needs (a Program leaves its FIFOs empty, so it never does).
Status AppendChained(const std::vector<contract::Command>& next, std::vector<contract::Command>* stream);

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
