// What one accelerator launch did, as a device kernel reports it through
// KernelArgs::stats and ExecutionContext::profile() shows it: the device's
// counters and the work the launch carried.
#pragma once

#include <cstdint>

namespace loom {

// Nodes that joined an earlier node's launch, and CPU nodes, have none.
struct DeviceRunStats {
  bool launched = false;
  int nodes = 0;                 // plan nodes the launch computed
  uint64_t cycles = 0;           // ap_start to ap_done, at the device's clock
  uint64_t busy[3] = {0, 0, 0};  // load, compute and store units
  uint64_t dma_read_bytes = 0;
  uint64_t dma_write_bytes = 0;
  uint64_t array_macs = 0;  // MACs the array issued (padding included)
  uint64_t macs = 0;        // the nodes' own MACs
  uint32_t array_n = 0;     // N of the N x N array
  double clock_mhz = 0;     // the configuration's clock: cycles / clock is the time on the board

  // array_macs / (N² · cycles): the share of the array's peak in use.
  double Utilization() const {
    return cycles == 0 || array_n == 0 ? 0.0 : double(array_macs) / (double(array_n) * array_n * double(cycles));
  }
  double BoardMs() const { return clock_mhz <= 0 ? 0.0 : double(cycles) / (clock_mhz * 1e3); }
};

}  // namespace loom
