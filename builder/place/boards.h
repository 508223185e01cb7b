// The boards behind the accelerator targets, as the placer's cost model
// needs them when nothing was measured: the CPU's roofline (one thread, the
// CLI's default), and what a hand-over between the CPU and the accelerator
// costs besides the layout conversion (cache maintenance, a launch).
// boards.cc says where each number comes from; a timing cache measured on
// the board (`loom bench --write-timing-cache`) replaces the CPU times.
#pragma once

#include <string>
#include <vector>

#include "builder/place/cost_model.h"

namespace loom {
namespace place {

struct BoardSpec {
  std::string target;        // "fpga16": the `loom build --target` name
  std::string board;         // "PYNQ-Z2"
  std::string accel_config;  // the contract configuration: "pynq_z2"
  CpuSpec cpu;
  // One accelerator launch from the CPU: the run registers written over
  // AXI-Lite, ap_start, the done interrupt reaching the waiting thread, the
  // status and counters read back.
  double launch_us = 0;
  // One cache flush or invalidate of a device-visible range: the fixed cost
  // of the call, then bytes at the maintenance rate.
  double cache_call_us = 0;
  double cache_gbytes = 1;
};

// Every board with an accelerator target, in TargetNames() order.
const std::vector<BoardSpec>& Boards();
// The board of target `name`, or null.
const BoardSpec* FindBoard(const std::string& target);

}  // namespace place
}  // namespace loom
