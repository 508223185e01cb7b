#include <gtest/gtest.h>

#include "common/device.h"
#include "common/layout.h"
#include "common/node_label.h"
#include "common/quant_params.h"

namespace loom {
namespace {

TEST(NodeLabel, NamesTheNodeOrItsIndex) {
  EXPECT_EQ(NodeLabel("conv1", "Conv", 7), "conv1 (Conv)");
  EXPECT_EQ(NodeLabel("", "Relu", 3), "node #3 (Relu)");
}

TEST(Device, NamesRoundTrip) {
  for (Device d : {Device::kCpu, Device::kFpga}) {
    Device parsed = Device::kCpu;
    ASSERT_TRUE(ParseDevice(DeviceName(d), &parsed));
    EXPECT_EQ(parsed, d);
  }
  Device unused;
  EXPECT_FALSE(ParseDevice("gpu", &unused));
  EXPECT_STREQ(MemorySpaceName(MemorySpace::kDeviceVisible), "device_visible");
}

TEST(Layout, NamesRoundTripAndUnknownValuesAreRejected) {
  for (Layout l : {Layout::kRowMajor, Layout::kNhwc, Layout::kNhwcPadded}) {
    Layout parsed = Layout::kRowMajor;
    ASSERT_TRUE(ParseLayout(LayoutName(l), &parsed));
    EXPECT_EQ(parsed, l);
    EXPECT_TRUE(IsKnownLayout(static_cast<int>(l)));
  }
  EXPECT_FALSE(IsKnownLayout(3));
  EXPECT_FALSE(IsKnownLayout(-1));
}

TEST(QuantParams, PerTensorAndPerChannel) {
  QuantParams q;
  EXPECT_TRUE(q.empty());
  q.scale = {0.5f};
  q.zero_point = {3};
  EXPECT_FALSE(q.per_channel());
  q.scale = {0.5f, 0.25f};
  EXPECT_TRUE(q.per_channel());
}

}  // namespace
}  // namespace loom
