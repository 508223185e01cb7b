#include "builder/place/fpga_cost_model.h"

#include <gtest/gtest.h>

#include "builder/exec/kernel_choice.h"
#include "builder/place/boards.h"
#include "builder/place/hand_over.h"
#include "builder/place/target.h"
#include "builder/testing/int8_layers.h"
#include "kernels/fpga/kernels/accel_layer.h"

namespace loom {
namespace place {
namespace {

using testing::Int8Layers;
using testing::IrBuilder;

const fpga::contract::AccelConfig& Pynq() { return *fpga::contract::FindConfig("pynq_z2"); }

struct OneConv {
  IrBuilder b;
  int node = -1;
  OneConv(int64_t c, int64_t size, int64_t out_c, int64_t k, int64_t stride = 1, int64_t group = 1) {
    Int8Layers l(&b);
    b.Output(l.Conv(l.Input("x", {1, c, size, size}), out_c, k, stride, group, "conv", &node));
  }
};

double FpgaMs(const OneConv& m, double clock_mhz = 0) {
  const fpga::FpgaDeviceConfig device(Pynq(), clock_mhz);
  fpga::perf::CycleEstimate estimate;
  double ms = 0;
  const Status s = PredictFpgaNode(m.b.g, m.b.g.node(m.node), device, &estimate, &ms);
  EXPECT_TRUE(s.ok()) << s.message();
  return ms;
}

TEST(FpgaCostModelTest, MatchesTheCycleModelOfTheLoweredStream) {
  const OneConv m(64, 28, 64, 3);
  const fpga::FpgaDeviceConfig device(Pynq());
  fpga::perf::CycleEstimate estimate;
  double ms = 0;
  ASSERT_TRUE(PredictFpgaNode(m.b.g, m.b.g.node(m.node), device, &estimate, &ms).ok());

  // The same layer lowered here at the documented stand-in addresses.
  fpga::AccelLayer layer;
  ASSERT_TRUE(
      fpga::AccelLayerFromSetup(exec::MakeKernelSetup(m.b.g, m.b.g.node(m.node), &device), Pynq(), &layer).ok());
  const uint32_t input_bytes = static_cast<uint32_t>(fpga::PaddedBytes(Pynq(), layer.inputs[0]));
  const uint32_t weight_bytes = static_cast<uint32_t>(fpga::lowering::WeightImageBytes(Pynq(), layer.conv));
  fpga::lowering::Program program;
  ASSERT_TRUE(fpga::LowerAccelLayer(Pynq(), layer, {{0, 0}}, {0, (input_bytes + 63) / 64 * 64},
                                    {{1, 0}, {1, (weight_bytes + 63) / 64 * 64}}, &program)
                  .ok());
  fpga::perf::CycleEstimate expected;
  ASSERT_TRUE(fpga::perf::EstimateCycles(Pynq(), program.commands, {}, &expected).ok());
  EXPECT_EQ(estimate.cycles, expected.cycles);
  EXPECT_EQ(estimate.array_macs, expected.array_macs);
  EXPECT_DOUBLE_EQ(ms, expected.cycles / 100e3);  // pynq_z2 runs at 100 MHz
  // 64x28x28 -> 64 3x3 is 28.9 MMAC: at least its ideal time on 16x16 MACs.
  EXPECT_GT(ms, 28.9e6 / (256 * 100e3));
  // The target's clock scales it.
  EXPECT_DOUBLE_EQ(FpgaMs(m, 200), ms / 2);
}

TEST(FpgaCostModelTest, MoreWorkTakesLonger) {
  const double base = FpgaMs(OneConv(64, 28, 64, 3));
  EXPECT_GT(FpgaMs(OneConv(64, 28, 128, 3)), base);    // more output channels
  EXPECT_GT(FpgaMs(OneConv(64, 56, 64, 3)), base);     // larger image
  EXPECT_GT(FpgaMs(OneConv(128, 28, 64, 3)), base);    // more input channels
  EXPECT_LT(FpgaMs(OneConv(64, 28, 64, 1)), base);     // fewer taps
  EXPECT_LT(FpgaMs(OneConv(64, 28, 64, 3, 2)), base);  // stride 2: a quarter of the outputs
}

TEST(FpgaCostModelTest, ADepthwiseConvIsRefusedWithItsReason) {
  const OneConv m(32, 28, 32, 3, 1, /*group=*/32);
  fpga::perf::CycleEstimate estimate;
  double ms = 0;
  const Status s = PredictFpgaNode(m.b.g, m.b.g.node(m.node), fpga::FpgaDeviceConfig(Pynq()), &estimate, &ms);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("depthwise conv (group 32)"), std::string::npos) << s.message();
}

TEST(FpgaCostModelTest, TheTargetPricesBothDevices) {
  std::unique_ptr<Target> target;
  ASSERT_TRUE(MakeTarget("fpga16", &target).ok());
  const OneConv m(64, 28, 64, 3);
  const ir::Node& conv = m.b.g.node(m.node);
  const double fpga = target->cost_model().NodeMs(m.b.g, conv, Device::kFpga);
  EXPECT_DOUBLE_EQ(fpga, FpgaMs(m));
  // The Cortex-A9 roofline at 0.35 GMAC/s of int8: 28.9 MMAC in 83 ms.
  const double macs = 64.0 * 28 * 28 * 64 * 9;
  EXPECT_DOUBLE_EQ(target->cost_model().NodeMs(m.b.g, conv, Device::kCpu), macs / 0.35e6);
  EXPECT_NE(target->cost_model().name().find("pynq_z2 cycle model at 100 MHz"), std::string::npos)
      << target->cost_model().name();
}

TEST(FpgaCostModelTest, HandOversPriceLayoutCacheAndLaunch) {
  const BoardSpec& board = *FindBoard("fpga16");
  IrBuilder b;
  Int8Layers l(&b);
  const int image_id = l.Input("image", {1, 24, 10, 10});  // 24 channels pad to 32
  const int padded_id = l.Input("padded", {1, 24, 10, 10});
  b.g.value(padded_id).layout = Layout::kNhwcPadded;  // a Relayout's output
  b.g.value(padded_id).padded_bytes = 10 * 10 * 32;
  const ir::Value& image = b.g.value(image_id);
  const ir::Value& padded_value = b.g.value(padded_id);
  const HandOver to_fpga = PriceHandOver(board, Pynq(), image, Device::kCpu, Device::kFpga);
  const HandOver to_cpu = PriceHandOver(board, Pynq(), image, Device::kFpga, Device::kCpu);
  const double padded = 10 * 10 * 32;
  EXPECT_DOUBLE_EQ(to_fpga.relayout_ms, (2400 + padded) / (board.cpu.gbytes * 1e6));
  EXPECT_DOUBLE_EQ(to_fpga.cache_ms, board.cache_call_us / 1e3 + padded / (board.cache_gbytes * 1e6));
  EXPECT_DOUBLE_EQ(to_fpga.launch_ms, board.launch_us / 1e3);  // the crossing starts a launch
  EXPECT_DOUBLE_EQ(to_cpu.relayout_ms, to_fpga.relayout_ms);
  EXPECT_DOUBLE_EQ(to_cpu.cache_ms, to_fpga.cache_ms);
  EXPECT_EQ(to_cpu.launch_ms, 0);
  // The Relayout's padded output prices the same hand-over.
  EXPECT_DOUBLE_EQ(PriceHandOver(board, Pynq(), padded_value, Device::kCpu, Device::kFpga).total_ms(),
                   to_fpga.total_ms());
  EXPECT_EQ(PriceHandOver(board, Pynq(), image, Device::kFpga, Device::kFpga).total_ms(), 0);
}

}  // namespace
}  // namespace place
}  // namespace loom
