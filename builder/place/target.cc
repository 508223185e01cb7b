#include "builder/place/target.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "builder/build_log.h"
#include "builder/place/boards.h"
#include "builder/place/fpga_cost_model.h"
#include "builder/place/timing_cache.h"
#include "kernels/fpga/runtime/fpga_runtime.h"

namespace loom {
namespace place {
namespace {

// A CPU core of the class Loom's boards carry (Cortex-A9/A53 with NEON):
// about 2 GMAC/s of fp32 GEMM per core and 2 GB/s of memory bandwidth.
constexpr double kCpuGmacsPerSecond = 2.0;
constexpr double kCpuGbytesPerSecond = 2.0;
// Clocks beyond this are typing mistakes, not FPGA fabrics.
constexpr double kMaxClockMhz = 1000;

std::shared_ptr<const DeviceConfig> SharedCpuConfig() {
  // CpuDeviceConfig() is a static; the aliasing constructor shares it without owning it.
  return std::shared_ptr<const DeviceConfig>(std::shared_ptr<const DeviceConfig>(), &CpuDeviceConfig());
}

// `roofline`, behind the timing cache when one is given.
Status CpuCostModel(const TargetOptions& options, const std::string& cpu_name, std::unique_ptr<CostModel> roofline,
                    std::shared_ptr<const CostModel>* out) {
  if (options.timing_cache.empty()) {
    *out = std::move(roofline);
    return Status::Ok();
  }
  TimingCache cache;
  RETURN_IF_ERROR(ReadTimingCacheFile(options.timing_cache, &cache));
  if (!cpu_name.empty() && cache.cpu != cpu_name) {
    BuildLog().warn("timing cache '{}' was measured on {}, not this target's {}: using its times as they are",
                    options.timing_cache, cache.cpu.empty() ? "an unknown CPU" : cache.cpu, cpu_name);
  }
  *out = MakeTimingCacheCostModel(std::move(cache), options.timing_cache, std::move(roofline));
  return Status::Ok();
}

Status MakeFpgaTarget(const BoardSpec& board, const TargetOptions& options, std::unique_ptr<Target>* out) {
  const fpga::contract::AccelConfig* accel = fpga::contract::FindConfig(board.accel_config.c_str());
  if (accel == nullptr)
    return Status::Internal("target '" + board.target + "': no accelerator configuration '" + board.accel_config + "'");
  auto device = std::make_shared<const fpga::FpgaDeviceConfig>(*accel, options.clock_mhz);
  std::shared_ptr<const CostModel> cpu;
  RETURN_IF_ERROR(CpuCostModel(options, board.cpu.name, MakeRooflineCpuCostModel(board.cpu), &cpu));
  char description[160];
  std::snprintf(description, sizeof(description), "%s: the %s accelerator (%ux%u at %g MHz) and a %s",
                board.board.c_str(), accel->name, accel->n, accel->n, device->clock_mhz(), board.cpu.name.c_str());
  std::shared_ptr<const CostModel> cost = MakeFpgaTargetCostModel(device, board, std::move(cpu));
  *out = std::make_unique<Target>(board.target, description,
                                  std::vector<TargetDevice>{{Device::kCpu, SharedCpuConfig()}, {Device::kFpga, device}},
                                  std::move(cost));
  return Status::Ok();
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

std::vector<std::string> TargetNames() {
  std::vector<std::string> names = {"cpu"};
  for (const BoardSpec& b : Boards()) names.push_back(b.target);
  return names;
}

Status MakeTarget(const std::string& name, const TargetOptions& options, std::unique_ptr<Target>* out) {
  const BoardSpec* board = FindBoard(name);
  if (name != "cpu" && board == nullptr) {
    std::string names;
    for (const std::string& n : TargetNames()) names += (names.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown target '" + name + "' (targets: " + names + ")");
  }
  if (options.clock_mhz != 0) {
    char clock[32];
    std::snprintf(clock, sizeof(clock), "%g", options.clock_mhz);
    if (board == nullptr)
      return Status::InvalidArgument("target '" + name + "' has no accelerator, so no clock (" + clock + " MHz given)");
    if (!(options.clock_mhz > 0 && options.clock_mhz <= kMaxClockMhz)) {
      return Status::InvalidArgument("accelerator clock " + std::string(clock) +
                                     " MHz is out of range: expected more than 0 and at most 1000 MHz");
    }
  }
  if (board != nullptr) return MakeFpgaTarget(*board, options, out);
  std::shared_ptr<const CostModel> cpu;
  RETURN_IF_ERROR(CpuCostModel(options, "", MakeRooflineCpuCostModel(kCpuGmacsPerSecond, kCpuGbytesPerSecond), &cpu));
  *out = std::make_unique<Target>("cpu", "every node on the CPU",
                                  std::vector<TargetDevice>{{Device::kCpu, SharedCpuConfig()}}, std::move(cpu));
  return Status::Ok();
}

Status MakeTarget(const std::string& name, std::unique_ptr<Target>* out) { return MakeTarget(name, {}, out); }

}  // namespace place
}  // namespace loom
