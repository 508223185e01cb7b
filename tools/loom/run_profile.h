// `loom run --profile` and `--trace FILE.json`: what one profiled run did.
//   PrintProfile  a table per node (device, host time; for accelerator
//                 launches the counters: cycles, array utilization, DMA
//                 bytes, time at the configuration's clock), then totals and,
//                 for the simulated backends, the projected on-board latency
//   WriteTrace    a Chrome / Perfetto trace (chrome://tracing, ui.perfetto.dev)
//                 with a CPU track and an FPGA track
#pragma once

#include <string>

#include "common/status.h"
#include "loom/engine.h"

namespace loom {
namespace cli {

// `simulated`: the device is fpga-model or fpga-rtl, whose host times say
// nothing about the board, so the projection uses the counters.
void PrintProfile(const Engine& engine, const ExecutionContext& ctx, bool simulated);

Status WriteTrace(const Engine& engine, const ExecutionContext& ctx, const std::string& path);

}  // namespace cli
}  // namespace loom
