// The device seam of the kernel contract: how a kernel learns which device it
// runs on and reaches it, without the contract knowing any particular device.
//
//   DeviceConfig     what the device is, at build time and at load time: the
//                    target's configuration of the device a node is placed on
//                    (the CPU has nothing to configure; an accelerator has its
//                    array size, buffer depths, clock and config id). Prepare
//                    reads it through KernelSetup::device().
//   DeviceRuntime    the device at run time, handed to every Run through
//                    KernelArgs::device so a device kernel can reach the
//                    hardware (registers, device addresses of the arena).
//   MemoryAllocator  where an ExecutionContext gets its arena: host memory by
//                    default; a device implements it with device-visible
//                    memory so its kernels read and write activations in place.
//                    Called when a context is created, never during Run.
//
// Accelerator backends derive from these; CPU kernels ignore them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/device.h"
#include "common/status.h"

namespace loom {

class DeviceConfig {
 public:
  virtual ~DeviceConfig() = default;
  virtual Device device() const = 0;
  // Names the configuration in messages: "cpu", "fpga16".
  virtual std::string name() const = 0;
  // Identifies the exact hardware configuration kernels were prepared for
  // (plans record the accelerator's, and an engine refuses a plan made for
  // another one). Empty for the CPU.
  virtual std::string fingerprint() const { return std::string(); }
  // The clock the device's predictions assume, in MHz (0 for the CPU).
  virtual double clock_mhz() const { return 0; }
};

// The CPU's configuration: what KernelSetup::device() returns by default.
const DeviceConfig& CpuDeviceConfig();

// A block of memory from a MemoryAllocator.
struct MemoryBlock {
  void* host = nullptr;         // where the CPU reads and writes it
  uint64_t device_address = 0;  // where the device sees it (0 for host memory)
  size_t bytes = 0;
  MemorySpace space = MemorySpace::kHost;
  void* handle = nullptr;       // the allocator's own bookkeeping
};

class MemoryAllocator {
 public:
  virtual ~MemoryAllocator() = default;
  // Allocates `bytes` (may be 0) aligned to `alignment` in `space`, or fails
  // with a message naming what was asked for. An allocator that cannot
  // provide `space` returns Status::Unsupported.
  virtual Status Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) = 0;
  virtual void Free(const MemoryBlock& block) = 0;
};

// Plain aligned host memory; refuses MemorySpace::kDeviceVisible.
MemoryAllocator& HostMemoryAllocator();

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;
  virtual const DeviceConfig& config() const = 0;
  // Device-visible memory for the arenas of contexts that run on this device.
  virtual MemoryAllocator& allocator() = 0;
};

}  // namespace loom
