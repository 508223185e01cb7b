#include "builder/passes/fold_scale_into_conv.h"

#include <gtest/gtest.h>

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
  EXPECT_TRUE(MakeFoldScaleIntoConv()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

// x[1,1,3,3] -> Conv(2 out channels, 2x2) -> c[1,2,2,2] -> Mul(s) -> y.
struct ConvMul {
  IrBuilder b;
  int x, w, c, y, s, conv, mul;
  std::vector<float> weights = {1, 2, 3, 4, -1, -2, -3, -4};
  ConvMul(const Shape& s_shape, const std::vector<float>& s_values, bool with_bias, bool scale_first = false) {
    x = b.Input("x", {1, 1, 3, 3});
    w = b.Const("w", {2, 1, 2, 2}, weights);
    c = b.Tensor("c", {1, 2, 2, 2});
    y = b.Tensor("y", {1, 2, 2, 2});
    std::vector<int> in = {x, w};
    if (with_bias) in.push_back(b.Const("b", {2}, {0.5f, -0.5f}));
    conv = b.Node("Conv", in, {c}, "conv");
    s = b.Const("s", s_shape, s_values);
    mul = b.Node("Mul", scale_first ? std::vector<int>{s, c} : std::vector<int>{c, s}, {y}, "mul");
    b.Output(y);
  }
};

TEST(FoldScaleIntoConvTest, ScalesConvWeightsAndBias) {
  for (bool with_bias : {false, true})
    for (bool scale_first : {false, true}) {
      ConvMul t({1, 2, 1, 1}, {2, -0.5f}, with_bias, scale_first);
      EXPECT_EQ(RunPass(t.b), 1);
      ASSERT_EQ(t.b.g.nodes().size(), 1u);
      const ir::Node& conv = t.b.g.node(0);
      EXPECT_EQ(conv.outputs[0], t.y);
      EXPECT_EQ(conv.fused, (std::vector<std::string>{"Mul"}));
      EXPECT_EQ(t.b.ConstValues(conv.inputs[1]), (std::vector<float>{2, 4, 6, 8, 0.5f, 1, 1.5f, 2}));
      if (with_bias) {
        EXPECT_EQ(t.b.ConstValues(conv.inputs[2]), (std::vector<float>{1, 0.25f}));
      }
      EXPECT_EQ(t.b.ConstValues(t.w), t.weights);  // the original may be shared
    }
  ConvMul u({}, {3}, false);  // a scalar scales every channel
  EXPECT_EQ(RunPass(u.b), 1);
  EXPECT_EQ(u.b.ConstValues(u.b.g.node(0).inputs[1]), (std::vector<float>{3, 6, 9, 12, -3, -6, -9, -12}));
}

TEST(FoldScaleIntoConvTest, Declines) {
  ConvMul a({2}, {2, 3}, false);  // lines up with W, not C
  EXPECT_EQ(RunPass(a.b), 0);
  ConvMul b({1, 2, 2, 2}, std::vector<float>(8, 2.f), false);  // not per channel
  EXPECT_EQ(RunPass(b.b), 0);
  ConvMul c({1, 2, 1, 1}, {2, 3}, false);
  c.b.Output(c.c);  // conv output also a graph output
  EXPECT_EQ(RunPass(c.b), 0);
  ConvMul d({1, 2, 1, 1}, {2, 3}, false);
  d.b.node(d.mul).inputs[1] = d.b.Input("s_in", {1, 2, 1, 1});
  EXPECT_EQ(RunPass(d.b), 0);
  ConvMul e({1, 2, 1, 1}, {2, 3}, false);
  e.b.node(e.conv).inputs[1] = e.b.Input("w_in", {2, 1, 2, 2});
  EXPECT_EQ(RunPass(e.b), 0);
  ConvMul f({1, 2, 1, 1}, {2, 3}, false);
  f.b.node(f.conv).attrs.SetString("loom.activation", "Relu");
  EXPECT_EQ(RunPass(f.b), 0);
  ConvMul h({1, 2, 1, 1}, {2, 3}, false);
  const int z = h.b.Tensor("z", {1, 2, 2, 2});
  h.b.Node("Relu", {h.c}, {z});
  h.b.Output(z);
  EXPECT_EQ(RunPass(h.b), 0);
}

TEST(FoldScaleIntoConvTest, GemmScalesColumnsOfOpB) {
  for (bool trans_b : {false, true}) {
    IrBuilder b;
    const int a = b.Input("a", {2, 2});
    // op(B) = [[1, 2, 3], [4, 5, 6]] (K = 2, N = 3).
    const int w = trans_b ? b.Const("w", {3, 2}, {1, 4, 2, 5, 3, 6}) : b.Const("w", {2, 3}, {1, 2, 3, 4, 5, 6});
    const int c = b.Const("c", {1, 3}, {1, 1, 1});
    const int p = b.Tensor("p", {2, 3}), y = b.Tensor("y", {2, 3});
    const int gemm = b.Node("Gemm", {a, w, c}, {p});
    b.node(gemm).attrs.SetInt("transB", trans_b ? 1 : 0);
    b.Node("Mul", {p, b.Const("s", {3}, {1, 10, 100})}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 1);
    const ir::Node& n = b.g.node(0);
    EXPECT_EQ(b.ConstValues(n.inputs[1]),
              trans_b ? (std::vector<float>{1, 4, 20, 50, 300, 600}) : (std::vector<float>{1, 20, 300, 4, 50, 600}));
    EXPECT_EQ(b.ConstValues(n.inputs[2]), (std::vector<float>{1, 10, 100}));
  }
}

TEST(FoldScaleIntoConvTest, MatMulWithConstantTwoDimensionalB) {
  IrBuilder b;
  const int a = b.Input("a", {4, 2, 2});
  const int w = b.Const("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  const int p = b.Tensor("p", {4, 2, 3}), y = b.Tensor("y", {4, 2, 3});
  b.Node("MatMul", {a, w}, {p});
  b.Node("Mul", {b.Const("s", {1, 1, 3}, {2, 2, -1}), p}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);
  EXPECT_EQ(b.ConstValues(b.g.node(0).inputs[1]), (std::vector<float>{2, 4, -3, 8, 10, -6}));

  IrBuilder u;  // B non-constant
  const int ua = u.Input("a", {2, 2}), uw = u.Input("w", {2, 3});
  const int up = u.Tensor("p", {2, 3}), uy = u.Tensor("y", {2, 3});
  u.Node("MatMul", {ua, uw}, {up});
  u.Node("Mul", {up, u.Const("s", {3}, {2, 2, 2})}, {uy});
  u.Output(uy);
  EXPECT_EQ(RunPass(u), 0);
}

}  // namespace
}  // namespace passes
}  // namespace loom
