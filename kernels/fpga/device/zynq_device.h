// ZynqDevice (`--device fpga-zynq`): the accelerator on a Zynq-7000 board
// without XRT (PYNQ-Z2: hw/board/pynq_z2 puts its AXI-Lite slave on M_AXI_GP0
// and its master on S_AXI_HP0), reached with POSIX calls only (open, mmap,
// pread, pwrite, poll), so it builds for every target, armhf included.
//
// Registers: the accelerator's AXI-Lite window mapped into the process,
// either through a UIO node (/dev/uioN, map 0; its size from
// <sysfs>/uio/uioN/maps/map0/size) or through /dev/mem at the window's
// physical address (--fpga-base, page aligned; root only). Accesses are
// volatile 32-bit loads and stores.
//
// Memory: one physically contiguous u-dma-buf buffer (/dev/udmabuf0), mapped
// cached; its physical address and size from
// <sysfs>/u-dma-buf/<name>/{phys_addr,size} (or <sysfs>/udmabuf/<name>/, the
// driver's older name). Allocations are first-fit in that buffer and zeroed.
// The HP ports are not cache coherent: Flush and Invalidate go through the
// driver's sysfs sync interface (sync_offset, sync_size, sync_direction, then
// sync_for_device or sync_for_cpu).
//
// Completion: WaitDone polls CTRL's ap_done with the timeout, or, with
// uio_interrupt, waits for the UIO interrupt (read() on the node; the device
// tree must route the accelerator's interrupt to that UIO node).
//
// Every path is an option, so the tests run the real code against ordinary
// files standing in for the device nodes and sysfs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "kernels/fpga/device/accel_device.h"

namespace loom {
namespace fpga {

struct ZynqDeviceOptions {
  // Registers: a UIO node ("/dev/uio0"); when empty, `mem` at physical_base.
  std::string uio;
  uint64_t physical_base = 0;                 // e.g. 0x43C00000: the accelerator's AXI-Lite base address
  size_t register_window = size_t{64} << 10;  // bytes mapped at physical_base
  std::string mem = "/dev/mem";
  // Memory: the u-dma-buf device node; its sysfs directory is found by the
  // node's name under `sysfs`.
  std::string udmabuf = "/dev/udmabuf0";
  // The sysfs class directory (uio/, u-dma-buf/, udmabuf/ below it).
  std::string sysfs = "/sys/class";
  // Wait for the UIO interrupt instead of polling CTRL (UIO only).
  bool uio_interrupt = false;
};

class ZynqDevice {
 public:
  // Maps the registers and the buffer, then identifies the accelerator
  // (accel_driver.h's Identify): an unknown CONFIG_ID is refused. Every
  // failure is one Status whose message starts with "fpga-zynq:" and names
  // the path and the system's reason.
  static Status Open(const ZynqDeviceOptions& options, std::unique_ptr<AccelDevice>* out);
};

}  // namespace fpga
}  // namespace loom
