// Lowering: every run of consecutive FPGA nodes (in execution order)
// becomes one accelerator launch, after memory planning, because the command
// streams address activations by their arena offsets (slot 0) and constants
// by their offset in the launch's constant image (slot 1).
//
// For each node, AccelLayerFromSetup (kernels/fpga/kernels/accel_layer.h,
// the same function the FPGA kernel's Prepare and the placer's cost model
// use) makes the layer, LowerAccelLayer its program: weights pre-tiled and
// per-channel parameters packed here, never on the board. The programs of
// one run are chained (lowering/chain.h) into one stream; the first node of
// the run carries the stream and the concatenated constant image as two
// uint8 constant inputs, the cache maintenance ranges and the counts that
// profiles report; the others join its launch (launch_attrs.h).
//
// Cache maintenance: before the launch the CPU's cache is flushed over what
// the CPU wrote that the launch reads and over what the launch writes (an
// arena range may hold a CPU tensor earlier in the run, whose dirty lines
// must not land on the accelerator's results); after it, invalidated over
// what the launch wrote that a CPU node reads next.
#pragma once

#include "builder/ir/graph.h"
#include "builder/memory/arena_plan.h"
#include "builder/place/target.h"
#include "common/status.h"

namespace loom {
namespace lower {

struct LoweringStats {
  int launches = 0;
  int fpga_nodes = 0;
  uint64_t commands = 0;
  uint64_t constant_bytes = 0;  // weight and parameter images
};

// No-op unless the target's FPGA is Loom's accelerator (FpgaDeviceConfig).
// `per_node`: one launch per FPGA node instead of one per run.
Status LowerFpgaNodes(ir::Graph* graph, const memory::ArenaPlan& arena, const place::Target& target, bool per_node,
                      LoweringStats* stats);

}  // namespace lower
}  // namespace loom
