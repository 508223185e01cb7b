#include "tools/loom/device_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

// The names --device takes: cpu and every accelerator backend, fpga-rtl also
// when this loom lacks it (opening it then says how to get it).
std::vector<std::string> DeviceNames() {
#if LOOM_HAVE_RTL
  static const bool registered = [] {
    hw_sim::RegisterRtlAccelDevice();
    return true;
  }();
  (void)registered;
#endif
  std::vector<std::string> names = {"cpu"};
  for (const std::string& name : fpga::AccelDeviceNames()) names.push_back(name);
  if (std::find(names.begin(), names.end(), "fpga-rtl") == names.end()) names.push_back("fpga-rtl");
  return names;
}

// An unknown device, or an option of one backend given for another (a
// forgotten or mistyped --device, which would otherwise be ignored).
Status CheckOptions(const DeviceOptions& o) {
  const std::vector<std::string> names = DeviceNames();
  if (std::find(names.begin(), names.end(), o.device) == names.end()) {
    std::string valid;
    for (const std::string& name : names) valid += (valid.empty() ? "" : ", ") + name;
    return Status::InvalidArgument("unknown device '" + o.device + "' (valid: " + valid + ")");
  }
  const struct {
    const char* flag;
    bool given;
    const char* device;
  } specific[] = {{"--xclbin", !o.xclbin.empty(), "fpga-xrt"},
                  {"--fpga-base", !o.fpga_base.empty(), "fpga-zynq"},
                  {"--fpga-uio", !o.fpga_uio.empty(), "fpga-zynq"},
                  {"--udmabuf", !o.udmabuf.empty(), "fpga-zynq"}};
  for (const auto& option : specific) {
    if (option.given && o.device != option.device) {
      return Status::InvalidArgument(std::string(option.flag) + " is an option of --device " + option.device +
                                     ", not of '" + o.device + "'");
    }
  }
  return Status::Ok();
}

Status OpenRuntime(const DeviceOptions& o, std::shared_ptr<DeviceRuntime>* out) {
  fpga::AccelDeviceOptions options;
  options.name = o.device;
  options.xclbin = o.xclbin;
  options.uio = o.fpga_uio;
  if (!o.udmabuf.empty()) options.udmabuf = o.udmabuf;
  if (!o.fpga_base.empty()) RETURN_IF_ERROR(ParseAddress(o.fpga_base, &options.fpga_base));
#if !LOOM_HAVE_RTL
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
  cmd->add_option("--device", o->device,
                  "Where FPGA nodes run: cpu (default), fpga-model, fpga-rtl, fpga-xrt, fpga-zynq");
  cmd->add_option("--xclbin", o->xclbin, "fpga-xrt: the accelerator's xclbin");
  cmd->add_option("--fpga-base", o->fpga_base, "fpga-zynq: the accelerator's register base address for /dev/mem");
  cmd->add_option("--fpga-uio", o->fpga_uio, "fpga-zynq: reach the registers through this UIO device instead");
  cmd->add_option("--udmabuf", o->udmabuf, "fpga-zynq: the DMA buffer device (default /dev/udmabuf0)");
  cmd->add_flag("--allow-cpu-fallback", o->allow_cpu_fallback,
                "Run FPGA nodes on the CPU when the device is absent or another accelerator");
  cmd->add_flag("--check-all-constants", o->check_all_constants,
                "Check every byte of the plan's constants while loading, not only those the kernels read");
}

Status LoadEngineOn(const std::string& plan, const DeviceOptions& o, std::shared_ptr<const Engine>* engine) {
  LoadOptions options;
  options.registry = &fpga::FpgaKernelRegistry();
  options.allow_cpu_fallback = o.allow_cpu_fallback;
  options.check_all_constants = o.check_all_constants;
  RETURN_IF_ERROR(CheckOptions(o));
  if (o.device != "cpu") RETURN_IF_ERROR(OpenRuntime(o, &options.device));
  RETURN_IF_ERROR(Engine::Load(plan, options, engine));
  for (const std::string& note : (*engine)->notes()) std::fprintf(stderr, "loom: note: %s\n", note.c_str());
  return Status::Ok();
}

}  // namespace cli
}  // namespace loom
