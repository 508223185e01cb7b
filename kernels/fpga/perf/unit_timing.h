// How long one command keeps its unit busy: closed forms of the load,
// compute and store units' pipelines (hw/README.md, Micro-architecture, and
// the timing notes at the top of hw/rtl/{load,compute,store}_unit.sv), with
// the DMA transfers through ReadChannel / WriteChannel (dram_timing.h).
//
//   LOAD_ACT    decode, the range checks' serial products (as many cycles as
//               cb, then max(height, pad_top) have significant bits), then
//               the transfer: one request per DRAM row when pixels are
//               contiguous, else one per pixel; padding rows are written in
//               the cycles the data does not use (one write port)
//   LOAD_WGT    decode, one request of rows · N bytes
//   LOAD_PARAM  decode, one request of count · 16 bytes
//   CONV        1 + N (tile 0's weights; the check hides behind them) +
//               (tiles − 1) · max(P, N) + P + 35 (the array and the
//               accumulator read-modify-write), tiles = cb_count · kh · kw,
//               P = oh · ow: array fill and drain are the N + 35
//   MAXPOOL     11 (check) + oh · ow · kh · kw taps + 4
//   ADD         3 (check) + rows · max(2, N / vec_lanes) + the lanes' pipeline
//   STORE       decode, max(the oh · ow product, the N-record preload), then
//               one pixel every max(N / requant_lanes, beats per pixel)
//               cycles into the write channel, done at the last B
// The accumulator banks are not modelled as a conflict: the lowering gives
// compute and store different banks, and compute has priority on a shared one.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/fpga/perf/dram_timing.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace perf {

// What the compute unit's vector path has beyond the contract: ADD lanes
// per cycle (compute_unit.sv's VEC_LANES).
constexpr uint32_t kVecLanes = 4;

struct UnitContext {
  const contract::AccelConfig* config = nullptr;
  std::array<uint64_t, contract::kBaseSlots> base{};
  ReadChannel* read = nullptr;
  WriteChannel* write = nullptr;
};

// The cycle the command's done pulse rises when its unit starts it in cycle
// `start`; reserves its DMA transfers on the channels. `command` must have a
// valid opcode.
uint64_t CommandDone(const UnitContext& context, const contract::Command& command, uint64_t start);

// Array MACs a CONV issues: N² · oh · ow · cb_count · kh · kw (0 otherwise).
uint64_t ArrayMacs(const contract::AccelConfig& config, const contract::Command& command);

}  // namespace perf
}  // namespace fpga
}  // namespace loom
