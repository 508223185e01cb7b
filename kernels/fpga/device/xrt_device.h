// XrtDevice (`--device fpga-xrt`): the accelerator on a Zynq UltraScale+
// board running XRT (KV260), as the `loom_accel` RTL kernel that
// hw/board/kv260/build.sh links into loom_accel.xclbin.
//
// Opening loads the xclbin on xrt::device(index) and takes the kernel's
// compute unit as an xrt::ip: register-level access (the run protocol is
// accel_driver.h's, the same as every backend's, so XRT's own run/argument
// machinery is not used). Buffers are xrt::bo in the memory bank the
// kernel's m_axi_gmem port is connected to (from the xclbin); Flush and
// Invalidate are bo syncs to and from the device. WaitDone waits for the
// IP's interrupt when this XRT offers it (xrt::ip::create_interrupt_notify)
// and polls CTRL's ap_done otherwise.
//
// XRT reports errors by exceptions; none leaves this backend: each becomes
// one DeviceError naming the device and what failed, e.g.
// "fpga-xrt: cannot open device 0: <XRT's reason>".
//
// Built only when XRT is found (library loom_fpga_device_xrt); this header
// needs no XRT header.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "kernels/fpga/device/accel_device.h"

namespace loom {
namespace fpga {

struct XrtDeviceOptions {
  std::string xclbin;             // path of loom_accel.xclbin
  unsigned int device_index = 0;  // xrt::device(index)
  // Wait for the IP's interrupt when XRT supports it; false polls CTRL.
  bool interrupt = true;
  // The memory bank (xrt::bo group) for buffers; -1: the one the kernel's
  // first argument (the command stream, on m_axi_gmem) is connected to.
  int memory_group = -1;
};

class XrtDevice {
 public:
  // The kernel's name in the xclbin (hw/board/kv260/kernel.xml).
  static constexpr const char* kKernelName = "loom_accel";

  // Opens the device, loads the xclbin, opens the IP and identifies the
  // accelerator (accel_driver.h's Identify): an unknown CONFIG_ID is refused.
  static Status Open(const XrtDeviceOptions& options, std::unique_ptr<AccelDevice>* out);
};

}  // namespace fpga
}  // namespace loom
