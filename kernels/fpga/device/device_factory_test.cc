// OpenAccelDevice: every backend by name, the options reaching it, the
// errors for unknown names and missing backends, the expected configuration,
// and an opener registered from outside (as hw/sim registers fpga-rtl).
#include "kernels/fpga/device/device_factory.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>

#include "kernels/fpga/device/accel_driver.h"
#include "kernels/fpga/device/model_device.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

// Small model memories keep the tests quick.
AccelDeviceOptions Small() {
  AccelDeviceOptions options;
  options.model_memory_bytes = size_t{1} << 20;
  return options;
}

TEST(DeviceFactoryTest, OpensTheModelByDefault) {
  std::unique_ptr<AccelDevice> device;
  ASSERT_TRUE(OpenAccelDevice(Small(), &device).ok());
  EXPECT_EQ(device->name(), "fpga-model");
  EXPECT_STREQ(device->config().name, "pynq_z2");
  const c::AccelConfig* config = nullptr;
  EXPECT_TRUE(Identify(*device, &config).ok());

  AccelDeviceOptions options = Small();
  options.model_config = "kv260";
  ASSERT_TRUE(OpenAccelDevice(options, &device).ok());
  EXPECT_STREQ(device->config().name, "kv260");
  DeviceBuffer buffer;
  EXPECT_EQ(device->Allocate(size_t{2} << 20, 64, &buffer).code(), StatusCode::kDeviceError);  // 1 MiB only

  options.model_config = "zcu104";
  const Status s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "fpga-model: no accelerator configuration 'zcu104' (known: pynq_z2, kv260)");
}

TEST(DeviceFactoryTest, UnknownNamesListTheValidOnes) {
  AccelDeviceOptions options;
  options.name = "fpga-cuda";
  std::unique_ptr<AccelDevice> device;
  const Status s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown accelerator device 'fpga-cuda' (valid: fpga-model, fpga-xrt, fpga-zynq)");
  EXPECT_EQ(device, nullptr);
}

TEST(DeviceFactoryTest, XrtWithoutABoardOrWithoutXrt) {
  ::setenv("XILINX_XRT", "", 1);  // no XRT set up: the open fails the same way everywhere
  const std::string xclbin = ::testing::TempDir() + "loom_factory.xclbin";
  std::ofstream(xclbin) << "not an xclbin\n";
  AccelDeviceOptions options;
  options.name = "fpga-xrt";
  options.xclbin = xclbin;
  options.xrt_device_index = 2;
  std::unique_ptr<AccelDevice> device;
  const Status s = OpenAccelDevice(options, &device);
#ifdef LOOM_HAVE_XRT
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_EQ(s.message().rfind("fpga-xrt: cannot open device 2: ", 0), 0u) << s.message();
#else
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(), "fpga-xrt: this Loom was built without XRT (install libxrt-dev and rebuild)");
#endif
  EXPECT_EQ(device, nullptr);
}

TEST(DeviceFactoryTest, ZynqOptionsReachTheBackend) {
  AccelDeviceOptions options;
  options.name = "fpga-zynq";
  options.uio = "/nonexistent/uio0";
  std::unique_ptr<AccelDevice> device;
  Status s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_EQ(s.message(), "fpga-zynq: /nonexistent/uio0: No such file or directory");

  options.uio.clear();
  options.fpga_base = 0x43C00800;
  s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("fpga-zynq: register base 0x43C00800 is not aligned", 0), 0u) << s.message();
}

TEST(DeviceFactoryTest, ExpectedConfigurationIsChecked) {
  AccelDeviceOptions options = Small();
  options.model_config = "kv260";
  options.expect_config = "pynq_z2";
  std::unique_ptr<AccelDevice> device;
  Status s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_EQ(
      s.message(),
      "fpga-model: the hardware implements kv260 (CONFIG_ID 0x6164E1AC), expected pynq_z2 (CONFIG_ID 0x0E3B8988)");
  EXPECT_EQ(device, nullptr);

  options.expect_config = "kv260";
  EXPECT_TRUE(OpenAccelDevice(options, &device).ok());

  options.expect_config = "kv261";
  s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "fpga-model: no accelerator configuration 'kv261' (known: pynq_z2, kv260)");
}

// What hw/sim does for fpga-rtl: register an opener by name.
Status OpenFakeRtl(const AccelDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
  const c::AccelConfig* config = c::FindConfig(options.model_config.c_str());
  if (config == nullptr) return Status::InvalidArgument("fpga-rtl: no configuration " + options.model_config);
  ModelDeviceOptions model;
  model.memory_bytes = options.model_memory_bytes;
  *out = std::make_unique<ModelDevice>(*config, model);
  return Status::Ok();
}

TEST(DeviceFactoryTest, RegisteredOpeners) {
  AccelDeviceOptions options = Small();
  options.name = "fpga-rtl";
  std::unique_ptr<AccelDevice> device;
  Status s = OpenAccelDevice(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message().rfind("fpga-rtl: this program was built without the RTL simulation", 0), 0u) << s.message();

  RegisterAccelDeviceOpener("fpga-rtl", &OpenFakeRtl);
  EXPECT_EQ(AccelDeviceNames(), (std::vector<std::string>{"fpga-model", "fpga-xrt", "fpga-zynq", "fpga-rtl"}));
  ASSERT_TRUE(OpenAccelDevice(options, &device).ok());
  EXPECT_STREQ(device->config().name, "pynq_z2");
  options.model_config = "none";
  EXPECT_EQ(OpenAccelDevice(options, &device).message(), "fpga-rtl: no configuration none");

  options.name = "fpga-cuda";
  EXPECT_EQ(OpenAccelDevice(options, &device).message(),
            "unknown accelerator device 'fpga-cuda' (valid: fpga-model, fpga-xrt, fpga-zynq, fpga-rtl)");

  RegisterAccelDeviceOpener("fpga-rtl", nullptr);
  EXPECT_EQ(AccelDeviceNames().size(), 3u);
}

}  // namespace
}  // namespace fpga
}  // namespace loom
