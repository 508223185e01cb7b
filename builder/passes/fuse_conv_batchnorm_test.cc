#include "builder/passes/fuse_conv_batchnorm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

int RunPass(IrBuilder& b) {
  KernelRegistry r = testing::MakeFakeRegistry();
  PassContext ctx;
  ctx.registry = &r;
  int changes = 0;
  EXPECT_TRUE(MakeFuseConvBatchNorm()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

struct ConvBn {
  IrBuilder b;
  int x, w, bias, c, y;
  std::vector<float> weights = {1, 2, 3, 4, -1, -2, -3, -4};  // 2 out channels x 1 x 2 x 2
  std::vector<float> conv_bias = {0.5f, -0.5f};
  std::vector<float> scale = {2, 0.5f}, shift = {1, -1}, mean = {0.25f, -3}, var = {4, 0.0625f};

  explicit ConvBn(bool with_bias) {
    x = b.Input("x", {1, 1, 3, 3});
    w = b.Const("w", {2, 1, 2, 2}, weights);
    bias = with_bias ? b.Const("b", {2}, conv_bias) : -1;
    c = b.Tensor("c", {1, 2, 2, 2});
    y = b.Tensor("y", {1, 2, 2, 2});
    std::vector<int> conv_inputs = {x, w};
    if (with_bias) conv_inputs.push_back(bias);
    b.Node("Conv", conv_inputs, {c}, "conv");
    const int bn = b.Node("BatchNormalization",
                          {c, b.Const("s", {2}, scale), b.Const("sh", {2}, shift), b.Const("m", {2}, mean),
                           b.Const("v", {2}, var)},
                          {y}, "bn");
    b.node(bn).attrs.SetFloat("epsilon", 1e-3f);
    b.Output(y);
  }
};

TEST(FuseConvBatchNormTest, FoldsScaleAndShiftIntoTheConv) {
  for (bool with_bias : {true, false}) {
    ConvBn t(with_bias);
    EXPECT_EQ(RunPass(t.b), 1);
    ASSERT_EQ(t.b.g.nodes().size(), 1u);
    const ir::Node& conv = t.b.g.node(0);
    EXPECT_EQ(conv.outputs[0], t.y);
    EXPECT_EQ(conv.fused, (std::vector<std::string>{"BatchNormalization"}));
    ASSERT_EQ(conv.inputs.size(), 3u);
    const std::vector<float> w = t.b.ConstValues(conv.inputs[1]);
    const std::vector<float> b = t.b.ConstValues(conv.inputs[2]);
    ASSERT_EQ(w.size(), 8u);
    ASSERT_EQ(b.size(), 2u);
    for (int m = 0; m < 2; ++m) {
      const float s = t.scale[m] / std::sqrt(t.var[m] + 1e-3f);
      for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(w[m * 4 + k], t.weights[m * 4 + k] * s);
      const float cb = with_bias ? t.conv_bias[m] : 0.f;
      EXPECT_FLOAT_EQ(b[m], (cb - t.mean[m]) * s + t.shift[m]);
    }
    // The original weights are untouched (they could be shared).
    EXPECT_EQ(t.b.ConstValues(t.w), t.weights);
  }
}

TEST(FuseConvBatchNormTest, NotWhenConvOutputIsUsedElsewhere) {
  ConvBn t(true);
  t.b.Output(t.c);
  EXPECT_EQ(RunPass(t.b), 0);
  ConvBn u(true);
  const int z = u.b.Tensor("z", {1, 2, 2, 2});
  u.b.Node("Relu", {u.c}, {z});
  u.b.Output(z);
  EXPECT_EQ(RunPass(u.b), 0);
  EXPECT_NE(u.b.FindNode("BatchNormalization"), nullptr);
}

TEST(FuseConvBatchNormTest, NotWithNonConstantWeightsOrAlone) {
  IrBuilder b;
  const int x = b.Input("x", {1, 2, 2, 2});
  const int w = b.Input("w", {2, 2, 1, 1});
  const int c = b.Tensor("c", {1, 2, 2, 2}), y = b.Tensor("y", {1, 2, 2, 2}), z = b.Tensor("z", {1, 2, 2, 2});
  auto params = [&] {
    return std::vector<int>{b.Const("s", {2}, {1, 1}), b.Const("b", {2}, {0, 0}), b.Const("m", {2}, {0, 0}),
                            b.Const("v", {2}, {1, 1})};
  };
  b.Node("Conv", {x, w}, {c});
  std::vector<int> in = params();
  in.insert(in.begin(), c);
  b.Node("BatchNormalization", in, {y});
  in = params();
  in.insert(in.begin(), x);
  b.Node("BatchNormalization", in, {z});
  b.Output(y);
  b.Output(z);
  EXPECT_EQ(RunPass(b), 0);
  EXPECT_EQ(b.g.nodes().size(), 3u);
}

}  // namespace
}  // namespace passes
}  // namespace loom
