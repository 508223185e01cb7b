// FpgaRuntime over the functional model: the configuration it reports to
// kernels and the engine, device-visible arenas, and launches from several
// threads sharing one device.
#include "kernels/fpga/runtime/fpga_runtime.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "kernels/fpga/device/model_device.h"
#include "kernels/fpga/device/testing/device_conv.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

std::unique_ptr<AccelDevice> SmallModel() {
  ModelDeviceOptions options;
  options.memory_bytes = size_t{16} << 20;
  return std::make_unique<ModelDevice>(*c::FindConfig("pynq_z2"), options);
}

TEST(FpgaRuntimeTest, ReportsTheAcceleratorConfiguration) {
  FpgaRuntime runtime(SmallModel());
  EXPECT_EQ(runtime.config().device(), Device::kFpga);
  EXPECT_EQ(runtime.config().name(), "fpga16");
  EXPECT_EQ(runtime.config().fingerprint(), "loom-accel pynq_z2 0x0E3B8988");
  EXPECT_EQ(FpgaDeviceConfig(*c::FindConfig("kv260")).name(), "fpga32");
  EXPECT_EQ(runtime.name(), "fpga-model");
}

TEST(FpgaRuntimeTest, ArenasAreDeviceVisible) {
  FpgaRuntime runtime(SmallModel());
  MemoryBlock a, b, empty;
  ASSERT_TRUE(runtime.allocator().Allocate(1000, 64, MemorySpace::kDeviceVisible, &a).ok());
  ASSERT_TRUE(runtime.allocator().Allocate(5000, 4096, MemorySpace::kDeviceVisible, &b).ok());
  ASSERT_TRUE(runtime.allocator().Allocate(0, 64, MemorySpace::kDeviceVisible, &empty).ok());
  EXPECT_NE(a.host, nullptr);
  EXPECT_NE(a.device_address, 0u);
  EXPECT_EQ(a.device_address % 64, 0u);
  EXPECT_EQ(b.device_address % 4096, 0u);
  EXPECT_EQ(empty.bytes, 0u);
  runtime.allocator().Free(a);
  runtime.allocator().Free(empty);
  MemoryBlock again;
  ASSERT_TRUE(runtime.allocator().Allocate(1000, 64, MemorySpace::kDeviceVisible, &again).ok());
  EXPECT_EQ(again.device_address, a.device_address);  // freed memory is reused
  MemoryBlock too_big;
  const Status s = runtime.allocator().Allocate(size_t{64} << 20, 64, MemorySpace::kDeviceVisible, &too_big);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_NE(s.message().find("fpga-model: cannot allocate"), std::string::npos) << s.message();
}

TEST(FpgaRuntimeTest, ThreadsShareOneDevice) {
  auto device = SmallModel();
  AccelDevice* raw = device.get();
  FpgaRuntime runtime(std::move(device));
  // Each thread's layer is placed and flushed first; the launches race.
  std::vector<std::unique_ptr<testing::DeviceConv>> convs;
  for (uint32_t seed = 21; seed < 25; ++seed) {
    convs.push_back(std::make_unique<testing::DeviceConv>(raw, testing::SmallConv(seed)));
    convs.back()->FlushAll();
  }
  std::vector<Status> results(convs.size());
  std::vector<std::thread> threads;
  for (size_t t = 0; t < convs.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int repeat = 0; repeat < 5 && results[t].ok(); ++repeat) {
        LaunchResult result;
        results[t] = runtime.Launch(convs[t]->Args(), &result);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < convs.size(); ++t) {
    EXPECT_TRUE(results[t].ok()) << results[t].message();
    EXPECT_EQ(convs[t]->Output(), convs[t]->Expected());
  }
}

}  // namespace
}  // namespace fpga
}  // namespace loom
