#include "builder/place/target.h"

#include <utility>

namespace loom {
namespace place {
namespace {

// A CPU core of the class Loom's boards carry (Cortex-A9/A53 with NEON):
// about 2 GMAC/s of fp32 GEMM per core and 2 GB/s of memory bandwidth.
constexpr double kCpuGmacsPerSecond = 2.0;
constexpr double kCpuGbytesPerSecond = 2.0;

std::shared_ptr<const DeviceConfig> SharedCpuConfig() {
  // CpuDeviceConfig() is a static; the aliasing constructor shares it without owning it.
  return std::shared_ptr<const DeviceConfig>(std::shared_ptr<const DeviceConfig>(), &CpuDeviceConfig());
}

}  // namespace

Target::Target(std::string name, std::string description, std::vector<TargetDevice> devices,
               std::shared_ptr<const CostModel> cost_model)
    : name_(std::move(name)),
      description_(std::move(description)),
      devices_(std::move(devices)),
      cost_model_(std::move(cost_model)) {
  if (!Has(Device::kCpu)) devices_.push_back({Device::kCpu, SharedCpuConfig()});
}

const DeviceConfig* Target::ConfigFor(Device device) const {
  for (const TargetDevice& d : devices_)
    if (d.device == device) return d.config.get();
  return nullptr;
}

std::vector<std::string> TargetNames() { return {"cpu"}; }

Status MakeTarget(const std::string& name, std::unique_ptr<Target>* out) {
  if (name == "cpu") {
    *out = std::make_unique<Target>(
        "cpu", "every node on the CPU", std::vector<TargetDevice>{{Device::kCpu, SharedCpuConfig()}},
        MakeRooflineCpuCostModel(kCpuGmacsPerSecond, kCpuGbytesPerSecond));
    return Status::Ok();
  }
  std::string names;
  for (const std::string& n : TargetNames()) names += (names.empty() ? "" : ", ") + n;
  return Status::InvalidArgument("unknown target '" + name + "' (targets: " + names + ")");
}

}  // namespace place
}  // namespace loom
