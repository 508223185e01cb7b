// HostDeviceMemory: DRAM as the CPU and the accelerator see it on a board
// without cache coherence (the Zynq HP ports): two views of the same
// addresses. The test (host) side writes and reads host(); the AXI models
// serve device(). Nothing moves between them except through SyncToDevice
// (the host's cache flush before the accelerator reads) and SyncFromDevice
// (the invalidate before the host reads what it wrote), so a test that forgets
// either sees stale data, as the board would.
// Both views are fpga::DeviceMemory, the byte array the functional model runs
// on, so a test can run the model on a copy of device() and compare.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "kernels/fpga/model/device_memory.h"

namespace loom {
namespace hw_sim {

class HostDeviceMemory {
 public:
  explicit HostDeviceMemory(size_t size, uint64_t base = fpga::DeviceMemory::kDefaultBase)
      : host_(size, base), device_(size, base) {}

  fpga::DeviceMemory& host() { return host_; }
  fpga::DeviceMemory& device() { return device_; }
  uint64_t base() const { return host_.base(); }
  size_t size() const { return host_.size(); }

  // Copies [addr, addr + bytes) from the host view to the device view.
  Status SyncToDevice(uint64_t addr, size_t bytes);
  // Copies [addr, addr + bytes) from the device view to the host view.
  Status SyncFromDevice(uint64_t addr, size_t bytes);

 private:
  fpga::DeviceMemory host_;
  fpga::DeviceMemory device_;
};

}  // namespace hw_sim
}  // namespace loom
