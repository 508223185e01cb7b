// The small int8 model's FPGA plan (testing/int8_fpga_model.h) on the
// Verilated RTL (fpga-rtl) through the engine: bit-identical to the CPU int8
// plan, and still so after a launch timed out on the same context, and after
// another plan's launch ended with the accelerator's ERROR register set.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "builder/testing/int8_fpga_model.h"
#include "builder/testing/plan_patch.h"
#include "hw/sim/rtl_accel_device.h"
#include "kernels/fpga/runtime/fpga_runtime.h"
#include "loom/engine.h"

namespace loom {
namespace {

using testing::Int8ModelInput;
using testing::SameBits;

std::vector<float> CpuOutput(const std::vector<uint8_t>& cpu_plan, const std::vector<float>& x) {
  const testing::PlanRun cpu = testing::RunPlan(cpu_plan, x, nullptr, false);
  EXPECT_TRUE(cpu.status.ok()) << cpu.status.ToString();
  return cpu.y;
}

std::shared_ptr<fpga::FpgaRuntime> OpenRtl(const hw_sim::RtlAccelDeviceOptions& options) {
  std::unique_ptr<fpga::AccelDevice> device;
  const Status s = hw_sim::RtlAccelDevice::Open(options, &device);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? std::make_shared<fpga::FpgaRuntime>(std::move(device)) : nullptr;
}

// A LOAD_WGT of zero rows is a command the RTL refuses (BAD_FIELD) before
// any transfer: the run fails naming the node, the command and the error,
// and the device then runs the good plan, bit-identical.
TEST(FpgaRtlPlanTest, ErrorRegisterNamesTheCommandAndTheDeviceRunsOn) {
  testing::TempDir dir;
  testing::Int8FpgaPlans plans;
  const Status built = testing::BuildInt8FpgaPlans(dir, /*fuse=*/true, &plans);
  ASSERT_TRUE(built.ok()) << built.ToString();
  uint32_t index = 0;
  const std::vector<uint8_t> bad = testing::PatchFirstCommand<fpga::contract::LoadWgt>(
      plans.fpga, [](const plan::Plan&, fpga::contract::LoadWgt* op) { op->rows = 0; }, &index);
  ASSERT_FALSE(bad.empty());

  hw_sim::RtlAccelDeviceOptions options;
  options.memory_bytes = size_t{8} << 20;
  const std::shared_ptr<fpga::FpgaRuntime> runtime = OpenRtl(options);
  ASSERT_NE(runtime, nullptr);
  std::vector<float> y;
  const std::vector<float> x = Int8ModelInput(31);
  {
    std::shared_ptr<const Engine> engine;
    ASSERT_TRUE(testing::LoadPlan(bad, runtime, false, &engine).ok());
    std::unique_ptr<ExecutionContext> context;
    ASSERT_TRUE(engine->CreateContext({}, &context).ok());
    const Status s = testing::RunOnce(*context, x, &y);
    EXPECT_EQ(s.code(), StatusCode::kDeviceError) << s.ToString();
    for (const std::string& part : {std::string("conv1 (Conv): fpga-rtl"), "command " + std::to_string(index),
                                    std::string("LOAD_WGT"), std::string("BAD_FIELD")})
      EXPECT_NE(s.message().find(part), std::string::npos) << "'" << part << "' not in: " << s.message();
  }
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(testing::LoadPlan(plans.fpga, runtime, false, &engine).ok());
  std::unique_ptr<ExecutionContext> context;
  ASSERT_TRUE(engine->CreateContext({}, &context).ok());
  const Status s = testing::RunOnce(*context, x, &y);
  ASSERT_TRUE(s.ok()) << "the good plan after the error: " << s.ToString();
  EXPECT_TRUE(SameBits(y, CpuOutput(plans.cpu, x))) << y[0];
}

TEST(FpgaRtlPlanTest, MatchesTheCpuPlanAndRecoversFromATimeout) {
  testing::TempDir dir;
  testing::Int8FpgaPlans plans;
  const Status built = testing::BuildInt8FpgaPlans(dir, /*fuse=*/true, &plans);
  ASSERT_TRUE(built.ok()) << built.ToString();

  // Slow memory (one outstanding burst, 1,000 cycles to the first beat), so
  // that the first launch needs more than a timeout of 1 ms: 100,000
  // simulated cycles at pynq_z2's 100 MHz.
  hw_sim::RtlAccelDeviceOptions options;
  options.memory_bytes = size_t{8} << 20;
  options.rtl.ddr.read_latency = 1000;
  options.rtl.ddr.max_outstanding = 1;
  const std::shared_ptr<fpga::FpgaRuntime> runtime = OpenRtl(options);
  ASSERT_NE(runtime, nullptr);
  std::shared_ptr<const Engine> engine;
  Status s = testing::LoadPlan(plans.fpga, runtime, false, &engine);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<ExecutionContext> context;
  ASSERT_TRUE(engine->CreateContext({}, &context).ok());

  std::vector<float> y;
  const std::vector<float> x1 = Int8ModelInput(21);
  s = testing::RunOnce(*context, x1, &y);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(SameBits(y, CpuOutput(plans.cpu, x1))) << y[0];

  runtime->set_launch_timeout_ms(1);
  s = testing::RunOnce(*context, Int8ModelInput(22), &y);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError) << s.ToString();
  EXPECT_NE(s.message().find("conv1 (Conv): fpga-rtl: no ap_done within 1 ms"), std::string::npos) << s.ToString();

  // The abandoned run is still going in the simulation: the next run waits
  // for it before flushing its inputs, then runs.
  runtime->set_launch_timeout_ms(fpga::kDefaultLaunchTimeoutMs);
  const std::vector<float> x3 = Int8ModelInput(23);
  s = testing::RunOnce(*context, x3, &y);
  ASSERT_TRUE(s.ok()) << "the run after the timeout: " << s.ToString();
  EXPECT_TRUE(SameBits(y, CpuOutput(plans.cpu, x3))) << y[0];
}

}  // namespace
}  // namespace loom
