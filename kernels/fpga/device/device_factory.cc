#include "kernels/fpga/device/device_factory.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "kernels/fpga/device/model_device.h"
#include "kernels/fpga/device/zynq_device.h"
#include "loom/fpga/accel_contract.h"
#ifdef LOOM_HAVE_XRT
#include "kernels/fpga/device/xrt_device.h"
#endif

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

const char* const kBuiltIn[] = {"fpga-model", "fpga-xrt", "fpga-zynq"};

struct Registry {
  std::mutex mutex;
  std::map<std::string, AccelDeviceOpener> openers;
};

Registry& Openers() {
  static Registry* registry = new Registry;  // never destroyed: usable during static destruction
  return *registry;
}

AccelDeviceOpener FindOpener(const std::string& name) {
  Registry& registry = Openers();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.openers.find(name);
  return it == registry.openers.end() ? nullptr : it->second;
}

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%08llX", static_cast<unsigned long long>(value));
  return text;
}

std::string KnownConfigs() {
  std::string names;
  for (const c::AccelConfig& config : c::kConfigs) names += std::string(names.empty() ? "" : ", ") + config.name;
  return names;
}

Status OpenModel(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
  const c::AccelConfig* config = c::FindConfig(options.model_config.c_str());
  if (config == nullptr) {
    return Status::InvalidArgument("fpga-model: no accelerator configuration '" + options.model_config +
                                   "' (known: " + KnownConfigs() + ")");
  }
  ModelDeviceOptions model;
  model.memory_bytes = options.model_memory_bytes;
  *out = std::make_unique<ModelDevice>(*config, model);
  return Status::Ok();
}

Status OpenXrt(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
#ifdef LOOM_HAVE_XRT
  XrtDeviceOptions xrt;
  xrt.xclbin = options.xclbin;
  xrt.device_index = options.xrt_device_index;
  return XrtDevice::Open(xrt, out);
#else
  (void)options;
  (void)out;
  return Status::Unsupported("fpga-xrt: this Loom was built without XRT (install libxrt-dev and rebuild)");
#endif
}

Status OpenZynq(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
  ZynqDeviceOptions zynq;
  zynq.uio = options.uio;
  zynq.physical_base = options.fpga_base;
  zynq.udmabuf = options.udmabuf;
  zynq.sysfs = options.sysfs;
  zynq.uio_interrupt = options.uio_interrupt;
  return ZynqDevice::Open(zynq, out);
}

}  // namespace

std::vector<std::string> AccelDeviceNames() {
  std::vector<std::string> names(std::begin(kBuiltIn), std::end(kBuiltIn));
  Registry& registry = Openers();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const auto& [name, opener] : registry.openers) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

void RegisterAccelDeviceOpener(const std::string& name, AccelDeviceOpener opener) {
  Registry& registry = Openers();
  std::lock_guard<std::mutex> lock(registry.mutex);
  if (opener == nullptr) {
    registry.openers.erase(name);
  } else {
    registry.openers[name] = opener;
  }
}

Status OpenAccelDevice(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
  const c::AccelConfig* expected = nullptr;
  if (!options.expect_config.empty()) {
    expected = c::FindConfig(options.expect_config.c_str());
    if (expected == nullptr) {
      return Status::InvalidArgument(options.name + ": no accelerator configuration '" + options.expect_config +
                                     "' (known: " + KnownConfigs() + ")");
    }
  }

  std::unique_ptr<AccelDevice> device;
  if (AccelDeviceOpener opener = FindOpener(options.name)) {
    RETURN_IF_ERROR(opener(options, &device));
  } else if (options.name == "fpga-model") {
    RETURN_IF_ERROR(OpenModel(options, &device));
  } else if (options.name == "fpga-xrt") {
    RETURN_IF_ERROR(OpenXrt(options, &device));
  } else if (options.name == "fpga-zynq") {
    RETURN_IF_ERROR(OpenZynq(options, &device));
  } else if (options.name == "fpga-rtl") {
    return Status::Unsupported(
        "fpga-rtl: this program was built without the RTL simulation (the hw/sim backend registers it)");
  } else {
    std::string valid;
    for (const std::string& name : AccelDeviceNames()) valid += (valid.empty() ? "" : ", ") + name;
    return Status::InvalidArgument("unknown accelerator device '" + options.name + "' (valid: " + valid + ")");
  }

  if (expected != nullptr && device->config().config_id != expected->config_id) {
    const c::AccelConfig& found = device->config();
    return Status::DeviceError(device->name() + ": the hardware implements " + found.name + " (CONFIG_ID " +
                               Hex(found.config_id) + "), expected " + expected->name + " (CONFIG_ID " +
                               Hex(expected->config_id) + ")");
  }
  *out = std::move(device);
  return Status::Ok();
}

}  // namespace fpga
}  // namespace loom
