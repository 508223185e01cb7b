// What a plan is built for: the devices the placer may put nodes on, each
// with its configuration (what kernels see through KernelSetup::device()
// while building), and the cost model that prices a node on a device.
// `loom build --target NAME` picks one:
//   cpu     every node on the CPU (the default)
// Accelerator targets add the FPGA with its configuration. Every target
// includes the CPU: it runs whatever the accelerator cannot, and every
// accelerator node keeps a CPU fallback.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "builder/place/cost_model.h"
#include "common/device.h"
#include "common/status.h"
#include "kernels/common/device_context.h"

namespace loom {
namespace place {

struct TargetDevice {
  Device device = Device::kCpu;
  std::shared_ptr<const DeviceConfig> config;
};

class Target {
 public:
  // `devices` in preference order (ties in predicted time go to the first).
  Target(std::string name, std::string description, std::vector<TargetDevice> devices,
         std::shared_ptr<const CostModel> cost_model);

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<TargetDevice>& devices() const { return devices_; }
  const CostModel& cost_model() const { return *cost_model_; }

  bool Has(Device device) const { return ConfigFor(device) != nullptr; }
  // The configuration of `device`, or null when the target lacks it.
  const DeviceConfig* ConfigFor(Device device) const;

 private:
  std::string name_;
  std::string description_;
  std::vector<TargetDevice> devices_;
  std::shared_ptr<const CostModel> cost_model_;
};

// The built-in targets, by name; an unknown name is an error listing them.
Status MakeTarget(const std::string& name, std::unique_ptr<Target>* out);
std::vector<std::string> TargetNames();

}  // namespace place
}  // namespace loom
