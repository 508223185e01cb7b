// ModelDevice through the driver (accel_driver.h), as the engine will use
// it: a lowered layer in device buffers, flushed, launched, invalidated and
// compared with the int64 reference; the cache rules; the errors a device
// can give (bad stream, injected faults, allocation, identity).
#include "kernels/fpga/device/model_device.h"

#include <gtest/gtest.h>

#include "kernels/fpga/device/accel_driver.h"
#include "kernels/fpga/device/testing/device_conv.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"
#include "kernels/fpga/perf/cycle_model.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;
namespace lt = lowering::testing;
using testing::DeviceConv;
using testing::SmallConv;

const c::AccelConfig& Pynq() { return *c::FindConfig("pynq_z2"); }

// Small memories: each view is zeroed when the device is made.
ModelDeviceOptions SmallMemory() {
  ModelDeviceOptions options;
  options.memory_bytes = size_t{8} << 20;
  return options;
}

TEST(ModelDeviceTest, IdentifiesItsConfiguration) {
  ModelDevice device(Pynq(), SmallMemory());
  const c::AccelConfig* config = nullptr;
  ASSERT_TRUE(Identify(device, &config).ok());
  EXPECT_EQ(config, &Pynq());
  EXPECT_EQ(device.name(), "fpga-model");
}

TEST(ModelDeviceTest, RunsLoweredConvsBitExact) {
  ModelDevice device(Pynq(), SmallMemory());
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    const lt::ConvCase c = SmallConv(seed);
    SCOPED_TRACE(c.name);
    DeviceConv conv(&device, c);
    conv.FlushAll();
    LaunchResult result;
    const Status s = conv.Launch(&result);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(conv.Output(), conv.Expected());
    // The counters: the model's DMA traffic and the cycle model's projection.
    perf::CycleEstimate estimate;
    ASSERT_TRUE(perf::EstimateCycles(Pynq(), conv.program().commands, {}, &estimate).ok());
    EXPECT_GT(result.counters.cycles, 0u);
    EXPECT_NEAR(double(result.counters.cycles), double(estimate.cycles), 0.05 * estimate.cycles);
    EXPECT_EQ(result.counters.compute_busy, estimate.busy[1]);
    EXPECT_EQ(result.counters.dma_write_bytes, conv.program().stats.dma_write_bytes);
  }
}

TEST(ModelDeviceTest, CpuWritesNeedAFlushAndDeviceWritesAnInvalidate) {
  ModelDevice device(Pynq(), SmallMemory());
  const lt::ConvCase c = SmallConv(3);
  DeviceConv conv(&device, c);
  conv.FlushAll(/*input=*/false);  // the accelerator reads a zeroed input
  LaunchResult result;
  ASSERT_TRUE(conv.Launch(&result).ok());
  EXPECT_TRUE(conv.OutputStale());  // nothing reaches the CPU before the Invalidate
  EXPECT_NE(conv.Output(), conv.Expected());
  conv.FlushAll();
  ASSERT_TRUE(conv.Launch(&result).ok());
  EXPECT_EQ(conv.Output(), conv.Expected());
}

TEST(ModelDeviceTest, ErrorRegisterNamesTheCommand) {
  ModelDevice device(Pynq(), SmallMemory());
  DeviceConv conv(&device, SmallConv(4));
  conv.FlushAll();
  device.faults().force_error = c::ErrorCode::kSramRange;
  device.faults().force_error_cmd = 2;
  LaunchResult result;
  Status s = conv.Launch(&result);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_NE(s.message().find("fpga-model: command 2 ("), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("SRAM_RANGE"), std::string::npos) << s.message();
  // The device stays usable.
  device.faults().force_error = c::ErrorCode::kNone;
  EXPECT_TRUE(conv.Launch(&result).ok());
}

TEST(ModelDeviceTest, BadStreamIsADeviceError) {
  ModelDevice device(Pynq(), SmallMemory());
  DeviceBuffer stream;
  ASSERT_TRUE(device.Allocate(2 * c::kCommandBytes, 64, &stream).ok());
  stream.host[c::kCommandBytes] = 0x0F;  // command 1: opcode 15
  stream.host[0] = 0x0F;
  ASSERT_TRUE(device.Flush(stream, 0, stream.bytes).ok());
  LaunchArgs args;
  args.cmd_addr = stream.device_address;
  args.count = 2;
  LaunchResult result;
  const Status s = Launch(device, args, &result);
  EXPECT_NE(s.message().find("command 0 of 2 failed: BAD_OPCODE"), std::string::npos) << s.message();
  EXPECT_EQ(result.error, c::ErrorCode::kBadOpcode);
}

TEST(ModelDeviceTest, StartNeverTakenOrNeverDoneTimesOut) {
  ModelDevice device(Pynq(), SmallMemory());
  DeviceConv conv(&device, SmallConv(5));
  conv.FlushAll();
  LaunchResult result;
  device.faults().ignore_start = true;
  Status s = conv.Launch(&result);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_NE(s.message().find("fpga-model: no ap_done within 5000 ms (ap_start was not taken)"), std::string::npos)
      << s.message();
  device.faults().ignore_start = false;
  EXPECT_TRUE(conv.Launch(&result).ok());  // a start that was never taken leaves the device idle

  device.faults().never_done = true;
  s = conv.Launch(&result);
  EXPECT_NE(s.message().find("started and never finished"), std::string::npos) << s.message();
  s = conv.Launch(&result);
  EXPECT_NE(s.message().find("fpga-model: the accelerator is not idle"), std::string::npos) << s.message();
  // A held run is a slow one: once it may finish, the next launch waits for
  // it and then runs.
  device.faults().never_done = false;
  s = conv.Launch(&result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(conv.Output(), conv.Expected());
}

TEST(ModelDeviceTest, UnknownConfigurationIsRefused) {
  ModelDeviceOptions options = SmallMemory();
  options.faults.config_id = 0x12345678;
  ModelDevice device(Pynq(), options);
  const c::AccelConfig* config = nullptr;
  const Status s = Identify(device, &config);
  EXPECT_EQ(s.message(), "fpga-model: CONFIG_ID 0x12345678 is no known accelerator configuration");
}

TEST(ModelDeviceTest, AllocationFailuresAndReuse) {
  ModelDeviceOptions options;
  options.memory_bytes = 1 << 20;
  ModelDevice device(Pynq(), options);
  DeviceBuffer a, b, big;
  ASSERT_TRUE(device.Allocate(600 << 10, 4096, &a).ok());
  EXPECT_EQ(a.device_address % 4096, 0u);
  Status s = device.Allocate(600 << 10, 64, &big);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_NE(s.message().find("fpga-model: cannot allocate 614400 bytes"), std::string::npos) << s.message();
  device.Free(a);
  ASSERT_TRUE(device.Allocate(600 << 10, 64, &big).ok());  // freed memory is reused
  device.Free(big);
  device.faults().fail_allocation_after = 3;  // 2 made so far
  EXPECT_TRUE(device.Allocate(64, 64, &a).ok());
  s = device.Allocate(64, 64, &b);
  EXPECT_NE(s.message().find("injected"), std::string::npos) << s.message();
  EXPECT_EQ(device.Flush(a, 32, 64).code(), StatusCode::kInvalidArgument);  // outside the buffer
}

}  // namespace
}  // namespace fpga
}  // namespace loom
