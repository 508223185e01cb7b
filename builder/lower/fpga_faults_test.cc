// Accelerator faults seen through the engine: the small int8 model's FPGA
// plan (testing/int8_fpga_model.h) on a functional-model device with faults
// injected (ModelDeviceFaults). Every fault must end the load, the context's
// creation or the run with a clear error naming the device and what failed,
// without waiting longer than the launch timeout; once the fault is gone the
// same engine and context must run again, bit-identical to the CPU int8
// plan. Also: a device of another configuration, two contexts sharing one
// device from two threads, and a tampered command stream that would DMA
// outside its buffers.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "builder/testing/int8_fpga_model.h"
#include "builder/testing/plan_patch.h"
#include "kernels/fpga/device/model_device.h"
#include "kernels/fpga/kernels/launch_attrs.h"
#include "kernels/fpga/model/little_endian.h"
#include "kernels/fpga/runtime/fpga_runtime.h"
#include "loom/engine.h"
#include "schemas/plan_codec.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace {

namespace c = fpga::contract;
using testing::Int8ModelInput;
using testing::SameBits;

// The runtime's launch timeout, which the messages must carry.
constexpr uint32_t kTimeoutMs = 50;

// A model device the test keeps a handle on to change its faults; the
// runtime owns it.
struct FaultyDevice {
  fpga::ModelDevice* model = nullptr;
  std::shared_ptr<fpga::FpgaRuntime> runtime;
};

FaultyDevice OpenFaulty(const fpga::ModelDeviceFaults& faults = {}, const char* config = "pynq_z2") {
  fpga::ModelDeviceOptions options;
  options.memory_bytes = size_t{8} << 20;
  options.faults = faults;
  auto device = std::make_unique<fpga::ModelDevice>(*c::FindConfig(config), options);
  FaultyDevice d;
  d.model = device.get();
  d.runtime = std::make_shared<fpga::FpgaRuntime>(std::move(device));
  d.runtime->set_launch_timeout_ms(kTimeoutMs);
  return d;
}

void ExpectContains(const Status& s, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) EXPECT_NE(s.message().find(part), std::string::npos) << s.ToString();
}

