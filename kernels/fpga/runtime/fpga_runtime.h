// The accelerator behind the kernel contract's device seam
// (kernels/common/device_context.h):
//
//   FpgaDeviceConfig  a contract configuration as a DeviceConfig: what the
//                     builder's fpga16/fpga32 targets prepare FPGA nodes for,
//                     and what a loaded device reports. Its fingerprint names
//                     the configuration and its CONFIG_ID, so an engine
//                     refuses a plan built for another accelerator.
//   FpgaRuntime       an opened AccelDevice as the engine's DeviceRuntime:
//                     device-visible arenas from the device's memory, and
//                     launches serialized by one lock, so contexts on several
//                     threads can share the device.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/common/device_context.h"
#include "kernels/fpga/device/accel_device.h"
#include "kernels/fpga/device/accel_driver.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

class FpgaDeviceConfig final : public DeviceConfig {
 public:
  // `clock_mhz` 0 means the configuration's own clock (contract::AccelConfig).
  explicit FpgaDeviceConfig(const contract::AccelConfig& config, double clock_mhz = 0)
      : config_(config), clock_mhz_(clock_mhz > 0 ? clock_mhz : config.clock_mhz) {}

  Device device() const override { return Device::kFpga; }
  // "fpga16" for a 16x16 array, "fpga32" for 32x32.
  std::string name() const override;
  // "loom-accel <config> 0x<CONFIG_ID>", e.g. "loom-accel pynq_z2 0x0E3B8988".
  std::string fingerprint() const override;

  double clock_mhz() const override { return clock_mhz_; }

  const contract::AccelConfig& accel() const { return config_; }

 private:
  const contract::AccelConfig config_;
  const double clock_mhz_;
};

// The fingerprint of a configuration (FpgaDeviceConfig::fingerprint()).
std::string AccelFingerprint(const contract::AccelConfig& config);

class FpgaRuntime final : public DeviceRuntime, private MemoryAllocator {
 public:
  explicit FpgaRuntime(std::unique_ptr<AccelDevice> device);
  ~FpgaRuntime() override;

  const DeviceConfig& config() const override { return config_; }
  MemoryAllocator& allocator() override { return *this; }

  const std::string& name() const { return device_->name(); }
  // How long the FPGA kernels wait for one launch (LaunchArgs::timeout_ms;
  // 0 waits for ever): a hung accelerator then fails the run with a
  // DeviceError instead of blocking it. Simulated backends count simulated
  // time. May change between runs, from any thread.
  uint32_t launch_timeout_ms() const { return launch_timeout_ms_.load(); }
  void set_launch_timeout_ms(uint32_t ms) { launch_timeout_ms_.store(ms); }

  // One run on the device, under the device lock.
  Status Launch(const LaunchArgs& args, LaunchResult* result);
  // fpga::WaitIdle with the launch timeout, under the device lock: before a
  // kernel flushes a context's arena, so that a run abandoned after a
  // timeout, still writing that arena, ends before the new inputs go out.
  Status WaitIdle();
  // Device memory and cache maintenance, under the device lock (what
  // kernels use for their constants and at CPU<->FPGA boundaries).
  Status AllocateBuffer(size_t bytes, size_t alignment, DeviceBuffer* out);
  void FreeBuffer(const DeviceBuffer& buffer);
  Status Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes);
  Status Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes);
  // The same for a block this runtime's allocator() handed out (an
  // execution context's arena); InvalidArgument for
  // any other block, e.g. an arena from a caller's host allocator.
  Status FlushBlock(const MemoryBlock& block, size_t offset, size_t bytes);
  Status InvalidateBlock(const MemoryBlock& block, size_t offset, size_t bytes);

 private:
  // MemoryAllocator: device-visible blocks (kHost too: the device's memory
  // serves both).
  Status Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) override;
  void Free(const MemoryBlock& block) override;
  Status NotOurs(const MemoryBlock& block) const;

  std::unique_ptr<AccelDevice> device_;
  FpgaDeviceConfig config_;
  std::mutex mutex_;
  std::atomic<uint32_t> launch_timeout_ms_{kDefaultLaunchTimeoutMs};
  std::map<const void*, DeviceBuffer> blocks_;  // MemoryBlock host pointer -> its buffer
};

}  // namespace fpga
}  // namespace loom
