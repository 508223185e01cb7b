// ModelDevice (`--device fpga-model`): the functional model (AccelModel)
// behind the accelerator's registers, so plans run bit-exactly without a
// board through the same driver code (accel_driver.h) a board uses.
//
// Memory: two views of one device-visible address range, as on a Zynq
// without cache coherence: the CPU reads and writes the host view (what
// DeviceBuffer::host points into), the model runs on the device view, and
// only Flush (host -> device) and Invalidate (device -> host) copy between
// them, so a missing cache operation gives stale data here as on the board.
// Allocation is first-fit over the range; freed blocks are reused.
//
// Registers: the ap_ctrl_hs map of hw/README.md. Writing ap_start runs the
// whole command stream at once; ap_done, the ISR bit and the interrupt are
// then set, ERROR/ERROR_CMD hold the model's error, the DMA byte counters
// its traffic, and CYCLES and the busy counters the analytic cycle model's
// prediction for the same stream (kernels/fpga/perf), so profiles show the
// projected on-board time (stall counters read 0).
//
// Faults, for testing the engine's error paths: a start that is never
// acknowledged or never finishes (WaitDone times out at once: simulated
// time), a forced error register, another CONFIG_ID, an allocation that
// fails after a number of successful ones. faults() may change them between
// runs (not config_id: CONFIG_ID is set when the device is made). A run held
// by never_done is a run that is slow, not dead: once never_done is cleared
// it finishes at the next WaitDone, as a late run would on a board.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "kernels/fpga/device/accel_device.h"
#include "kernels/fpga/device/first_fit_allocator.h"
#include "kernels/fpga/model/accel_model.h"
#include "kernels/fpga/model/device_memory.h"
#include "kernels/fpga/perf/dram_timing.h"

namespace loom {
namespace fpga {

struct ModelDeviceFaults {
  bool ignore_start = false;  // ap_start is never acknowledged (ap_idle stays, no ap_done)
  bool never_done = false;    // the run starts but ap_done does not rise while this is set
  contract::ErrorCode force_error = contract::ErrorCode::kNone;  // reported after a good run
  uint32_t force_error_cmd = 0;
  uint32_t config_id = 0;          // nonzero: what CONFIG_ID reads instead
  int fail_allocation_after = -1;  // >= 0: that many allocations succeed, then every one fails
};

struct ModelDeviceOptions {
  size_t memory_bytes = size_t{64} << 20;
  uint64_t memory_base = DeviceMemory::kDefaultBase;
  perf::DramTiming dram;  // for the projected cycles
  ModelDeviceFaults faults;
};

class ModelDevice : public AccelDevice {
 public:
  ModelDevice(const contract::AccelConfig& config, ModelDeviceOptions options = {});
  ~ModelDevice() override;

  const std::string& name() const override { return name_; }
  const contract::AccelConfig& config() const override { return config_; }

  Status Allocate(size_t bytes, size_t alignment, DeviceBuffer* out) override;
  void Free(const DeviceBuffer& buffer) override;
  Status Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) override;
  Status Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) override;

  Status WriteRegister(uint32_t offset, uint32_t value) override;
  Status ReadRegister(uint32_t offset, uint32_t* value) override;
  Status WaitDone(uint32_t timeout_ms) override;

  // The model's description of the last run's error ("" when none), finer
  // than the ERROR register: "command 12 (CONV): input row 70000 past ...".
  const std::string& last_error_detail() const { return last_error_detail_; }
  ModelDeviceFaults& faults() { return options_.faults; }

 private:
  void RunModel();
  Status CheckBuffer(const DeviceBuffer& buffer, size_t offset, size_t bytes, const char* what) const;

  const contract::AccelConfig config_;
  const std::string name_ = "fpga-model";
  ModelDeviceOptions options_;
  DeviceMemory host_;
  DeviceMemory device_;
  std::unique_ptr<AccelModel> model_;
  FirstFitAllocator allocator_;
  int allocations_ = 0;
  std::map<uint32_t, uint32_t> registers_;  // the 32-bit words of the register map
  bool running_ = false;                    // ap_start taken, ap_done not yet
  std::string last_error_detail_;
};

}  // namespace fpga
}  // namespace loom
