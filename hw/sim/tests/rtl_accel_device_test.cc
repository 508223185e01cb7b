// The fpga-rtl backend (RtlAccelDevice) through the driver every backend
// shares: lowered layers flushed, launched on the Verilated RTL over
// AXI-Lite, invalidated and compared with the int64 reference; the cache
// rules, the counters, a bad stream, a timeout, and the factory.
#include "hw/sim/rtl_accel_device.h"

#include <gtest/gtest.h>

#include <memory>

#include "kernels/fpga/device/accel_driver.h"
#include "kernels/fpga/device/device_factory.h"
#include "kernels/fpga/device/testing/device_conv.h"

namespace loom {
namespace hw_sim {
namespace {

namespace c = fpga::contract;
using fpga::testing::DeviceConv;
using fpga::testing::SmallConv;

std::unique_ptr<fpga::AccelDevice> Open() {
  RtlAccelDeviceOptions options;
  options.memory_bytes = size_t{8} << 20;
  std::unique_ptr<fpga::AccelDevice> device;
  const Status s = RtlAccelDevice::Open(options, &device);
  EXPECT_TRUE(s.ok()) << s.message();
  return device;
}

TEST(RtlAccelDeviceTest, IdentifiesAndRunsLoweredConvsBitExact) {
  auto device = Open();
  ASSERT_NE(device, nullptr);
  const c::AccelConfig* config = nullptr;
  ASSERT_TRUE(fpga::Identify(*device, &config).ok());
  EXPECT_STREQ(config->name, "pynq_z2");
  for (uint32_t seed = 31; seed < 35; ++seed) {
    DeviceConv conv(device.get(), SmallConv(seed));
    conv.FlushAll();
    fpga::LaunchResult result;
    const Status s = conv.Launch(&result);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(conv.Output(), conv.Expected());
    EXPECT_GT(result.counters.cycles, 0u);
    EXPECT_GT(result.counters.compute_busy, 0u);
    EXPECT_EQ(result.counters.dma_write_bytes, conv.program().stats.dma_write_bytes);
  }
}

TEST(RtlAccelDeviceTest, DataCrossesOnlyThroughFlushAndInvalidate) {
  auto device = Open();
  ASSERT_NE(device, nullptr);
  DeviceConv conv(device.get(), SmallConv(36));
  conv.FlushAll(/*input=*/false);
  fpga::LaunchResult result;
  ASSERT_TRUE(conv.Launch(&result).ok());
  EXPECT_TRUE(conv.OutputStale());
  EXPECT_NE(conv.Output(), conv.Expected());
}

TEST(RtlAccelDeviceTest, BadStreamAndTimeoutAreDeviceErrors) {
  auto device = Open();
  ASSERT_NE(device, nullptr);
  fpga::DeviceBuffer stream;
  ASSERT_TRUE(device->Allocate(c::kCommandBytes, 64, &stream).ok());
  stream.host[0] = 0x0F;  // opcode 15
  ASSERT_TRUE(device->Flush(stream, 0, stream.bytes).ok());
  fpga::LaunchArgs args;
  args.cmd_addr = stream.device_address;
  args.count = 1;
  fpga::LaunchResult result;
  Status s = fpga::Launch(*device, args, &result);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_NE(s.message().find("fpga-rtl: command 0 of 1 failed: BAD_OPCODE"), std::string::npos) << s.message();

  // ap_done never rises when nothing was started: a timeout in simulated
  // time (1 ms: 100,000 cycles), and the device stays usable.
  s = device->WaitDone(/*timeout_ms=*/1);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_NE(s.message().find("fpga-rtl: no ap_done within 1 ms"), std::string::npos) << s.message();
  DeviceConv conv(device.get(), SmallConv(37));
  conv.FlushAll();
  s = conv.Launch(&result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(conv.Output(), conv.Expected());
}

TEST(RtlAccelDeviceTest, TheFactoryOpensItOnceRegistered) {
  fpga::AccelDeviceOptions options;
  options.name = "fpga-rtl";
  options.model_memory_bytes = size_t{4} << 20;
  std::unique_ptr<fpga::AccelDevice> device;
  RegisterRtlAccelDevice();
  const Status s = fpga::OpenAccelDevice(options, &device);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(device->name(), "fpga-rtl");
}

}  // namespace
}  // namespace hw_sim
}  // namespace loom
