// AccelDevice: one Loom accelerator as the engine's FPGA kernels reach it,
// whatever runs it. The interface is what a host driver of the hardware
// needs and nothing more (TVM VTA's driver API, in Loom's words):
//
//   memory     device-visible buffers: a CPU pointer plus the address the
//              accelerator's DMA uses; Flush before the accelerator reads
//              what the CPU wrote, Invalidate before the CPU reads what the
//              accelerator wrote (the Zynq HP ports are not cache coherent)
//   registers  32-bit reads and writes of the AXI4-Lite map (hw/README.md,
//              Register map; offsets in contract::kReg*)
//   completion WaitDone: until the accelerator raises ap_done, with a timeout
//
// Backends (hw/README.md and the `--device` option of `loom run`):
//   fpga-model  the functional model (model_device.h): the executable spec
//   fpga-rtl    the Verilator simulation of hw/rtl (hw/sim/rtl_accel_device.h)
//   fpga-xrt    XRT on a Zynq UltraScale+ board (KV260)
//   fpga-zynq   a Zynq-7000 board without XRT (PYNQ-Z2): UIO or /dev/mem
//               registers and a u-dma-buf buffer
// The run protocol on top of the registers (arguments, ap_start, the error
// and counter registers) is accel_driver.h's, shared by every backend.
//
// Errors are Status values whose message starts with the device's name, so
// "fpga-zynq: /dev/uio0: No such file or directory" reaches the user as is.
// A device is not thread-safe: its users serialize access (the engine holds
// one lock per device around each launch and allocation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

// CTRL bits (ap_ctrl_hs) and the done bit of GIE, IER and ISR.
constexpr uint32_t kApStart = 1u << 0;
constexpr uint32_t kApDone = 1u << 1;
constexpr uint32_t kApIdle = 1u << 2;
constexpr uint32_t kApReady = 1u << 3;
constexpr uint32_t kDoneBit = 1u << 0;

struct DeviceBuffer {
  uint8_t* host = nullptr;      // where the CPU reads and writes it
  uint64_t device_address = 0;  // where the accelerator's DMA sees it
  size_t bytes = 0;
  uint64_t handle = 0;  // the backend's own bookkeeping
};

class AccelDevice {
 public:
  virtual ~AccelDevice() = default;

  // "fpga-model", "fpga-rtl", "fpga-xrt", "fpga-zynq".
  virtual const std::string& name() const = 0;
  // The configuration the hardware implements (read from CONFIG_ID when the
  // device was opened).
  virtual const contract::AccelConfig& config() const = 0;

  // `bytes` (> 0) of device-visible memory aligned to `alignment` (a power
  // of two) in host and device address; a DeviceError naming the size when
  // there is no room. The memory is zeroed.
  virtual Status Allocate(size_t bytes, size_t alignment, DeviceBuffer* out) = 0;
  virtual void Free(const DeviceBuffer& buffer) = 0;
  // [offset, offset + bytes) of buffer: the CPU's writes to the accelerator
  // (Flush), the accelerator's writes to the CPU (Invalidate).
  virtual Status Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) = 0;
  virtual Status Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) = 0;

  virtual Status WriteRegister(uint32_t offset, uint32_t value) = 0;
  virtual Status ReadRegister(uint32_t offset, uint32_t* value) = 0;

  // Returns when ap_done has risen since ap_start (CTRL bit 1 or the
  // interrupt); DeviceError "<name>: no ap_done within <ms> ms" otherwise.
  // timeout_ms 0 waits for ever. Simulated devices count simulated time.
  virtual Status WaitDone(uint32_t timeout_ms) = 0;
};

}  // namespace fpga
}  // namespace loom
