#include "tools/loom/device_options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "kernels/fpga/device/device_factory.h"
#include "kernels/fpga/kernels/fpga_kernels.h"
#include "kernels/fpga/runtime/fpga_runtime.h"

#if LOOM_HAVE_RTL
#include "hw/sim/rtl_accel_device.h"
#endif

namespace loom {
namespace cli {
namespace {

Status ParseAddress(const std::string& text, uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || errno != 0 || end == nullptr || *end != '\0')
    return Status::InvalidArgument("--fpga-base '" + text + "' is not an address (e.g. 0x43C00000)");
  *out = v;
  return Status::Ok();
}

Status OpenRuntime(const DeviceOptions& o, std::shared_ptr<DeviceRuntime>* out) {
  fpga::AccelDeviceOptions options;
  options.name = o.device;
  options.xclbin = o.xclbin;
  options.uio = o.fpga_uio;
  options.udmabuf = o.udmabuf;
  if (!o.fpga_base.empty()) RETURN_IF_ERROR(ParseAddress(o.fpga_base, &options.fpga_base));
#if LOOM_HAVE_RTL
  static const bool registered = [] {
    hw_sim::RegisterRtlAccelDevice();
    return true;
  }();
  (void)registered;
#else
  if (o.device == "fpga-rtl")
    return Status::Unsupported("device fpga-rtl: this loom was built without Verilator (install verilator, rebuild)");
#endif
  std::unique_ptr<fpga::AccelDevice> device;
  RETURN_IF_ERROR(fpga::OpenAccelDevice(options, &device));
  *out = std::make_shared<fpga::FpgaRuntime>(std::move(device));
  return Status::Ok();
}

}  // namespace

void AddDeviceOptions(CLI::App* cmd, DeviceOptions* o) {
  cmd->add_option("--device", o->device, "Where FPGA nodes run: cpu (default), fpga-model, fpga-rtl, fpga-xrt, fpga-zynq");
  cmd->add_option("--xclbin", o->xclbin, "fpga-xrt: the accelerator's xclbin");
  cmd->add_option("--fpga-base", o->fpga_base, "fpga-zynq: the accelerator's register base address for /dev/mem");
  cmd->add_option("--fpga-uio", o->fpga_uio, "fpga-zynq: reach the registers through this UIO device instead");
  cmd->add_option("--udmabuf", o->udmabuf, "fpga-zynq: the DMA buffer device (default /dev/udmabuf0)");
  cmd->add_flag("--allow-cpu-fallback", o->allow_cpu_fallback,
                "Run FPGA nodes on the CPU when the device is absent or another accelerator");
}

Status LoadEngineOn(const std::string& plan, const DeviceOptions& o, std::shared_ptr<const Engine>* engine) {
  LoadOptions options;
  options.registry = &fpga::FpgaKernelRegistry();
  options.allow_cpu_fallback = o.allow_cpu_fallback;
  if (o.device != "cpu") RETURN_IF_ERROR(OpenRuntime(o, &options.device));
  RETURN_IF_ERROR(Engine::Load(plan, options, engine));
  for (const std::string& note : (*engine)->notes()) std::fprintf(stderr, "loom: note: %s\n", note.c_str());
  return Status::Ok();
}

}  // namespace cli
}  // namespace loom
