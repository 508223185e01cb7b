#include "builder/passes/fuse_bias_add.h"

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
  EXPECT_TRUE(MakeFuseBiasAdd()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

// x[1,2,3,4] -> Conv(3 out channels) -> c[1,3,3,4] -> Add(constant) -> y.
struct ConvAdd {
  IrBuilder b;
  int x, c, y, k, conv, add;
  ConvAdd(const Shape& k_shape, const std::vector<float>& k_values, bool with_bias, bool const_first = false) {
    x = b.Input("x", {1, 2, 3, 4});
    c = b.Tensor("c", {1, 3, 3, 4});
    y = b.Tensor("y", {1, 3, 3, 4});
    std::vector<int> in = {x, b.Const("w", {3, 2, 1, 1}, std::vector<float>(6, 1.f))};
    if (with_bias) in.push_back(b.Const("b", {3}, {0.5f, 1.5f, 2.5f}));
    conv = b.Node("Conv", in, {c}, "conv");
    k = b.Const("k", k_shape, k_values);
    add = b.Node("Add", const_first ? std::vector<int>{k, c} : std::vector<int>{c, k}, {y}, "add");
    b.Output(y);
  }
};

TEST(FuseBiasAddTest, ConvTakesPerChannelConstants) {
  const std::vector<std::pair<Shape, std::vector<float>>> ks = {
      {{1, 3, 1, 1}, {1, 2, 3}}, {{3, 1, 1}, {1, 2, 3}}, {{}, {7}}, {{1, 1, 1, 1}, {7}}};
  for (const auto& [shape, values] : ks)
    for (bool with_bias : {false, true})
      for (bool const_first : {false, true}) {
        ConvAdd t(shape, values, with_bias, const_first);
        EXPECT_EQ(RunPass(t.b), 1);
        ASSERT_EQ(t.b.g.nodes().size(), 1u);
        const ir::Node& conv = t.b.g.node(0);
        EXPECT_EQ(conv.op, "Conv");
        EXPECT_EQ(conv.outputs[0], t.y);
        EXPECT_EQ(conv.fused, (std::vector<std::string>{"Add"}));
        ASSERT_EQ(conv.inputs.size(), 3u);
        std::vector<float> want(3);
        for (int i = 0; i < 3; ++i)
          want[i] = values[values.size() == 1 ? 0 : i] + (with_bias ? 0.5f + static_cast<float>(i) : 0.f);
        EXPECT_EQ(t.b.ConstValues(conv.inputs[2]), want);
        EXPECT_EQ(t.b.g.value(conv.inputs[2]).shape, (Shape{3}));
      }
}

TEST(FuseBiasAddTest, ConvDeclinesOtherBroadcasts) {
  // [3] lines up with W (4), not C; [4] is per column; a full tensor; a
  // constant that widens the output.
  const std::vector<std::pair<Shape, std::vector<float>>> ks = {{{4}, {1, 2, 3, 4}},
                                                                {{1, 1, 1, 4}, {1, 2, 3, 4}},
                                                                {{1, 3, 3, 1}, std::vector<float>(9, 1.f)},
                                                                {{2, 3, 1, 1}, std::vector<float>(6, 1.f)}};
  for (const auto& [shape, values] : ks) {
    ConvAdd t(shape, values, true);
    if (shape == Shape{2, 3, 1, 1}) t.b.g.value(t.y).shape = {2, 3, 3, 4};
    EXPECT_EQ(RunPass(t.b), 0) << ShapeToString(shape);
    EXPECT_NE(t.b.FindNode("Add"), nullptr);
  }
}

TEST(FuseBiasAddTest, DeclinesSharedOutputsAndNonConstants) {
  ConvAdd t({1, 3, 1, 1}, {1, 2, 3}, false);
  t.b.Output(t.c);
  EXPECT_EQ(RunPass(t.b), 0);

  ConvAdd u({1, 3, 1, 1}, {1, 2, 3}, false);
  const int z = u.b.Tensor("z", {1, 3, 3, 4});
  u.b.Node("Relu", {u.c}, {z});
  u.b.Output(z);
  EXPECT_EQ(RunPass(u.b), 0);

  ConvAdd v({1, 3, 1, 1}, {1, 2, 3}, false);
  v.b.node(v.add).inputs[1] = v.b.Input("k_in", {1, 3, 1, 1});
  EXPECT_EQ(RunPass(v.b), 0);

  ConvAdd w({1, 3, 1, 1}, {1, 2, 3}, false);  // a non-constant bias already
  w.b.node(w.conv).inputs.push_back(w.b.Input("b_in", {3}));
  EXPECT_EQ(RunPass(w.b), 0);

  ConvAdd a({1, 3, 1, 1}, {1, 2, 3}, false);  // Add after an activation is not a bias
  a.b.node(a.conv).attrs.SetString("loom.activation", "Relu");
  EXPECT_EQ(RunPass(a.b), 0);
}

// a[M=2,K=3] x b -> p[2,4] -> Add(k) -> y.
struct ProductAdd {
  IrBuilder b;
  int a, w, p, y, k, prod;
  ProductAdd(const std::string& op, const Shape& a_shape, const Shape& k_shape, const std::vector<float>& k_values) {
    a = b.Input("a", a_shape);
    w = b.Input("w", {3, 4});
    Shape out = a_shape;
    out.back() = 4;
    p = b.Tensor("p", out);
    y = b.Tensor("y", out);
    prod = b.Node(op, {a, w}, {p}, "prod");
    k = b.Const("k", k_shape, k_values);
    b.Node("Add", {p, k}, {y}, "add");
    b.Output(y);
  }
};

TEST(FuseBiasAddTest, GemmAddsToBetaTimesC) {
  for (const Shape& ks : {Shape{4}, Shape{1, 4}}) {
    ProductAdd t("Gemm", {2, 3}, ks, {1, 2, 3, 4});
    EXPECT_EQ(RunPass(t.b), 1);
    const ir::Node& gemm = t.b.g.node(0);
    EXPECT_EQ(gemm.op, "Gemm");
    EXPECT_EQ(t.b.ConstValues(gemm.inputs[2]), (std::vector<float>{1, 2, 3, 4}));
  }
  ProductAdd t("Gemm", {2, 3}, {4}, {1, 2, 3, 4});
  t.b.node(t.prod).inputs.push_back(t.b.Const("c", {1, 4}, {2, 4, 6, 8}));
  t.b.node(t.prod).attrs.SetFloat("beta", 0.5f);
  EXPECT_EQ(RunPass(t.b), 1);
  const ir::Node& gemm = t.b.g.node(0);
  EXPECT_EQ(t.b.ConstValues(gemm.inputs[2]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(gemm.attrs.GetFloat("beta", 0.f), 1.f);

  ProductAdd u("Gemm", {2, 3}, {4}, {1, 2, 3, 4});  // C of a full [M, N]: not a bias
  u.b.node(u.prod).inputs.push_back(u.b.Const("c", {2, 4}, std::vector<float>(8, 1.f)));
  EXPECT_EQ(RunPass(u.b), 0);
  ProductAdd v("Gemm", {2, 3}, {2, 1}, {1, 2});  // per row
  EXPECT_EQ(RunPass(v.b), 0);
}

TEST(FuseBiasAddTest, TwoDimensionalMatMulBecomesGemm) {
  ProductAdd t("MatMul", {2, 3}, {1, 4}, {1, 2, 3, 4});
  t.b.node(t.prod).opset = 13;
  EXPECT_EQ(RunPass(t.b), 1);
  const ir::Node& gemm = t.b.g.node(0);
  EXPECT_EQ(gemm.op, "Gemm");
  EXPECT_EQ(gemm.inputs[0], t.a);
  EXPECT_EQ(gemm.inputs[1], t.w);
  EXPECT_EQ(t.b.ConstValues(gemm.inputs[2]), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_FALSE(gemm.attrs.Has("beta"));
  EXPECT_EQ(gemm.outputs[0], t.y);
}

TEST(FuseBiasAddTest, BatchedMatMulTakesLoomBias) {
  for (const Shape& ks : {Shape{4}, Shape{1, 1, 4}}) {
    ProductAdd t("MatMul", {5, 2, 3}, ks, {1, 2, 3, 4});
    EXPECT_EQ(RunPass(t.b), 1);
    const ir::Node& mm = t.b.g.node(0);
    EXPECT_EQ(mm.op, "MatMul");
    ASSERT_EQ(mm.inputs.size(), 3u);
    EXPECT_EQ(t.b.ConstValues(mm.inputs[2]), (std::vector<float>{1, 2, 3, 4}));
    // Twice: the second Add adds to the bias.
    const int z = t.b.Tensor("z", {5, 2, 4});
    t.b.g.outputs() = {z};
    t.b.Node("Add", {t.y, t.b.Const("k2", {4}, {1, 1, 1, 1})}, {z});
    EXPECT_EQ(RunPass(t.b), 1);
    EXPECT_EQ(t.b.ConstValues(t.b.g.node(0).inputs[2]), (std::vector<float>{2, 3, 4, 5}));
  }
  ProductAdd u("MatMul", {5, 2, 3}, {5, 1, 4}, std::vector<float>(20, 1.f));  // per batch
  EXPECT_EQ(RunPass(u.b), 0);
}

}  // namespace
}  // namespace passes
}  // namespace loom
