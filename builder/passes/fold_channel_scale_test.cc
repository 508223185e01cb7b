#include "builder/passes/fold_channel_scale.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "builder/testing/ir_builder.h"
#include "builder/testing/pass_runner.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

// x [1, Cin/8, h, w, 8] (a graph input), s [1, Cin/8, 1, 1, 8] (an input:
// the excitation), Mul(x, s) -> m, 1x1 loom.ConvNchwc(m, w, bias) with
// Cout output channels -> y.
struct Block {
  IrBuilder b;
  int x, s, m, w, bias, y, mul, conv;
  explicit Block(int64_t cin = 16, int64_t cout = 8, int64_t h = 4, int64_t w_ = 4, bool scale_first = false,
                 int64_t k = 1) {
    x = b.Input("x", {1, cin / 8, h, w_, 8});
    s = b.Input("s", {1, cin / 8, 1, 1, 8});
    m = b.Tensor("m", {1, cin / 8, h, w_, 8});
    w = b.Const("w", {cout / 8, cin / 8, k, k, 8, 8},
                std::vector<float>(static_cast<size_t>(cout * cin * k * k), 0.5f));
    bias = b.Const("b", {cout}, std::vector<float>(static_cast<size_t>(cout), 1.f));
    y = b.Tensor("y", {1, cout / 8, h - k + 1, w_ - k + 1, 8});
    mul = b.Node("Mul", scale_first ? std::vector<int>{s, x} : std::vector<int>{x, s}, {m}, "se_scale");
    conv = b.Node("ConvNchwc", {m, w, bias}, {y}, "project");
    b.node(conv).domain = "loom";
    b.node(conv).attrs.SetInts("kernel_shape", {k, k});
    b.Output(y);
  }
  int Run() { return testing::RunPass(*MakeFoldChannelScale(), b); }
};

TEST(FoldChannelScaleTest, FoldsTheScaleIntoThePointwiseConv) {
  for (bool scale_first : {false, true}) {
    Block k(16, 8, 4, 4, scale_first);
    EXPECT_EQ(k.Run(), 1) << scale_first;
    ASSERT_EQ(k.b.g.nodes().size(), 1u);
    const ir::Node& n = k.b.g.node(0);
    EXPECT_EQ(n.op, "ConvNchwc");
    EXPECT_EQ(n.inputs, (std::vector<int>{k.x, k.w, k.bias, -1, k.s}));
    EXPECT_EQ(n.outputs, (std::vector<int>{k.y}));
    EXPECT_EQ(n.attrs.GetInt("loom.input_scale", 0), 1);
    EXPECT_EQ(n.fused, (std::vector<std::string>{"Mul"}));
  }
}

TEST(FoldChannelScaleTest, KeepsAResidual) {
  Block k;
  const int r = k.b.Input("r", {1, 1, 4, 4, 8});
  ir::Node& conv = k.b.node(k.conv);
  conv.inputs.push_back(r);
  conv.attrs.SetInt("loom.residual", 1);
  EXPECT_EQ(k.Run(), 1);
  ASSERT_EQ(k.b.g.nodes().size(), 1u);
  EXPECT_EQ(k.b.g.node(0).inputs, (std::vector<int>{k.x, k.w, k.bias, r, k.s}));
}

TEST(FoldChannelScaleTest, LeavesTheMulWhereScalingTheWeightsCostsMore) {
  Block small_image(16, 16, 4, 4);  // Cout 16 >= 4 * 4 pixels
  EXPECT_EQ(small_image.Run(), 0);
  EXPECT_EQ(small_image.b.g.nodes().size(), 2u);
  Block three_by_three(16, 8, 6, 6, false, 3);  // 3x3: would lose Winograd
  EXPECT_EQ(three_by_three.Run(), 0);
}

TEST(FoldChannelScaleTest, LeavesTheMulWhenItsOutputIsUsedElsewhere) {
  Block output;
  output.b.Output(output.m);
  EXPECT_EQ(output.Run(), 0);
  Block shared;
  const int z = shared.b.Tensor("z", {1, 2, 4, 4, 8});
  shared.b.Node("Relu", {shared.m}, {z}, "other");
  shared.b.Output(z);
  EXPECT_EQ(shared.Run(), 0);
}

TEST(FoldChannelScaleTest, NeedsAPerChannelScaleOfTheConvInput) {
  Block full;  // both operands full tensors
  full.b.g.value(full.s).shape = {1, 2, 4, 4, 8};
  EXPECT_EQ(full.Run(), 0);
  Block on_w;  // the Mul feeds the weights, not X
  ir::Node& conv = on_w.b.node(on_w.conv);
  std::swap(conv.inputs[0], conv.inputs[1]);
  EXPECT_EQ(on_w.Run(), 0);
}

// The CPU kernel decides: a node it refuses stays as it was.
TEST(FoldChannelScaleTest, OnlyWhatTheKernelTakes) {
  Block k;
  k.b.node(k.conv).attrs.SetString("loom.activation", "Gelu");  // no ConvNchwc kernel takes it
  EXPECT_EQ(k.Run(), 0);
}

}  // namespace
}  // namespace passes
}  // namespace loom