class FpgaFaultsTest : public ::testing::Test {
 protected:
  // The plans are built once: every test only loads and runs them.
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    plans_ = new testing::Int8FpgaPlans;
    const Status s = testing::BuildInt8FpgaPlans(*dir_, /*fuse=*/true, plans_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static void TearDownTestSuite() {
    delete plans_;
    delete dir_;
  }

  // The CPU int8 plan's output for x.
  static std::vector<float> CpuOutput(const std::vector<float>& x) {
    const testing::PlanRun cpu = testing::RunPlan(plans_->cpu, x, nullptr, false);
    EXPECT_TRUE(cpu.status.ok()) << cpu.status.ToString();
    return cpu.y;
  }

  // On one engine and context of the FPGA plan: a good run; a run with
  // `inject` applied to the device's faults, which must fail with a
  // DeviceError containing every one of `expected` (into *failure), without
  // waiting; then, the faults cleared, a good run again on the same context.
  static void FailThenRecover(const std::function<void(fpga::ModelDeviceFaults*)>& inject,
                              const std::vector<std::string>& expected, Status* failure = nullptr) {
    FaultyDevice device = OpenFaulty();
    std::shared_ptr<const Engine> engine;
    Status s = testing::LoadPlan(plans_->fpga, device.runtime, false, &engine);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<ExecutionContext> context;
    ASSERT_TRUE(engine->CreateContext({}, &context).ok());
    const std::vector<float> x = Int8ModelInput(7);
    std::vector<float> y;
    s = testing::RunOnce(*context, x, &y);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(SameBits(y, CpuOutput(x)));

    inject(&device.model->faults());
    const auto start = std::chrono::steady_clock::now();
    s = testing::RunOnce(*context, x, &y);
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(s.code(), StatusCode::kDeviceError) << s.ToString();
    ExpectContains(s, expected);
    // The model's timeouts are simulated time: a wall-clock wait here would
    // be the engine's own (a hang, or the default 5 s timeout).
    EXPECT_LT(ms, 1000) << "the failing run took " << ms << " ms";
    if (failure != nullptr) *failure = s;

    device.model->faults() = fpga::ModelDeviceFaults();
    const std::vector<float> x2 = Int8ModelInput(8);
    s = testing::RunOnce(*context, x2, &y);
    ASSERT_TRUE(s.ok()) << "the run after the fault: " << s.ToString();
    EXPECT_TRUE(SameBits(y, CpuOutput(x2)));
  }

  static testing::TempDir* dir_;
  static testing::Int8FpgaPlans* plans_;
};

testing::TempDir* FpgaFaultsTest::dir_ = nullptr;
testing::Int8FpgaPlans* FpgaFaultsTest::plans_ = nullptr;

TEST_F(FpgaFaultsTest, StartNeverTakenTimesOut) {
  FailThenRecover([](fpga::ModelDeviceFaults* f) { f->ignore_start = true; },
                  {"conv1 (Conv): fpga-model: no ap_done within 50 ms (ap_start was not taken)"});
}

TEST_F(FpgaFaultsTest, RunNeverDoneTimesOut) {
  FailThenRecover([](fpga::ModelDeviceFaults* f) { f->never_done = true; },
                  {"conv1 (Conv): fpga-model: no ap_done within 50 ms (the run started and never finished)"});
}

// A run that does not end keeps the device busy: the next run waits for it
// once more the timeout and then says so; once it has ended (the fault
// cleared) the run after succeeds on the same context.
TEST_F(FpgaFaultsTest, RunStillBusyFromATimedOutRun) {
  FaultyDevice device = OpenFaulty();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(testing::LoadPlan(plans_->fpga, device.runtime, false, &engine).ok());
  std::unique_ptr<ExecutionContext> context;
  ASSERT_TRUE(engine->CreateContext({}, &context).ok());
  const std::vector<float> x = Int8ModelInput(9);
  std::vector<float> y;
  device.model->faults().never_done = true;
  EXPECT_EQ(testing::RunOnce(*context, x, &y).code(), StatusCode::kDeviceError);
  const Status busy = testing::RunOnce(*context, x, &y);
  EXPECT_EQ(busy.code(), StatusCode::kDeviceError);
  ExpectContains(busy, {"conv1 (Conv): fpga-model: the accelerator is not idle", "after waiting 50 ms more"});
  device.model->faults().never_done = false;
  const Status s = testing::RunOnce(*context, x, &y);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(SameBits(y, CpuOutput(x)));
}

// ERROR set after the run: the message names the device, the failing
// command, its opcode (the stream's own, in words) and the error.
TEST_F(FpgaFaultsTest, ErrorRegisterNamesTheCommandAndOpcode) {
  Status failure;
  FailThenRecover(
      [](fpga::ModelDeviceFaults* f) {
        f->force_error = c::ErrorCode::kSramRange;
        f->force_error_cmd = 3;
      },
      {"conv1 (Conv): fpga-model: command 3 ("}, &failure);
  // "fpga-model: command 3 (OPCODE) of N failed: SRAM_RANGE (ERROR 4)", OPCODE a valid opcode's name.
  const std::string& m = failure.message();
  const size_t at = m.find("fpga-model: command 3 ("), close = m.find(") of ", at);
  ASSERT_NE(at, std::string::npos) << m;
  ASSERT_NE(close, std::string::npos) << m;
  const std::string opcode = m.substr(at + 23, close - at - 23);
  bool valid = false;
  for (uint32_t code = 0; code < 256; ++code)
    valid |= c::IsValidOpcode(code) && opcode == c::OpcodeName(c::Opcode(code));
  EXPECT_TRUE(valid) << "'" << opcode << "' in: " << m;
  EXPECT_NE(m.find(" failed: SRAM_RANGE (ERROR 4)", close), std::string::npos) << m;
}

// A plan for pynq_z2 on a kv260: refused naming both fingerprints, or, with
// the CPU fallback allowed, run on the CPU.
TEST_F(FpgaFaultsTest, AnotherAcceleratorIsRefusedOrFallsBack) {
  const std::string pynq = fpga::AccelFingerprint(*c::FindConfig("pynq_z2"));
  const std::string kv260 = fpga::AccelFingerprint(*c::FindConfig("kv260"));
  std::shared_ptr<const Engine> engine;
  const Status s = testing::LoadPlan(plans_->fpga, OpenFaulty({}, "kv260").runtime, false, &engine);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  ExpectContains(s, {pynq, kv260});

  const std::vector<float> x = Int8ModelInput(11);
  const testing::PlanRun fallback = testing::RunPlan(plans_->fpga, x, OpenFaulty({}, "kv260").runtime, true);
  ASSERT_TRUE(fallback.status.ok()) << fallback.status.ToString();
  ASSERT_EQ(fallback.notes.size(), 1u);
  EXPECT_NE(fallback.notes[0].find(kv260), std::string::npos) << fallback.notes[0];
  for (const NodeProfile& p : fallback.profile) EXPECT_FALSE(p.device.launched);
  EXPECT_TRUE(SameBits(fallback.y, CpuOutput(x)));
}

// Device memory runs out while loading (the launches' command streams and
// constants): the load fails naming the device and the allocation; the same
// device loads the plan once memory is back, and so does a new one.
TEST_F(FpgaFaultsTest, AllocationFailureWhileLoading) {
  for (int fail_after : {0, 1}) {
    SCOPED_TRACE("allocations before the failure: " + std::to_string(fail_after));
    fpga::ModelDeviceFaults faults;
    faults.fail_allocation_after = fail_after;
    FaultyDevice device = OpenFaulty(faults);
    std::shared_ptr<const Engine> engine;
    const Status s = testing::LoadPlan(plans_->fpga, device.runtime, false, &engine);
    EXPECT_EQ(s.code(), StatusCode::kDeviceError);
    ExpectContains(s, {"the launch's command stream and constants (", "fpga-model: cannot allocate",
                       "bytes of device memory (injected failure)"});
    EXPECT_EQ(engine, nullptr);

    device.model->faults() = fpga::ModelDeviceFaults();
    const std::vector<float> x = Int8ModelInput(12);
    const testing::PlanRun again = testing::RunPlan(plans_->fpga, x, device.runtime, false);
    ASSERT_TRUE(again.status.ok()) << again.status.ToString();
    EXPECT_TRUE(SameBits(again.y, CpuOutput(x)));
  }
  const testing::PlanRun fresh = testing::RunPlan(plans_->fpga, Int8ModelInput(13), OpenFaulty().runtime, false);
  ASSERT_TRUE(fresh.status.ok()) << fresh.status.ToString();
  EXPECT_TRUE(SameBits(fresh.y, CpuOutput(Int8ModelInput(13))));
}

// The context's activation arena is device memory too.
TEST_F(FpgaFaultsTest, AllocationFailureForTheArena) {
  FaultyDevice device = OpenFaulty();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(testing::LoadPlan(plans_->fpga, device.runtime, false, &engine).ok());
  device.model->faults().fail_allocation_after = 0;  // every allocation from now on
  std::unique_ptr<ExecutionContext> context;
  const Status s = engine->CreateContext({}, &context);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  ExpectContains(s, {"the activation arena (", "fpga-model: cannot allocate", "(injected failure)"});
  EXPECT_EQ(context, nullptr);

  device.model->faults() = fpga::ModelDeviceFaults();
  ASSERT_TRUE(engine->CreateContext({}, &context).ok());
  const std::vector<float> x = Int8ModelInput(14);
  std::vector<float> y;
  const Status run = testing::RunOnce(*context, x, &y);
  ASSERT_TRUE(run.ok()) << run.ToString();
  EXPECT_TRUE(SameBits(y, CpuOutput(x)));
}

// Two contexts of one engine share the device; each runs on its own thread
// with its own inputs. The runtime serializes the launches, and each
// context's arena is its own device memory, so every output must be the CPU
// plan's for that input.
TEST_F(FpgaFaultsTest, TwoContextsShareOneDeviceFromTwoThreads) {
  constexpr int kThreads = 2, kRuns = 20;
  std::vector<std::vector<float>> inputs, expected;
  for (int i = 0; i < kThreads * kRuns; ++i) {
    inputs.push_back(Int8ModelInput(1000 + i));
    expected.push_back(CpuOutput(inputs.back()));
  }
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(testing::LoadPlan(plans_->fpga, testing::OpenModelRuntime(), false, &engine).ok());
  std::vector<std::unique_ptr<ExecutionContext>> contexts(kThreads);
  for (auto& context : contexts) ASSERT_TRUE(engine->CreateContext({}, &context).ok());

  std::vector<Status> statuses(inputs.size());
  std::vector<std::vector<float>> outputs(inputs.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        const size_t i = static_cast<size_t>(t * kRuns + r);
        statuses[i] = testing::RunOnce(*contexts[t], inputs[i], &outputs[i]);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_TRUE(statuses[i].ok()) << "run " << i << ": " << statuses[i].ToString();
    EXPECT_TRUE(SameBits(outputs[i], expected[i])) << "run " << i << ": " << outputs[i][0] << " vs " << expected[i][0];
  }
}

// The accelerator has no memory protection: a command stream whose DMA
// leaves its buffers is refused before it reaches the device, naming the
// command. A LOAD_WGT past the constant image fails the load (the image is
// known then); a STORE past the arena fails the first run (the arena comes
// with the context), and the device never ran.
TEST_F(FpgaFaultsTest, CommandStreamOutsideItsBuffersIsRefused) {
  uint32_t index = 0;
  uint64_t offset = 0;
  const std::vector<uint8_t> bad_load = testing::PatchFirstCommand<c::LoadWgt>(
      plans_->fpga,
      [&](const plan::Plan& p, c::LoadWgt* op) {
        // Past the whole constants section (so past the image), aligned.
        op->dram_offset = static_cast<uint32_t>(offset = (p.constants_bytes() + 63) / 64 * 64);
      },
      &index);
  FaultyDevice device = OpenFaulty();
  std::shared_ptr<const Engine> engine;
  Status s = testing::LoadPlan(bad_load, device.runtime, false, &engine);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  ExpectContains(s, {"conv1 (Conv): the launch's command stream: command " + std::to_string(index) +
                         " (LOAD_WGT) reads bytes [" + std::to_string(offset) + ", ",
                     "] of slot 1, which has ", "slot 1 the constant image"});

  uint64_t arena_bytes = 0;
  const std::vector<uint8_t> bad_store = testing::PatchFirstCommand<c::Store>(
      plans_->fpga,
      [&](const plan::Plan& p, c::Store* op) {
        arena_bytes = p.arena_bytes();
        op->dram_offset = static_cast<uint32_t>(offset = (arena_bytes + 63) / 64 * 64);
      },
      &index);
  ASSERT_TRUE(testing::LoadPlan(bad_store, device.runtime, false, &engine).ok());
  std::unique_ptr<ExecutionContext> context;
  ASSERT_TRUE(engine->CreateContext({}, &context).ok());
  std::vector<float> y;
  s = testing::RunOnce(*context, Int8ModelInput(15), &y);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  ExpectContains(
      s, {"conv1 (Conv): the launch's command stream: command " + std::to_string(index) + " (STORE) writes bytes [" +
              std::to_string(offset) + ", ",
          "] of slot 0, which has " + std::to_string(arena_bytes) + " bytes", "slot 0 is the context's arena"});
  uint32_t written = 1;
  ASSERT_TRUE(device.model->ReadRegister(c::kRegDmaWriteBytes, &written).ok());
  EXPECT_EQ(written, 0u) << "the device ran the stream";
}

}  // namespace
}  // namespace loom
