#include "builder/place/placer.h"

#include <gtest/gtest.h>

#include "builder/memory/memory_spaces.h"
#include "builder/place/kernel_selection.h"
#include "builder/testing/fake_fpga.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace place {
namespace {

using testing::IrBuilder;

bool Contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// x -> Conv -> Relu -> Conv -> y
struct ConvReluConv {
  IrBuilder b;
  int conv1, relu, conv2;
  ConvReluConv() {
    const int x = b.Input("x", {1, 1, 2, 2});
    const int w = b.Const("w", {1, 1, 1, 1}, {2});
    const int c = b.Tensor("c", {1, 1, 2, 2}), r = b.Tensor("r", {1, 1, 2, 2}), y = b.Tensor("y", {1, 1, 2, 2});
    conv1 = b.Node("Conv", {x, w}, {c}, "conv1");
    relu = b.Node("Relu", {c}, {r}, "relu1");
    conv2 = b.Node("Conv", {r, w}, {y}, "conv2");
    b.Output(y);
  }
};

KernelRegistry FakeCpuAndFpga() {
  KernelRegistry r = testing::MakeFakeRegistry();
  testing::AddFakeFpgaKernels(&r);
  return r;
}

TEST(PlacerTest, CpuTargetPutsEveryNodeOnTheCpu) {
  ConvReluConv m;
  std::unique_ptr<Target> cpu;
  ASSERT_TRUE(MakeTarget("cpu", &cpu).ok());
  const KernelRegistry r = FakeCpuAndFpga();
  ASSERT_TRUE(PlaceNodes(&m.b.g, *cpu, r).ok());
  for (const ir::Node& n : m.b.g.nodes()) {
    EXPECT_EQ(n.device, Device::kCpu) << n.Label();
    EXPECT_EQ(n.placement_reason, "cpu: the only device of target 'cpu'");
    EXPECT_GT(n.predicted_ms, 0) << n.Label();
  }
  ASSERT_TRUE(SelectKernels(&m.b.g, *cpu, r).ok());
  EXPECT_EQ(m.b.g.node(m.conv1).kernel_id, "cpu.Conv");
}

TEST(PlacerTest, UnknownTargetListsTheKnownOnes) {
  std::unique_ptr<Target> t;
  const Status s = MakeTarget("gpu", &t);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), "unknown target 'gpu' (targets: cpu)")) << s.message();
}

TEST(PlacerTest, CheaperDeviceWinsAndReasonsNameBoth) {
  ConvReluConv m;
  const std::unique_ptr<Target> fpga = testing::MakeFakeFpgaTarget(/*boundary_ms=*/0.001);
  const KernelRegistry r = FakeCpuAndFpga();
  ASSERT_TRUE(PlaceNodes(&m.b.g, *fpga, r).ok());
  const ir::Node& conv1 = m.b.g.node(m.conv1);
  const ir::Node& relu = m.b.g.node(m.relu);
  EXPECT_EQ(conv1.device, Device::kFpga);
  EXPECT_EQ(m.b.g.node(m.conv2).device, Device::kFpga);
  EXPECT_EQ(relu.device, Device::kCpu);
  EXPECT_TRUE(Contains(conv1.placement_reason, "fpga: predicted 0.10 ms vs cpu 1.00 ms")) << conv1.placement_reason;
  EXPECT_TRUE(Contains(relu.placement_reason, "cpu: predicted 0.10 ms; fpga cannot run it: ")) << relu.placement_reason;
  EXPECT_TRUE(Contains(relu.placement_reason, "unsupported op 'Relu'")) << relu.placement_reason;

  ASSERT_TRUE(SelectKernels(&m.b.g, *fpga, r).ok());
  EXPECT_EQ(conv1.kernel_id, "fpga.Conv");
  EXPECT_EQ(relu.kernel_id, "cpu.Relu");
  // Everything the FPGA nodes touch is device-visible; the weight is a constant.
  EXPECT_EQ(memory::AssignMemorySpaces(&m.b.g), 4);
  EXPECT_EQ(m.b.g.value(conv1.inputs[0]).memory_space, MemorySpace::kDeviceVisible);
  EXPECT_EQ(m.b.g.value(conv1.inputs[1]).memory_space, MemorySpace::kHost);
}

