// What handing an activation between the CPU and the accelerator costs, as
// the engine does it at a plan boundary (schemas/plan.fbs, Boundary):
//
//   layout   the CPU converts between row-major (NCHW, or [M, K]) and the
//            accelerator's NHWC with channels padded to N: a Relayout node
//            (kernels/cpu/layout) reads one form and writes the other,
//            priced as those bytes at the CPU's memory rate (here, not as a
//            node: the builder inserts the Relayouts after placement, and a
//            value on either side of one prices the same hand-over). None
//            for a tensor with no padded form.
//   cache    the arena is cached on the CPU: before the accelerator reads a
//            tensor the CPU wrote, its range is flushed; before the CPU reads
//            one the accelerator wrote, invalidated (the padded bytes).
//   launch   a CPU -> accelerator crossing starts a launch (register writes,
//            ap_start, the done interrupt); the accelerator runs on from
//            there.
// Requantization costs nothing: both devices keep the int8 tensor contract
// (kernels/cpu/int8/README.md) with the same scale and zero point, so no
// value changes at a hand-over.
#pragma once

#include "builder/ir/graph.h"
#include "builder/place/boards.h"
#include "common/device.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace place {

struct HandOver {
  double relayout_ms = 0;
  double cache_ms = 0;
  double launch_ms = 0;
  double total_ms() const { return relayout_ms + cache_ms + launch_ms; }
};

// The hand-over of `value` from a node on `from` to one on `to` on `board`
// with the accelerator configuration `accel`; all zero when from == to.
HandOver PriceHandOver(const BoardSpec& board, const fpga::contract::AccelConfig& accel, const ir::Value& value,
                       Device from, Device to);

}  // namespace place
}  // namespace loom
