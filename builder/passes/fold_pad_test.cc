#include "builder/passes/fold_pad.h"

#include <gtest/gtest.h>

#include <limits>

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
  EXPECT_TRUE(MakeFoldPad()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

// x[1,2,4,4] -> Pad -> p -> `op` -> y, the Pad in the opset-11 form with a
// constant pads input (and a value input when `value` is given).
struct PadThen {
  IrBuilder b;
  int x, p, y, pad, consumer;

  PadThen(const std::string& op, const std::vector<int64_t>& pads, const float* value = nullptr, int opset = 13) {
    x = b.Input("x", {1, 2, 4, 4});
    p = b.Tensor("p", {1, 2, 7, 6});
    y = b.Tensor("y", {1, 2, 4, 4}, DType::kFloat32, false);
    std::vector<int> pad_inputs = {x};
    if (opset >= 11) {
      pad_inputs.push_back(b.ConstInt64("pads", {static_cast<int64_t>(pads.size())}, pads));
      if (value != nullptr) pad_inputs.push_back(b.Const("value", {}, {*value}));
    }
    pad = b.Node("Pad", pad_inputs, {p}, "pad");
    b.node(pad).opset = opset;
    if (opset < 11) {
      b.node(pad).attrs.SetInts("pads", pads);
      if (value != nullptr) b.node(pad).attrs.SetFloat("value", *value);
    }
    std::vector<int> in = {p};
    if (op == "Conv") in.push_back(b.Const("w", {2, 2, 3, 3}, std::vector<float>(36, 1.f)));
    consumer = b.Node(op, in, {y}, "consumer");
    if (op != "Conv") b.node(consumer).attrs.SetInts("kernel_shape", {3, 3});
    b.Output(y);
  }
  const ir::Node& Consumer() const {
    for (const ir::Node& n : b.g.nodes())
      if (n.name == "consumer") return n;
    return b.g.nodes().front();
  }
};

const std::vector<int64_t> kSpatial = {0, 0, 1, 2, 0, 0, 2, 0};  // H: 1 before, 2 after; W: 2 before

TEST(FoldPadTest, MergesSpatialZeroPadsIntoConvPads) {
  for (int opset : {2, 11, 18}) {
    PadThen t("Conv", kSpatial, nullptr, opset);
    ir::Node& conv = t.b.node(t.consumer);
    conv.attrs.SetInts("pads", {1, 0, 0, 1});
    conv.attrs.SetString("auto_pad", "NOTSET");
    EXPECT_EQ(RunPass(t.b), 1) << opset;
    ASSERT_EQ(t.b.g.nodes().size(), 1u);
    const ir::Node& c = t.Consumer();
    EXPECT_EQ(c.inputs[0], t.x);
    EXPECT_EQ(c.attrs.GetInts("pads"), (std::vector<int64_t>{2, 2, 2, 1}));
    EXPECT_EQ(c.fused, (std::vector<std::string>{"Pad"}));
  }
}

TEST(FoldPadTest, ExplicitZeroValueAndAxesInput) {
  const float zero = 0.f;
  PadThen t("Conv", {0, 0, 0, 0}, &zero);
  // Opset 18 axes: pad only H and W, given as negative axes.
  ir::Node& pad = t.b.node(t.pad);
  pad.opset = 18;
  pad.inputs[1] = t.b.ConstInt64("pads2", {4}, {1, 2, 2, 0});
  pad.inputs.push_back(t.b.ConstInt64("axes", {2}, {-2, -1}));
  EXPECT_EQ(RunPass(t.b), 1);
  EXPECT_EQ(t.Consumer().attrs.GetInts("pads"), (std::vector<int64_t>{1, 2, 2, 0}));
}

TEST(FoldPadTest, DeclinesWhatConvPadsCannotExpress) {
  const float one = 1.f;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  struct Case {
    std::vector<int64_t> pads;
    const float* value;
    std::string mode;
    std::string auto_pad;
  };
  const std::vector<Case> cases = {
      {kSpatial, &one, "constant", ""},                      // value 1
      {kSpatial, &neg_inf, "constant", ""},                  // -inf into a Conv
      {{0, 1, 1, 1, 0, 0, 1, 1}, nullptr, "constant", ""},   // pads channels
      {{1, 0, 0, 0, 0, 0, 0, 0}, nullptr, "constant", ""},   // pads the batch
      {{0, 0, 1, -1, 0, 0, 1, 1}, nullptr, "constant", ""},  // crops
      {kSpatial, nullptr, "reflect", ""},                    // not constant mode
      {kSpatial, nullptr, "constant", "SAME_UPPER"},         // consumer's auto_pad
  };
  for (const Case& c : cases) {
    PadThen t("Conv", c.pads, c.value);
    if (!c.mode.empty()) t.b.node(t.pad).attrs.SetString("mode", c.mode);
    if (!c.auto_pad.empty()) t.b.node(t.consumer).attrs.SetString("auto_pad", c.auto_pad);
    EXPECT_EQ(RunPass(t.b), 0);
    EXPECT_NE(t.b.FindNode("Pad"), nullptr);
    EXPECT_EQ(t.Consumer().inputs[0], t.p);
    EXPECT_FALSE(t.Consumer().attrs.Has("pads"));
  }
}

TEST(FoldPadTest, DeclinesPadsAsWideAsTheWindow) {
  // Conv 3x3: pad 2 is the most; 3 would put a window wholly in the padding.
  PadThen t("Conv", {0, 0, 3, 0, 0, 0, 0, 0});
  EXPECT_EQ(RunPass(t.b), 0);
  PadThen u("Conv", {0, 0, 2, 0, 0, 0, 0, 0});
  u.b.node(u.consumer).attrs.SetInts("pads", {1, 0, 0, 0});  // 1 + 2
  EXPECT_EQ(RunPass(u.b), 0);
  PadThen v("Conv", {0, 0, 3, 0, 0, 0, 0, 0});
  v.b.node(v.consumer).attrs.SetInts("dilations", {2, 1});  // extent 5
  EXPECT_EQ(RunPass(v.b), 1);
  PadThen w("AveragePool", {0, 0, 0, 3, 0, 0, 0, 0});  // kernel_shape 3x3
  EXPECT_EQ(RunPass(w.b), 0);
}

TEST(FoldPadTest, DeclinesNonConstantPadsOrValue) {
  PadThen t("Conv", kSpatial);
  t.b.node(t.pad).inputs[1] = t.b.Input("pads_in", {8}, DType::kInt64);
  EXPECT_EQ(RunPass(t.b), 0);
  const float zero = 0.f;
  PadThen u("Conv", kSpatial, &zero);
  u.b.node(u.pad).inputs[2] = u.b.Input("value_in", {}, DType::kFloat32);
  EXPECT_EQ(RunPass(u.b), 0);
}

TEST(FoldPadTest, PadKeptForOtherReadersAndGraphOutputs) {
  PadThen t("Conv", kSpatial);
  const int z = t.b.Tensor("z", {1, 2, 7, 6});
  t.b.Node("Relu", {t.p}, {z});
  t.b.Output(z);
  EXPECT_EQ(RunPass(t.b), 1);
  EXPECT_NE(t.b.FindNode("Pad"), nullptr);  // still feeds the Relu
  EXPECT_EQ(t.Consumer().inputs[0], t.x);
  EXPECT_EQ(t.Consumer().attrs.GetInts("pads"), (std::vector<int64_t>{1, 2, 2, 0}));

  PadThen u("Conv", kSpatial);
  u.b.Output(u.p);
  EXPECT_EQ(RunPass(u.b), 1);
  EXPECT_NE(u.b.FindNode("Pad"), nullptr);

  // The padded tensor as the Conv's weights is not a data input.
  PadThen v("Conv", kSpatial);
  std::swap(v.b.node(v.consumer).inputs[0], v.b.node(v.consumer).inputs[1]);
  EXPECT_EQ(RunPass(v.b), 0);
}

TEST(FoldPadTest, AveragePoolCountsThePaddedZeros) {
  PadThen t("AveragePool", kSpatial);
  EXPECT_EQ(RunPass(t.b), 1);
  EXPECT_EQ(t.b.FindNode("Pad"), nullptr);
  EXPECT_EQ(t.Consumer().attrs.GetInts("pads"), (std::vector<int64_t>{1, 2, 2, 0}));
  EXPECT_EQ(t.Consumer().attrs.GetInt("count_include_pad", 0), 1);

  // Own pads already counted: summed.
  PadThen u("AveragePool", kSpatial);
  u.b.node(u.consumer).attrs.SetInts("pads", {1, 0, 0, 1});
  u.b.node(u.consumer).attrs.SetInt("count_include_pad", 1);
  EXPECT_EQ(RunPass(u.b), 1);
  EXPECT_EQ(u.Consumer().attrs.GetInts("pads"), (std::vector<int64_t>{2, 2, 2, 1}));
}

TEST(FoldPadTest, AveragePoolDeclines) {
  // Own pads excluded from the divisor: one count_include_pad cannot say both.
  PadThen t("AveragePool", kSpatial);
  t.b.node(t.consumer).attrs.SetInts("pads", {1, 1, 1, 1});
  EXPECT_EQ(RunPass(t.b), 0);
  PadThen u("AveragePool", kSpatial);
  u.b.node(u.consumer).attrs.SetInt("ceil_mode", 1);
  EXPECT_EQ(RunPass(u.b), 0);
  const float one = 1.f;
  PadThen v("AveragePool", kSpatial, &one);
  EXPECT_EQ(RunPass(v.b), 0);
}

TEST(FoldPadTest, ZeroPadsDropForAnyPool) {
  PadThen t("AveragePool", {0, 0, 0, 0, 0, 0, 0, 0});
  t.b.node(t.consumer).attrs.SetInts("pads", {1, 1, 1, 1});  // count_include_pad 0
  EXPECT_EQ(RunPass(t.b), 1);
  EXPECT_EQ(t.b.FindNode("Pad"), nullptr);
  EXPECT_EQ(t.Consumer().inputs[0], t.x);
  EXPECT_EQ(t.Consumer().attrs.GetInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_FALSE(t.Consumer().attrs.Has("count_include_pad"));
}

TEST(FoldPadTest, MaxPoolOnlyWithMinusInfinity) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  PadThen t("MaxPool", kSpatial, &neg_inf);
  EXPECT_EQ(RunPass(t.b), 1);
  EXPECT_EQ(t.Consumer().attrs.GetInts("pads"), (std::vector<int64_t>{1, 2, 2, 0}));
  EXPECT_EQ(t.b.FindNode("Pad"), nullptr);

  PadThen u("MaxPool", kSpatial);  // zeros are not what MaxPool pads with
  EXPECT_EQ(RunPass(u.b), 0);
  const float low = std::numeric_limits<float>::lowest();
  PadThen v("MaxPool", kSpatial, &low);
  EXPECT_EQ(RunPass(v.b), 0);
  PadThen w("MaxPool", kSpatial, &neg_inf);
  w.b.node(w.consumer).attrs.SetInt("ceil_mode", 1);
  EXPECT_EQ(RunPass(w.b), 0);
}

TEST(FoldPadTest, LeavesOtherConsumersAlone) {
  PadThen t("Relu", kSpatial);
  EXPECT_EQ(RunPass(t.b), 0);
  EXPECT_NE(t.b.FindNode("Pad"), nullptr);
}

}  // namespace
}  // namespace passes
}  // namespace loom
