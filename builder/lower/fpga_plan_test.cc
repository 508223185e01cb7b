// Heterogeneous plans end to end: an int8 model built for an accelerator
// target (every node the accelerator takes on the FPGA), lowered, written,
// and run by the engine on the functional model's device, on its CPU
// fallbacks, and compared bit for bit with the CPU-only int8 plan.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "builder/testing/int8_fpga_model.h"
#include "loom/engine.h"

namespace loom {
namespace {

using testing::Int8FpgaPlans;
using testing::PlanRun;
using testing::RunPlan;
using testing::SameBits;
using testing::TempDir;

class FpgaPlanTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(true); }

  void Build(bool fuse, bool per_node = false) {
    const Status s = testing::BuildInt8FpgaPlans(dir_, fuse, &plans_, per_node);
    ASSERT_TRUE(s.ok()) << s.ToString();
    x_ = testing::Int8ModelInput(99);
  }

  TempDir dir_;
  Int8FpgaPlans plans_;
  std::vector<float> x_;
};

TEST_F(FpgaPlanTest, PlacesLowersAndRelayouts) {
  std::shared_ptr<const Engine> engine;
  LoadOptions options;
  options.allow_cpu_fallback = true;
  ASSERT_TRUE(Engine::LoadFromBuffer(plans_.fpga.data(), plans_.fpga.size(), options, &engine).ok());
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
  // conv1, pool1, conv2, conv3, add and fc on the accelerator;
  // GlobalAveragePool and Flatten (and the quantization around them) on the
  // CPU.
  EXPECT_EQ(fpga, 6);
  EXPECT_GE(relayouts, 3);
  EXPECT_EQ(launches, 2);  // conv1..add in one launch, fc in another
  EXPECT_EQ(engine->info().boundaries.size(), static_cast<size_t>(relayouts));
  EXPECT_EQ(engine->info().target, "fpga16-test");
  EXPECT_EQ(engine->info().accelerator_fingerprint, "loom-accel pynq_z2 0x0E3B8988");
  ASSERT_EQ(engine->notes().size(), 1u);
}

TEST_F(FpgaPlanTest, ModelDeviceAndFallbackMatchTheCpuPlan) {
  const PlanRun cpu = RunPlan(plans_.cpu, x_, nullptr, false);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  const PlanRun accel = RunPlan(plans_.fpga, x_, testing::OpenModelRuntime(), false);
  ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
  EXPECT_TRUE(accel.notes.empty());
  EXPECT_TRUE(SameBits(accel.y, cpu.y)) << accel.y[0] << " vs " << cpu.y[0];
  int launched = 0;
  for (const NodeProfile& p : accel.profile) {
    if (!p.device.launched) continue;
    ++launched;
    EXPECT_GT(p.device.cycles, 0u);
    EXPECT_GT(p.device.dma_read_bytes, 0u);
    EXPECT_EQ(p.device.clock_mhz, 100);
  }
  EXPECT_EQ(launched, 2);

  const PlanRun fallback = RunPlan(plans_.fpga, x_, nullptr, true);
  ASSERT_TRUE(fallback.status.ok()) << fallback.status.ToString();
  ASSERT_EQ(fallback.notes.size(), 1u);
  EXPECT_NE(fallback.notes[0].find("run on the CPU instead"), std::string::npos) << fallback.notes[0];
  EXPECT_TRUE(SameBits(fallback.y, cpu.y));
}

// Without fused activations the Relus run on the CPU between launches: four
// launches, each handing tensors back and forth through the caches.
TEST_F(FpgaPlanTest, InterleavedLaunchesMatchTheCpuPlan) {
  Build(false);
  const PlanRun cpu = RunPlan(plans_.cpu, x_, nullptr, false);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  const PlanRun accel = RunPlan(plans_.fpga, x_, testing::OpenModelRuntime(), false);
  ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
  int launched = 0;
  for (const NodeProfile& p : accel.profile) launched += p.device.launched ? 1 : 0;
  EXPECT_EQ(launched, 4);
  EXPECT_TRUE(SameBits(accel.y, cpu.y)) << accel.y[0] << " vs " << cpu.y[0];
}

// One launch per node: every FPGA node reports its own counters.
TEST_F(FpgaPlanTest, OneLaunchPerNodeMatchesTheCpuPlan) {
  Build(true, true);
  const PlanRun cpu = RunPlan(plans_.cpu, x_, nullptr, false);
  ASSERT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  const PlanRun accel = RunPlan(plans_.fpga, x_, testing::OpenModelRuntime(), false);
  ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
  int launched = 0;
  for (const NodeProfile& p : accel.profile) {
    launched += p.device.launched ? 1 : 0;
    if (p.device.launched) {
      EXPECT_EQ(p.device.nodes, 1);
    }
  }
  EXPECT_EQ(launched, 6);
  EXPECT_TRUE(SameBits(accel.y, cpu.y)) << accel.y[0] << " vs " << cpu.y[0];
}

// (A device of another configuration: fpga_faults_test.cc.)
TEST_F(FpgaPlanTest, RefusesWithoutTheDevice) {
  const PlanRun none = RunPlan(plans_.fpga, x_, nullptr, false);
  EXPECT_EQ(none.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(none.status.message().find("no fpga device is attached"), std::string::npos) << none.status.message();
}

}  // namespace
}  // namespace loom
