#include "builder/testing/fake_fpga.h"

#include <atomic>
#include <cstdlib>

namespace loom {
namespace testing {
namespace {

std::atomic<int> g_runs{0};
bool g_refuse_activation = false;

class FakeFpgaConv : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    if (s.device().fingerprint() != kFakeFpgaFingerprint)
      return s.Unsupported("fpga.Conv prepared for '" + s.device().name() + "', not the fake FPGA");
    if (g_refuse_activation && s.attrs.Has("loom.activation")) return s.Unsupported("fused activation on fpga");
    const std::vector<const KernelDef*> cpu = KernelRegistry::Global().FindByOp("Conv");
    if (cpu.empty()) return s.Unsupported("no CPU Conv kernel to compute with");
    KernelSetup on_cpu = s;
    on_cpu.device_config = nullptr;
    // The first CPU Conv kernel that takes the node (int8 kernels refuse float ones).
    Status st;
    for (const KernelDef* def : cpu) {
      conv_ = def->create();
      st = conv_->Prepare(on_cpu);
      if (st.ok()) break;
    }
    return st;
  }
  size_t ScratchBytes(int num_threads) const override { return conv_->ScratchBytes(num_threads); }
  Status Run(const KernelArgs& args) const override {
    if (args.device == nullptr || args.device->config().fingerprint() != kFakeFpgaFingerprint)
      return Status::DeviceError("fpga.Conv ran without the fake FPGA runtime");
    if (args.arena == nullptr || args.arena->space != MemorySpace::kDeviceVisible)
      return Status::DeviceError("fpga.Conv ran on an arena the device cannot see");
    ++g_runs;
    KernelArgs on_cpu = args;
    on_cpu.device = nullptr;
    return conv_->Run(on_cpu);
  }

 private:
  std::unique_ptr<Kernel> conv_;
};

class FakeFpgaCostModel : public place::CostModel {
 public:
  explicit FakeFpgaCostModel(double boundary_ms) : boundary_ms_(boundary_ms) {}
  std::string name() const override { return "fake fpga"; }
  double NodeMs(const ir::Graph&, const ir::Node& node, Device device) const override {
    const double cpu_ms = node.op == "Conv" ? 1.0 : 0.1;
    return device == Device::kFpga ? cpu_ms / 10 : cpu_ms;
  }
  double BoundaryMs(const ir::Graph&, int, Device from, Device to) const override {
    return from == to ? 0 : boundary_ms_;
  }

 private:
  double boundary_ms_;
};

}  // namespace

Status FakeFpgaRuntime::Allocate(size_t bytes, size_t alignment, MemorySpace space, MemoryBlock* out) {
  ++allocations_;
  RETURN_IF_ERROR(HostMemoryAllocator().Allocate(bytes, alignment, MemorySpace::kHost, out));
  out->space = space;
  out->device_address = reinterpret_cast<uintptr_t>(out->host);
  return Status::Ok();
}

void FakeFpgaRuntime::Free(const MemoryBlock& block) { HostMemoryAllocator().Free(block); }

void AddFakeFpgaKernels(KernelRegistry* registry, const FakeFpgaOptions& options) {
  g_refuse_activation = options.refuse_activation;
  KernelDef def;
  def.id = "fpga.Conv";
  def.op = "Conv";
  def.device = options.registered_device;
  def.create = MakeKernel<FakeFpgaConv>;
  registry->Add(def);
}

KernelRegistry MakeCpuAndFakeFpgaRegistry(const FakeFpgaOptions& options) {
  KernelRegistry r = KernelRegistry::Global();
  AddFakeFpgaKernels(&r, options);
  return r;
}

std::unique_ptr<place::Target> MakeFakeFpgaTarget(double boundary_ms) {
  std::vector<place::TargetDevice> devices = {{Device::kFpga, std::make_shared<FakeFpgaConfig>()},
                                              {Device::kCpu, nullptr}};
  devices[1].config = std::shared_ptr<const DeviceConfig>(std::shared_ptr<const DeviceConfig>(), &CpuDeviceConfig());
  return std::make_unique<place::Target>("fake-fpga", "a stand-in accelerator for tests", std::move(devices),
                                         std::make_shared<FakeFpgaCostModel>(boundary_ms));
}

int FakeFpgaRunCount() { return g_runs; }

}  // namespace testing
}  // namespace loom
