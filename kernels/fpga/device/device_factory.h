// OpenAccelDevice: an AccelDevice by its name (`loom run --device NAME`) and
// the options of all backends, so the engine and the tools open any backend
// with one call:
//
//   fpga-model  the functional model (model_device.h), always built
//   fpga-xrt    XRT on a Zynq UltraScale+ board (xrt_device.h), built when
//               XRT is found (LOOM_HAVE_XRT)
//   fpga-zynq   a Zynq-7000 board through UIO or /dev/mem and u-dma-buf
//               (zynq_device.h), always built
//
// Backends that live outside this library (the Verilator simulation of the
// RTL, "fpga-rtl", from hw/sim) register an opener with
// RegisterAccelDeviceOpener before the first OpenAccelDevice call; an
// opener registered under a built-in name replaces the built-in backend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/fpga/device/accel_device.h"

namespace loom {
namespace fpga {

struct AccelDeviceOptions {
  std::string name = "fpga-model";  // the backend
  // The configuration the hardware must implement ("pynq_z2", "kv260"); empty
  // accepts any configuration this Loom knows. A board that identifies as
  // another one is refused, naming both.
  std::string expect_config;

  // fpga-model: the configuration to model.
  std::string model_config = "pynq_z2";
  size_t model_memory_bytes = size_t{64} << 20;

  // fpga-xrt
  std::string xclbin;  // --xclbin: loom_accel.xclbin
  unsigned int xrt_device_index = 0;

  // fpga-zynq: the registers through a UIO node, or /dev/mem at fpga_base.
  std::string uio;         // --fpga-uio /dev/uio0
  uint64_t fpga_base = 0;  // --fpga-base 0x43C00000
  std::string udmabuf = "/dev/udmabuf0";
  std::string sysfs = "/sys/class";  // where uio/ and u-dma-buf/ are (tests point it elsewhere)
  bool uio_interrupt = false;
};

// Opens options.name. Unknown names are InvalidArgument listing the valid
// ones; a backend this build lacks is Unsupported, saying how to get it.
Status OpenAccelDevice(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out);

// The backend names: the built-in ones, then the registered ones (a name
// may still be Unsupported in this build, as fpga-xrt without XRT).
std::vector<std::string> AccelDeviceNames();

using AccelDeviceOpener = Status (*)(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out);

// Makes OpenAccelDevice open `name` with `opener` (nullptr removes it again).
// Thread-safe.
void RegisterAccelDeviceOpener(const std::string& name, AccelDeviceOpener opener);

}  // namespace fpga
}  // namespace loom
