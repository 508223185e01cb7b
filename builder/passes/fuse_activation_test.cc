#include "builder/passes/fuse_activation.h"

#include <gtest/gtest.h>

#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

int RunPass(IrBuilder& b, const testing::FakeKernelOptions& options = {}, bool before_placement = false) {
  KernelRegistry r = testing::MakeFakeRegistry(options);
  PassContext ctx;
  ctx.registry = &r;
  int changes = 0;
  EXPECT_TRUE(MakeFuseActivation(before_placement)->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

// anchor(x, w) -> a -> act -> y; returns the activation node index.
struct Chain {
  IrBuilder b;
  int x, a, y, act;
  Chain(const std::string& anchor, const std::string& activation, std::vector<int> extra_inputs = {}) {
    x = b.Input("x", {2, 2});
    const int w = b.Const("w", {2, 2}, {1, 0, 0, 1});
    a = b.Tensor("a", {2, 2});
    y = b.Tensor("y", {2, 2});
    b.Node(anchor, {x, w}, {a}, "anchor");
    std::vector<int> in = {a};
    in.insert(in.end(), extra_inputs.begin(), extra_inputs.end());
    act = b.Node(activation, in, {y}, "act");
    b.Output(y);
  }
};

TEST(FuseActivationTest, ReluIntoConvGemmMatMul) {
  for (const char* anchor : {"Conv", "ConvTranspose", "Gemm", "MatMul"}) {
    Chain c(anchor, "Relu");
    EXPECT_EQ(RunPass(c.b), 1) << anchor;
    ASSERT_EQ(c.b.g.nodes().size(), 1u);
    const ir::Node& n = c.b.g.node(0);
    EXPECT_EQ(n.op, anchor);
    EXPECT_EQ(n.outputs[0], c.y);
    EXPECT_EQ(n.attrs.GetString("loom.activation", ""), "Relu");
    EXPECT_EQ(n.fused, (std::vector<std::string>{"Relu"}));
    EXPECT_FALSE(n.attrs.Has("loom.activation_min"));
  }
}

// An int8 Add (a residual sum) clamps in its output stage: a Relu after it
// fuses, and the Add writes the Relu's output parameters.
TEST(FuseActivationTest, ReluIntoInt8Add) {
  IrBuilder b;
  const int x = b.Input("x", {2, 2}, DType::kInt8), r = b.Input("r", {2, 2}, DType::kInt8);
  const int a = b.Tensor("a", {2, 2}, DType::kInt8), y = b.Tensor("y", {2, 2}, DType::kInt8);
  for (int v : {x, r, a, y}) b.g.value(v).quant = QuantParams{{0.5f}, {v == y ? -128 : 3}, 0};
  b.Node("Add", {x, r}, {a}, "add");
  b.Node("Relu", {a}, {y}, "relu");
  b.Output(y);
  PassContext ctx;  // the CPU's int8 Add kernel
  int changes = 0;
  ASSERT_TRUE(MakeFuseActivation(true)->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_EQ(changes, 1);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.node(0).op, "Add");
  EXPECT_EQ(b.g.node(0).outputs[0], y);
  EXPECT_EQ(b.g.node(0).attrs.GetString("loom.activation", ""), "Relu");
}

TEST(FuseActivationTest, ClipBoundsFromInputsOrAttributes) {
  {
    Chain c("Conv", "Clip");
    const int lo = c.b.Const("lo", {}, {0.f}), hi = c.b.Const("hi", {}, {6.f});
    c.b.node(c.act).opset = 13;
    c.b.node(c.act).inputs = {c.a, lo, hi};
    EXPECT_EQ(RunPass(c.b), 1);
    EXPECT_EQ(c.b.g.node(0).attrs.GetFloat("loom.activation_min", -1), 0.f);
    EXPECT_EQ(c.b.g.node(0).attrs.GetFloat("loom.activation_max", -1), 6.f);
  }
  {
    Chain c("Gemm", "Clip");
    const int lo = c.b.Const("lo", {}, {-1.f});
    c.b.node(c.act).opset = 13;
    c.b.node(c.act).inputs = {c.a, lo, -1};
    EXPECT_EQ(RunPass(c.b), 1);
    EXPECT_EQ(c.b.g.node(0).attrs.GetFloat("loom.activation_min", 0), -1.f);
    EXPECT_FALSE(c.b.g.node(0).attrs.Has("loom.activation_max"));
  }
  {
    Chain c("Conv", "Clip");
    c.b.node(c.act).opset = 6;
    c.b.node(c.act).attrs.SetFloat("max", 6.f);
    EXPECT_EQ(RunPass(c.b), 1);
    EXPECT_FALSE(c.b.g.node(0).attrs.Has("loom.activation_min"));
    EXPECT_EQ(c.b.g.node(0).attrs.GetFloat("loom.activation_max", 0), 6.f);
  }
  {
    Chain c("Conv", "Clip");
    const int lo = c.b.Input("lo", {});
    c.b.node(c.act).opset = 13;
    c.b.node(c.act).inputs = {c.a, lo};
    EXPECT_EQ(RunPass(c.b), 0);  // bound not constant
  }
}

TEST(FuseActivationTest, AlphaAndBeta) {
  Chain leaky("MatMul", "LeakyRelu");
  leaky.b.node(leaky.act).attrs.SetFloat("alpha", 0.2f);
  EXPECT_EQ(RunPass(leaky.b), 1);
  EXPECT_EQ(leaky.b.g.node(0).attrs.GetFloat("loom.activation_alpha", 0), 0.2f);

  Chain hs("Conv", "HardSigmoid");
  EXPECT_EQ(RunPass(hs.b), 1);
  EXPECT_EQ(hs.b.g.node(0).attrs.GetFloat("loom.activation_alpha", 0), 0.2f);
  EXPECT_EQ(hs.b.g.node(0).attrs.GetFloat("loom.activation_beta", 0), 0.5f);

  for (const char* op : {"Sigmoid", "Tanh", "HardSwish"}) {
    Chain c("Conv", op);
    EXPECT_EQ(RunPass(c.b), 1) << op;
    EXPECT_EQ(c.b.g.node(0).attrs.GetString("loom.activation", ""), op);
  }
}

TEST(FuseActivationTest, NotAcrossSharedOutputsOtherOpsOrRefusingKernels) {
  Chain shared("Conv", "Relu");
  shared.b.Output(shared.a);
  EXPECT_EQ(RunPass(shared.b), 0);

  Chain add("Add", "Relu");  // a float Add has no epilogue
  EXPECT_EQ(RunPass(add.b), 0);

  Chain refused("Conv", "Relu");
  testing::FakeKernelOptions options;
  options.refuse_activation = true;
  EXPECT_EQ(RunPass(refused.b, options), 0);
  EXPECT_EQ(refused.b.g.nodes().size(), 2u);
  EXPECT_FALSE(refused.b.g.node(0).attrs.Has("loom.activation"));

  Chain twice("Conv", "Relu");
  const int z = twice.b.Tensor("z", {2, 2});
  twice.b.Node("Sigmoid", {twice.y}, {z});
  twice.b.g.outputs() = {z};
  EXPECT_EQ(RunPass(twice.b), 1);  // only one activation per anchor
  EXPECT_EQ(twice.b.g.nodes().size(), 2u);
}

// Before placement a fusion happens only when every device that runs the
// anchor runs the fused node (here the CPU, the only device without a target).
TEST(FuseActivationTest, BeforePlacementOnlyWhatEveryDeviceTakes) {
  Chain taken("Conv", "Relu");
  EXPECT_EQ(RunPass(taken.b, {}, true), 1);
  EXPECT_EQ(taken.b.g.nodes().size(), 1u);

  Chain refused("Conv", "Relu");
  testing::FakeKernelOptions options;
  options.refuse_activation = true;
  EXPECT_EQ(RunPass(refused.b, options, true), 0);
  EXPECT_EQ(refused.b.g.nodes().size(), 2u);
}

}  // namespace
}  // namespace passes
}  // namespace loom
