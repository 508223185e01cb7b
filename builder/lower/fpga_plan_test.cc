// Heterogeneous plans end to end: an int8 model built for an accelerator
// target (every node the accelerator takes on the FPGA), lowered, written,
// and run by the engine on the functional model's device, on its CPU
// fallbacks, and compared bit for bit with the CPU-only int8 plan.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "builder/build_internal.h"
#include "builder/builder.h"
#include "builder/testing/onnx_models.h"
#include "kernels/fpga/device/device_factory.h"
#include "kernels/fpga/kernels/fpga_kernels.h"
#include "kernels/fpga/runtime/fpga_runtime.h"
#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace {

using testing::OnnxModel;
using testing::TempDir;

std::vector<float> Random(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// x[1,3,12,12] -> Conv(3->20, 3x3) -> Relu -> MaxPool(2x2/2) -> Conv(20->20, 3x3) -> Relu
//   -> Conv(20->20, 1x1) -> Add(pool) -> GlobalAveragePool -> Flatten -> Gemm(20->5) -> y
std::string SaveModel(const TempDir& dir) {
  OnnxModel m(13);
  m.Input("x", {1, 3, 12, 12});
  m.Initializer("w1", {20, 3, 3, 3}, Random(20 * 27, 1, -0.5f, 0.5f));
  m.Initializer("b1", {20}, Random(20, 2, -0.1f, 0.1f));
  m.Initializer("w2", {20, 20, 3, 3}, Random(20 * 180, 3, -0.2f, 0.2f));
  m.Initializer("b2", {20}, Random(20, 4, -0.1f, 0.1f));
  m.Initializer("w3", {20, 20, 1, 1}, Random(400, 5, -0.4f, 0.4f));
  m.Initializer("b3", {20}, Random(20, 6, -0.1f, 0.1f));
  m.Initializer("wg", {5, 20}, Random(100, 7, -1.f, 1.f));
  m.Initializer("bg", {5}, Random(5, 8, -0.1f, 0.1f));
  testing::SetIntsAttr(m.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c1"}, {"r1"}, "relu1");
  onnx::NodeProto* pool = m.Node("MaxPool", {"r1"}, {"p1"}, "pool1");
  testing::SetIntsAttr(pool, "kernel_shape", {2, 2});
  testing::SetIntsAttr(pool, "strides", {2, 2});
  testing::SetIntsAttr(m.Node("Conv", {"p1", "w2", "b2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c2"}, {"r2"}, "relu2");
  m.Node("Conv", {"r2", "w3", "b3"}, {"c3"}, "conv3");
  m.Node("Add", {"c3", "p1"}, {"s"}, "add");
  m.Node("GlobalAveragePool", {"s"}, {"g"}, "gap");
  m.Node("Flatten", {"g"}, {"f"}, "flatten");
  testing::SetIntAttr(m.Node("Gemm", {"f", "wg", "bg"}, {"y"}, "fc"), "transB", 1);
  m.Output("y", {1, 5});
  return m.Save(dir.File("model.onnx"));
}

void SaveCalibration(const std::string& dir) {
  std::filesystem::create_directories(dir);
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = {8, 3, 12, 12};
  const std::vector<float> v = Random(8 * 3 * 144, 11, -1.f, 1.f);
  t.data.assign(reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data() + v.size()));
  ASSERT_TRUE(WriteNpy(dir + "/samples.npy", t).ok());
}

// Every node the accelerator accepts goes to it.
class PreferFpga : public place::CostModel {
 public:
  std::string name() const override { return "prefer-fpga"; }
  double NodeMs(const ir::Graph&, const ir::Node&, Device device) const override {
    return device == Device::kFpga ? 0.01 : 1.0;
  }
  double BoundaryMs(const ir::Graph&, int, Device from, Device to) const override { return from == to ? 0 : 0.001; }
};

std::unique_ptr<place::Target> FpgaTarget() {
  auto config = std::make_shared<fpga::FpgaDeviceConfig>(*fpga::contract::FindConfig("pynq_z2"));
  return std::make_unique<place::Target>("fpga16-test", "test", std::vector<place::TargetDevice>{{Device::kFpga, config}},
                                         std::make_shared<PreferFpga>());
}

struct PlanRun {
  Status status;
  std::vector<float> y;
  std::vector<std::string> notes;
  std::vector<NodeProfile> profile;
};

PlanRun RunPlan(const std::vector<uint8_t>& plan, const std::vector<float>& x, std::shared_ptr<DeviceRuntime> device,
            bool fallback) {
  PlanRun r;
  LoadOptions options;
  options.registry = &fpga::FpgaKernelRegistry();
  options.device = std::move(device);
  options.allow_cpu_fallback = fallback;
  std::shared_ptr<const Engine> engine;
  r.status = Engine::LoadFromBuffer(plan.data(), plan.size(), options, &engine);
  if (!r.status.ok()) return r;
  r.notes = engine->notes();
  std::unique_ptr<ExecutionContext> ctx;
  ContextOptions context;
  context.profile = true;
  r.status = engine->CreateContext(context, &ctx);
  if (!r.status.ok()) return r;
  r.y.resize(5);
  r.status = ctx->SetInput("x", x.data(), x.size() * sizeof(float));
  if (r.status.ok()) r.status = ctx->SetOutput("y", r.y.data(), r.y.size() * sizeof(float));
  if (r.status.ok()) r.status = ctx->Run();
  r.profile = ctx->profile();
  return r;
}

std::shared_ptr<DeviceRuntime> ModelDevice() {
  std::unique_ptr<fpga::AccelDevice> device;
  EXPECT_TRUE(fpga::OpenAccelDevice(fpga::AccelDeviceOptions(), &device).ok());
  return std::make_shared<fpga::FpgaRuntime>(std::move(device));
}

class FpgaPlanTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(true); }

  void Build(bool fuse, bool per_node = false) {
    const std::string model = SaveModel(dir_);
    SaveCalibration(dir_.File("calib"));
    BuildOptions o;
    if (!fuse) o.disabled_passes = {"fuse_activation"};
    o.fpga_launch_per_node = per_node;
    o.int8.enabled = true;
    o.int8.calib_dir = dir_.File("calib");
    o.int8.calib_method = "minmax";
    o.int8.progress = false;
    BuildEnvironment env;
    env.registry = &fpga::FpgaKernelRegistry();
    Status s = BuildPlanIn(env, model, o, &cpu_plan_, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
    target_ = FpgaTarget();
    env.target = target_.get();
    s = BuildPlanIn(env, model, o, &fpga_plan_, &report_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    x_ = Random(3 * 144, 99, -1.f, 1.f);
  }

  TempDir dir_;
  std::unique_ptr<place::Target> target_;
  std::vector<uint8_t> cpu_plan_, fpga_plan_;
  BuildReport report_;
  std::vector<float> x_;
};

TEST_F(FpgaPlanTest, PlacesLowersAndRelayouts) {
  std::shared_ptr<const Engine> engine;
  LoadOptions options;
  options.allow_cpu_fallback = true;
  ASSERT_TRUE(Engine::LoadFromBuffer(fpga_plan_.data(), fpga_plan_.size(), options, &engine).ok());
  int fpga = 0, relayouts = 0, launches = 0;
  for (const NodeDesc& n : engine->nodes()) {
    if (n.device == "fpga") {
      ++fpga;
      EXPECT_EQ(n.fallback_kernel, "cpu." + n.op + ".padded") << n.name;
      EXPECT_TRUE(n.on_fallback);
      EXPECT_EQ(n.running_kernel, n.fallback_kernel);
      launches += n.inputs.size() > 3 || (n.op == "Add" && n.inputs.size() > 2) ? 1 : 0;
    }
    relayouts += n.op == "Relayout" ? 1 : 0;
  }
  // conv1, pool1, conv2, conv3, add and fc on the accelerator; GlobalAveragePool
  // and Flatten (and the quantization around them) on the CPU.
  EXPECT_EQ(fpga, 6);
  EXPECT_GE(relayouts, 3);
  EXPECT_EQ(launches, 2);  // conv1..add in one launch, fc in another
  EXPECT_EQ(engine->info().boundaries.size(), static_cast<size_t>(relayouts));
  EXPECT_EQ(engine->info().target, "fpga16-test");
  EXPECT_EQ(engine->info().accelerator_fingerprint, "loom-accel pynq_z2 0x0E3B8988");
  ASSERT_EQ(engine->notes().size(), 1u);
}

TEST_F(FpgaPlanTest, ModelDeviceAndFallbackMatchTheCpuPlan) {
  const PlanRun cpu = RunPlan(cpu_plan_, x_, nullptr, false);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  const PlanRun accel = RunPlan(fpga_plan_, x_, ModelDevice(), false);
  ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
  EXPECT_TRUE(accel.notes.empty());
  EXPECT_EQ(std::memcmp(accel.y.data(), cpu.y.data(), cpu.y.size() * sizeof(float)), 0)
      << accel.y[0] << " vs " << cpu.y[0];
  int launched = 0;
  for (const NodeProfile& p : accel.profile) {
    if (!p.device.launched) continue;
    ++launched;
    EXPECT_GT(p.device.cycles, 0u);
    EXPECT_GT(p.device.dma_read_bytes, 0u);
    EXPECT_EQ(p.device.clock_mhz, 100);
  }
  EXPECT_EQ(launched, 2);

  const PlanRun fallback = RunPlan(fpga_plan_, x_, nullptr, true);
  ASSERT_TRUE(fallback.status.ok()) << fallback.status.ToString();
  ASSERT_EQ(fallback.notes.size(), 1u);
  EXPECT_NE(fallback.notes[0].find("run on the CPU instead"), std::string::npos) << fallback.notes[0];
  EXPECT_EQ(std::memcmp(fallback.y.data(), cpu.y.data(), cpu.y.size() * sizeof(float)), 0);
}

// Without fused activations the Relus run on the CPU between launches: four
// launches, each handing tensors back and forth through the caches.
TEST_F(FpgaPlanTest, InterleavedLaunchesMatchTheCpuPlan) {
  Build(false);
  const PlanRun cpu = RunPlan(cpu_plan_, x_, nullptr, false);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  const PlanRun accel = RunPlan(fpga_plan_, x_, ModelDevice(), false);
  ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
  int launched = 0;
  for (const NodeProfile& p : accel.profile) launched += p.device.launched ? 1 : 0;
  EXPECT_EQ(launched, 4);
  EXPECT_EQ(std::memcmp(accel.y.data(), cpu.y.data(), cpu.y.size() * sizeof(float)), 0)
      << accel.y[0] << " vs " << cpu.y[0];
}

// One launch per node: every FPGA node reports its own counters.
TEST_F(FpgaPlanTest, OneLaunchPerNodeMatchesTheCpuPlan) {
  Build(true, true);
  const PlanRun cpu = RunPlan(cpu_plan_, x_, nullptr, false);
  const PlanRun accel = RunPlan(fpga_plan_, x_, ModelDevice(), false);
  ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
  int launched = 0;
  for (const NodeProfile& p : accel.profile) {
    launched += p.device.launched ? 1 : 0;
    if (p.device.launched) {
      EXPECT_EQ(p.device.nodes, 1);
    }
  }
  EXPECT_EQ(launched, 6);
  EXPECT_EQ(std::memcmp(accel.y.data(), cpu.y.data(), cpu.y.size() * sizeof(float)), 0);
}

TEST_F(FpgaPlanTest, RefusesWithoutTheDeviceUnlessFallbackIsAllowed) {
  const PlanRun none = RunPlan(fpga_plan_, x_, nullptr, false);
  EXPECT_EQ(none.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(none.status.message().find("no fpga device is attached"), std::string::npos) << none.status.message();
  // A device of another configuration: refused, naming both.
  fpga::AccelDeviceOptions kv260;
  kv260.model_config = "kv260";
  std::unique_ptr<fpga::AccelDevice> device;
  ASSERT_TRUE(fpga::OpenAccelDevice(kv260, &device).ok());
  const PlanRun other = RunPlan(fpga_plan_, x_, std::make_shared<fpga::FpgaRuntime>(std::move(device)), false);
  EXPECT_EQ(other.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(other.status.message().find("loom-accel pynq_z2"), std::string::npos) << other.status.message();
  EXPECT_NE(other.status.message().find("loom-accel kv260"), std::string::npos) << other.status.message();
}

}  // namespace
}  // namespace loom
