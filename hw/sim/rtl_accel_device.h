// RtlAccelDevice (`--device fpga-rtl`): the accelerator's RTL, Verilated
// (RtlDevice, rtl_device.h), as an AccelDevice, so the engine drives the
// simulated hardware through the same driver code (kernels/fpga/device/
// accel_driver.h) as a board: every register access is an AXI-Lite
// transaction on the RTL's slave, and WaitDone runs the clock until the
// interrupt pin rises.
//
// Memory is a HostDeviceMemory: the CPU's view (DeviceBuffer::host) and the
// view the AXI DDR model serves are separate, so Flush and Invalidate are
// the only way data crosses, as on a Zynq without cache coherence. Timeouts
// are simulated time at the configuration's clock (100 MHz for pynq_z2:
// 1 ms is 100,000 cycles). The RTL is Verilated for pynq_z2 only.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "hw/sim/host_device_memory.h"
#include "hw/sim/rtl_device.h"
#include "kernels/fpga/device/accel_device.h"
#include "kernels/fpga/device/device_factory.h"
#include "kernels/fpga/device/first_fit_allocator.h"

namespace loom {
namespace hw_sim {

struct RtlAccelDeviceOptions {
  size_t memory_bytes = size_t{64} << 20;
  uint64_t memory_base = fpga::DeviceMemory::kDefaultBase;
  RtlDeviceOptions rtl;  // the DDR model's timing, hang detection, trace name
};

class RtlAccelDevice : public fpga::AccelDevice {
 public:
  // The device, identified (CONFIG_ID, VERSION) over AXI-Lite.
  static Status Open(const RtlAccelDeviceOptions& options, std::unique_ptr<fpga::AccelDevice>* out);

  const std::string& name() const override { return name_; }
  const fpga::contract::AccelConfig& config() const override { return config_; }

  Status Allocate(size_t bytes, size_t alignment, fpga::DeviceBuffer* out) override;
  void Free(const fpga::DeviceBuffer& buffer) override;
  Status Flush(const fpga::DeviceBuffer& buffer, size_t offset, size_t bytes) override;
  Status Invalidate(const fpga::DeviceBuffer& buffer, size_t offset, size_t bytes) override;

  Status WriteRegister(uint32_t offset, uint32_t value) override;
  Status ReadRegister(uint32_t offset, uint32_t* value) override;
  Status WaitDone(uint32_t timeout_ms) override;

  RtlDevice& rtl() { return *rtl_; }

 private:
  RtlAccelDevice(const fpga::contract::AccelConfig& config, const RtlAccelDeviceOptions& options);
  Status CheckBuffer(const fpga::DeviceBuffer& buffer, size_t offset, size_t bytes, const char* what) const;
  Status Named(const Status& status) const;

  const fpga::contract::AccelConfig config_;
  const std::string name_ = "fpga-rtl";
  const RtlAccelDeviceOptions options_;
  HostDeviceMemory memory_;
  fpga::FirstFitAllocator allocator_;
  std::unique_ptr<RtlDevice> rtl_;
};

// Makes OpenAccelDevice("fpga-rtl") open an RtlAccelDevice (the factory's
// model_memory_bytes sizes its memory). Call once, before opening.
void RegisterRtlAccelDevice();

}  // namespace hw_sim
}  // namespace loom
