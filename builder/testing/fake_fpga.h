// A stand-in accelerator for placement tests: a device configuration, a
// runtime, a Conv kernel registered as "fpga.Conv", and a target that prefers
// the FPGA for Conv. The kernel checks the seam rather than the hardware:
//   Prepare  accepts only when prepared for the fake FPGA's configuration
//            (KernelSetup::device()), and refuses fused activations when
//            FakeFpgaOptions::refuse_activation is set;
//   Run      needs the fake runtime (KernelArgs::device) and a device-visible
//            arena (KernelArgs::arena), and computes with the CPU's Conv
//            kernel, so a plan using it gives real outputs.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "builder/place/target.h"
#include "kernels/common/device_context.h"
#include "kernels/common/registry.h"

namespace loom {
namespace testing {

constexpr char kFakeFpgaFingerprint[] = "fake-fpga-v1";

class FakeFpgaConfig : public DeviceConfig {
 public:
  explicit FakeFpgaConfig(std::string fingerprint = kFakeFpgaFingerprint) : fingerprint_(std::move(fingerprint)) {}
  Device device() const override { return Device::kFpga; }
  std::string name() const override { return "fake-fpga"; }
  std::string fingerprint() const override { return fingerprint_; }

 private:
  std::string fingerprint_;
};

// Device-visible memory is plain host memory here; counts the arenas it
// hands out. `fingerprint` stands for another accelerator configuration.
class FakeFpgaRuntime : public DeviceRuntime, private MemoryAllocator {
 public:
  explicit FakeFpgaRuntime(std::string fingerprint = kFakeFpgaFingerprint) : config_(std::move(fingerprint)) {}
  const DeviceConfig& config() const override { return config_; }
  MemoryAllocator& allocator() override { return *this; }
  int allocations() const { return allocations_; }

 private:
  Status Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) override;
  void Free(const MemoryBlock& block) override;
  FakeFpgaConfig config_;
  int allocations_ = 0;
};

struct FakeFpgaOptions {
  bool refuse_activation = false;
  Device registered_device = Device::kFpga;
};

// Adds "fpga.Conv" (device kFpga) to `registry`. `registered_device`
// stands for a kernel registered on another device than its id says.
void AddFakeFpgaKernels(KernelRegistry* registry, const FakeFpgaOptions& options = {});
// The CPU kernels of KernelRegistry::Global() plus the fake FPGA's.
KernelRegistry MakeCpuAndFakeFpgaRegistry(const FakeFpgaOptions& options = {});

// Target "fake-fpga": devices fpga then cpu; Conv is 10x faster on the FPGA,
// every other op runs only on the CPU, and each CPU<->FPGA boundary costs
// `boundary_ms`.
std::unique_ptr<place::Target> MakeFakeFpgaTarget(double boundary_ms = 0.001);

// Number of fpga.Conv runs since the last reset.
int FakeFpgaRunCount();

}  // namespace testing
}  // namespace loom
