// What a plan is built for: the devices the placer may put nodes on, each
// with its configuration (what kernels see through KernelSetup::device()
// while building), and the cost model that prices a node on a device.
// `loom build --target NAME` picks one:
//   cpu     every node on the CPU (the default)
//   fpga16  PYNQ-Z2: the pynq_z2 accelerator (16x16, 100 MHz) and a
//           Cortex-A9
//   fpga32  KV260: the kv260 accelerator (32x32, 250 MHz) and a Cortex-A53
// Accelerator targets add the FPGA with its configuration
// (fpga::FpgaDeviceConfig) and price nodes with fpga_cost_model.h; the
// board's figures are in boards.h. Every target includes the CPU: it runs
// whatever the accelerator cannot, and every accelerator node keeps a CPU
// fallback.
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

struct TargetOptions {
  // The accelerator's clock in MHz for its predictions; 0 means its
  // configuration's clock. Only accelerator targets take one.
  double clock_mhz = 0;
  // A timing cache file (timing_cache.h) for CPU times; empty: the built-in
  // roofline only.
  std::string timing_cache;
};

// The built-in targets, by name; an unknown name is an error listing them,
// a clock outside (0, 1000] MHz or an unreadable timing cache one naming
// the problem.
Status MakeTarget(const std::string& name, const TargetOptions& options, std::unique_ptr<Target>* out);
Status MakeTarget(const std::string& name, std::unique_ptr<Target>* out);
std::vector<std::string> TargetNames();

}  // namespace place
}  // namespace loom
