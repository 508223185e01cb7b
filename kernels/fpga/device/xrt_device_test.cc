// XrtDevice without a board: opening fails cleanly, as one DeviceError naming
// the device or the xclbin, and nothing XRT throws escapes. XILINX_XRT is
// cleared first so the device open fails the same way on every machine (with
// a board and XRT set up it would open).
#include "kernels/fpga/device/xrt_device.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace loom {
namespace fpga {
namespace {

class XrtDeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("XILINX_XRT", "", 1); }
};

// A file that exists but is no xclbin.
std::string NotAnXclbin() {
  const std::string path = ::testing::TempDir() + "loom_not_an.xclbin";
  std::ofstream(path) << "not an xclbin\n";
  return path;
}

TEST_F(XrtDeviceTest, NoDeviceIsADeviceErrorNamingTheIndex) {
  for (unsigned int index : {0u, 3u}) {
    XrtDeviceOptions options;
    options.xclbin = NotAnXclbin();
    options.device_index = index;
    std::unique_ptr<AccelDevice> device;
    const auto start = std::chrono::steady_clock::now();
    const Status s = XrtDevice::Open(options, &device);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    EXPECT_EQ(s.code(), StatusCode::kDeviceError);
    const std::string prefix = "fpga-xrt: cannot open device " + std::to_string(index) + ": ";
    EXPECT_EQ(s.message().rfind(prefix, 0), 0u) << s.message();
    EXPECT_GT(s.message().size(), prefix.size()) << "XRT's reason is kept";
    EXPECT_EQ(device, nullptr);
  }
}

TEST_F(XrtDeviceTest, MissingXclbinIsNamed) {
  XrtDeviceOptions options;
  options.xclbin = "/nonexistent/loom_accel.xclbin";
  std::unique_ptr<AccelDevice> device;
  const Status s = XrtDevice::Open(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_EQ(s.message(), "fpga-xrt: cannot read xclbin /nonexistent/loom_accel.xclbin: No such file or directory");
  EXPECT_EQ(device, nullptr);
}

TEST_F(XrtDeviceTest, NoXclbinGiven) {
  std::unique_ptr<AccelDevice> device;
  const Status s = XrtDevice::Open(XrtDeviceOptions{}, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("fpga-xrt: no xclbin given", 0), 0u) << s.message();
}

}  // namespace
}  // namespace fpga
}  // namespace loom
