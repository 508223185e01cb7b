#include "builder/place/placer.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "builder/lower/insert_relayouts.h"
#include "builder/memory/memory_spaces.h"
#include "builder/place/boundaries.h"
#include "builder/place/kernel_selection.h"
#include "builder/testing/fake_fpga.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/int8_layers.h"
#include "builder/testing/ir_builder.h"
#include "kernels/fpga/kernels/fpga_kernels.h"

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
  EXPECT_TRUE(Contains(s.message(), "unknown target 'gpu' (targets: cpu, fpga16, fpga32)")) << s.message();
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
  EXPECT_EQ(conv1.placement_reason, "fpga: 1x1 conv, predicted 0.10 ms vs cpu 1.00 ms");
  // No FPGA kernel for the op: the device's configuration names it.
  EXPECT_EQ(relu.placement_reason, "cpu: Relu not supported by fake-fpga");

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
  // Each node's own time; the crossings are the plan's boundaries, in and out.
  EXPECT_DOUBLE_EQ(b.g.node(convs[0]).predicted_ms, 0.1);
  EXPECT_DOUBLE_EQ(b.g.node(convs[1]).predicted_ms, 0.1);
  const std::vector<Boundary> boundaries = ListBoundaries(b.g, fpga->cost_model());
  ASSERT_EQ(boundaries.size(), 2u);
  EXPECT_EQ(boundaries[0].value, x);
  EXPECT_EQ(boundaries[0].from, Device::kCpu);
  EXPECT_EQ(boundaries[0].to, Device::kFpga);
  EXPECT_DOUBLE_EQ(boundaries[0].ms, 0.5);
  EXPECT_EQ(boundaries[1].value, prev);
  EXPECT_EQ(boundaries[1].from, Device::kFpga);
  EXPECT_EQ(boundaries[1].to, Device::kCpu);
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

// x -> 3x3 Conv -> depthwise 3x3 Conv -> MaxPool 2x2 -> Add(itself) -> y, int8 on fpga16.
TEST(PlacerTest, Fpga16ReasonsNameTheWorkThePredictionsAndTheRefusals) {
  IrBuilder b;
  testing::Int8Layers l(&b);
  int conv = -1, depthwise = -1, pool = -1, add = -1;
  const int c = l.Conv(l.Input("x", {1, 64, 28, 28}), 64, 3, 1, 1, "conv", &conv);
  const int d = l.Conv(c, 64, 3, 1, /*group=*/64, "depthwise", &depthwise);
  const int p = l.MaxPool(d, 2, "pool", &pool);
  b.Output(l.Add(p, p, "add", &add));
  std::unique_ptr<Target> target;
  ASSERT_TRUE(MakeTarget("fpga16", &target).ok());
  ASSERT_TRUE(PlaceNodes(&b.g, *target, fpga::FpgaKernelRegistry()).ok());
  const CostModel& cost = target->cost_model();

  // The 3x3 conv: 29 MMAC, about 1.3 ms on the 16x16 array against 83 ms on the Cortex-A9.
  const ir::Node& c1 = b.g.node(conv);
  EXPECT_EQ(c1.device, Device::kFpga);
  const double fpga_ms = cost.NodeMs(b.g, c1, Device::kFpga), cpu_ms = cost.NodeMs(b.g, c1, Device::kCpu);
  EXPECT_LT(fpga_ms * 10, cpu_ms);
  char expected[96];
  std::snprintf(expected, sizeof(expected), "fpga: 3x3 conv, predicted %.2f ms vs cpu %.1f ms", fpga_ms, cpu_ms);
  EXPECT_EQ(c1.placement_reason, expected);
  EXPECT_DOUBLE_EQ(c1.predicted_ms, fpga_ms);

  const ir::Node& dw = b.g.node(depthwise);
  EXPECT_EQ(dw.device, Device::kCpu);
  EXPECT_EQ(dw.placement_reason, "cpu: depthwise conv (group 64) not supported by fpga16");
  EXPECT_DOUBLE_EQ(dw.predicted_ms, cost.NodeMs(b.g, dw, Device::kCpu));

  // The pool and the Add on 12544 values: the hand-overs to the accelerator
  // and back cost more than either, so they stay on the CPU, each with both
  // predictions.
  for (int n : {pool, add}) {
    const ir::Node& node = b.g.node(n);
    EXPECT_EQ(node.device, Device::kCpu) << node.Label();
    EXPECT_EQ(node.placement_reason.rfind("cpu: predicted ", 0), 0u) << node.placement_reason;
    EXPECT_TRUE(Contains(node.placement_reason, " vs fpga ")) << node.placement_reason;
  }

  // The conv's input crosses to the accelerator and its output comes back.
  // The plan lists them once the Relayouts that carry them are in, at what
  // the placer paid for them.
  const int x = c1.inputs[0];
  const double in_ms = cost.BoundaryMs(b.g, x, Device::kCpu, Device::kFpga);
  const double out_ms = cost.BoundaryMs(b.g, c, Device::kFpga, Device::kCpu);
  EXPECT_GT(in_ms, out_ms);  // the launch
  int relayouts = 0;
  ASSERT_TRUE(lower::InsertRelayouts(&b.g, *target, &relayouts).ok());
  EXPECT_EQ(relayouts, 2);
  const std::vector<Boundary> boundaries = ListBoundaries(b.g, cost);
  ASSERT_EQ(boundaries.size(), 2u);
  EXPECT_EQ(b.g.value(boundaries[0].value).name, b.g.value(x).name + ".nhwc16");
  EXPECT_EQ(boundaries[0].to, Device::kFpga);
  EXPECT_DOUBLE_EQ(boundaries[0].ms, in_ms);
  EXPECT_EQ(boundaries[1].from, Device::kFpga);
  EXPECT_EQ(boundaries[1].to, Device::kCpu);
  EXPECT_DOUBLE_EQ(boundaries[1].ms, out_ms);
}

TEST(PlacerTest, AnExplainedRefusalFollowsTheDevice) {
  IrBuilder b;
  testing::Int8Layers l(&b);
  int conv = -1;
  b.Output(l.Conv(l.Input("x", {1, 16, 20, 20}), 16, 17, 1, 1, "conv17", &conv));
  std::unique_ptr<Target> target;
  ASSERT_TRUE(MakeTarget("fpga16", &target).ok());
  ASSERT_TRUE(PlaceNodes(&b.g, *target, fpga::FpgaKernelRegistry()).ok());
  const std::string& reason = b.g.node(conv).placement_reason;
  EXPECT_EQ(reason.rfind("cpu: not supported by fpga16: kernel 17x17", 0), 0u) << reason;
}

}  // namespace
}  // namespace place
}  // namespace loom