TEST(PlacerTest, BoundaryCostsArePricedOverTheWholeGraph) {
  ConvReluConv m;
  // Each crossing costs 5 ms: conv1 on the FPGA saves 0.9 ms but costs two
  // crossings (x in, c out), so the best placement keeps everything on the
  // CPU (2.1 ms); a node-by-node choice would take conv1 to the FPGA (6.2 ms).
  const std::unique_ptr<Target> fpga = testing::MakeFakeFpgaTarget(/*boundary_ms=*/5);
  ASSERT_TRUE(PlaceNodes(&m.b.g, *fpga, FakeCpuAndFpga()).ok());
  for (const ir::Node& n : m.b.g.nodes()) EXPECT_EQ(n.device, Device::kCpu) << n.Label();
  const std::string& reason = m.b.g.node(m.conv1).placement_reason;
  EXPECT_TRUE(Contains(reason, "cpu: predicted 1.00 ms vs fpga 0.10 ms (placed with its neighbours")) << reason;
  EXPECT_DOUBLE_EQ(m.b.g.node(m.conv1).predicted_ms, 1.0);
}

// x -> Conv -> Conv -> Conv -> y: with cheap crossings every Conv goes to
// the FPGA and the chain pays one crossing in and one out.
TEST(PlacerTest, AChainStaysOnTheAcceleratorBetweenItsEnds) {
  IrBuilder b;
  const int x = b.Input("x", {1, 1, 2, 2});
  const int w = b.Const("w", {1, 1, 1, 1}, {2});
  int prev = x;
  std::vector<int> convs;
  for (int i = 0; i < 3; ++i) {
    const int out = b.Tensor("t" + std::to_string(i), {1, 1, 2, 2});
    convs.push_back(b.Node("Conv", {prev, w}, {out}, "conv" + std::to_string(i)));
    prev = out;
  }
  b.Output(prev);
  const std::unique_ptr<Target> fpga = testing::MakeFakeFpgaTarget(/*boundary_ms=*/0.5);
  ASSERT_TRUE(PlaceNodes(&b.g, *fpga, FakeCpuAndFpga()).ok());
  for (int c : convs) EXPECT_EQ(b.g.node(c).device, Device::kFpga) << b.g.node(c).Label();
  EXPECT_DOUBLE_EQ(b.g.node(convs[0]).predicted_ms, 0.1 + 0.5);  // x crosses to the FPGA
  EXPECT_DOUBLE_EQ(b.g.node(convs[1]).predicted_ms, 0.1);
  // Crossings dearer than what the FPGA saves (3 x 0.9 ms): all on the CPU.
  IrBuilder b2 = b;
  const std::unique_ptr<Target> dear = testing::MakeFakeFpgaTarget(/*boundary_ms=*/1.5);
  ASSERT_TRUE(PlaceNodes(&b2.g, *dear, FakeCpuAndFpga()).ok());
  for (int c : convs) EXPECT_EQ(b2.g.node(c).device, Device::kCpu) << b2.g.node(c).Label();
}

TEST(PlacerTest, KernelsSeeTheirDeviceConfiguration) {
  // fpga.Conv accepts only the fake FPGA's configuration: on the CPU target
  // it is never a candidate, and selecting it for a CPU-configured node fails.
  ConvReluConv m;
  const std::unique_ptr<Target> fpga = testing::MakeFakeFpgaTarget();
  const KernelRegistry r = FakeCpuAndFpga();
  ASSERT_TRUE(PlaceNodes(&m.b.g, *fpga, r).ok());
  std::unique_ptr<Target> cpu;
  ASSERT_TRUE(MakeTarget("cpu", &cpu).ok());
  const Status s = SelectKernels(&m.b.g, *cpu, r);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_TRUE(Contains(s.message(), "conv1 (Conv): placed on fpga, which target 'cpu' lacks")) << s.message();
}

TEST(PlacerTest, ANodeNoDeviceRunsFailsWithTheCpuReason) {
  IrBuilder b;
  const int x = b.Input("x", {2});
  const int y = b.Tensor("y", {2});
  b.Node("Broken", {x}, {y}, "broken1");
  b.Output(y);
  const std::unique_ptr<Target> fpga = testing::MakeFakeFpgaTarget();
  const Status s = PlaceNodes(&b.g, *fpga, FakeCpuAndFpga());
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  // The CPU kernel's refusal, labelled once.
  EXPECT_EQ(s.message(), "broken1 (Broken): unsupported mode 'whatever'");
}

}  // namespace
}  // namespace place
}  // namespace loom
