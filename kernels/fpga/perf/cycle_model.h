// CycleModel: the accelerator's analytic performance model. It predicts the
// cycles from ap_start to ap_done of a command stream without simulating the
// RTL: each command's duration is a closed form of its fields
// (unit_timing.h: array fill and drain, tile periods, requantization lanes)
// and of its DMA transfers (dram_timing.h: bytes, burst splitting, latency
// and the outstanding-burst window of the memory), and the commands are
// placed on the three units' timelines the way the hardware orders them:
//
//   fetch     reads the stream in 16-beat bursts (two in flight) and
//             dispatches one command per 256 / axi_data_bits cycles into its
//             unit's queue, waiting while that queue is full (queue_depth)
//   units     start their head command two cycles after their previous done,
//             once its pop tokens have arrived and its push FIFOs have room
//   tokens    become visible one cycle after the done that pushes them
//
// The timelines are filled event by event in order of start cycle, which is
// exact for the dependency structure (a command can only be enabled by an
// earlier event); the approximations are in the closed forms and in the DMA,
// where transfers are booked when their command starts rather than
// interleaved beat by beat with other units' (the command fetch's reads are
// not booked at all: they are small and overlap the loads).
//
// The builder's placer uses it per layer; hw/sim's tests report its error
// against the RTL (hw.rtl_device, hw.rtl_device_long).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/fpga/perf/dram_timing.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace perf {

struct CycleModelOptions {
  DramTiming dram;
  std::array<uint64_t, contract::kBaseSlots> base{};  // BASE0..3 (only their offsets within 4 KB matter)
  bool record_commands = false;                       // fill CycleEstimate::commands
};

struct CommandSpan {
  uint32_t index = 0;  // in the stream
  contract::Opcode opcode = contract::Opcode::kConv;
  uint64_t dispatched = 0, start = 0, done = 0;
};

struct CycleEstimate {
  uint64_t cycles = 0;             // ap_start to ap_done
  std::array<uint64_t, 3> busy{};  // per unit (contract::Queue), as the *_BUSY counters
  uint64_t dma_read_bytes = 0;     // LOAD_* transfers and the command fetch
  uint64_t dma_write_bytes = 0;
  uint64_t array_macs = 0;            // N² per activation vector the array takes
  std::vector<CommandSpan> commands;  // with record_commands

  // array_macs / (N² · cycles): the share of the array's peak in use.
  double ArrayUtilization(uint32_t n) const {
    return cycles == 0 ? 0.0 : static_cast<double>(array_macs) / (double(n) * n * double(cycles));
  }
  double Milliseconds(uint32_t clock_mhz) const { return cycles / (clock_mhz * 1e3); }
};

// Predicts the run of `commands` (a well-formed stream: check it on the
// functional model first). InvalidArgument for an unknown opcode or token
// flags towards a missing neighbour, naming the command; FailedPrecondition-
// like InvalidArgument when the tokens deadlock.
Status EstimateCycles(const contract::AccelConfig& config, const std::vector<contract::Command>& commands,
                      const CycleModelOptions& options, CycleEstimate* estimate);

}  // namespace perf
}  // namespace fpga
}  // namespace loom
