#include "builder/passes/fuse_conv_add.h"

#include <gtest/gtest.h>

#include "builder/passes/fuse_activation.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

// Runs the pass with the real CPU kernels (they decide what fuses).
int RunPass(IrBuilder& b) {
  PassContext ctx;
  int changes = 0;
  EXPECT_TRUE(MakeFuseConvAdd()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

// x [1, 2, 4, 4] -> Conv 1x1 (3 channels, bias unless `no_bias`) -> c;
// Add(c, r) or Add(r, c) -> y, r a graph input of `r_shape`.
struct Block {
  IrBuilder b;
  int x, w, bias, c, r, y, conv, add;
  explicit Block(bool conv_first = true, const Shape& r_shape = {1, 3, 4, 4}, bool no_bias = false) {
    x = b.Input("x", {1, 2, 4, 4});
    r = b.Input("r", r_shape);
    w = b.Const("w", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
    bias = b.Const("b", {3}, {0.5f, -0.5f, 1});
    c = b.Tensor("c", {1, 3, 4, 4});
    y = b.Tensor("y", {1, 3, 4, 4});
    conv = b.Node("Conv", no_bias ? std::vector<int>{x, w} : std::vector<int>{x, w, bias}, {c}, "conv");
    add = b.Node("Add", conv_first ? std::vector<int>{c, r} : std::vector<int>{r, c}, {y}, "add");
    b.Output(y);
  }
};

TEST(FuseConvAddTest, FusesEitherOperandOrder) {
  for (bool conv_first : {true, false}) {
    Block k(conv_first);
    EXPECT_EQ(RunPass(k.b), 1) << conv_first;
    ASSERT_EQ(k.b.g.nodes().size(), 1u);
    const ir::Node& n = k.b.g.node(0);
    EXPECT_EQ(n.op, "Conv");
    EXPECT_EQ(n.inputs, (std::vector<int>{k.x, k.w, k.bias, k.r}));
    EXPECT_EQ(n.outputs, (std::vector<int>{k.y}));
    EXPECT_EQ(n.attrs.GetInt("loom.residual", 0), 1);
    EXPECT_EQ(n.fused, (std::vector<std::string>{"Add"}));
  }
}

TEST(FuseConvAddTest, WithoutBiasKeepsTheBiasSlotEmpty) {
  Block k(true, {1, 3, 4, 4}, /*no_bias=*/true);
  EXPECT_EQ(RunPass(k.b), 1);
  ASSERT_EQ(k.b.g.nodes().size(), 1u);
  EXPECT_EQ(k.b.g.node(0).inputs, (std::vector<int>{k.x, k.w, -1, k.r}));
}

// Conv -> Add -> Relu: the activation fuses after the residual (post-placement order).
TEST(FuseConvAddTest, ActivationAfterTheAddFusesNext) {
  Block k;
  const int z = k.b.Tensor("z", {1, 3, 4, 4});
  k.b.g.outputs() = {z};
  k.b.Node("Relu", {k.y}, {z}, "relu");
  EXPECT_EQ(RunPass(k.b), 1);
  PassContext ctx;
  int changes = 0;
  ASSERT_TRUE(MakeFuseActivation(false)->Run(k.b.g, ctx, &changes).ok());
  k.b.g.Compact();
  EXPECT_EQ(changes, 1);
  ASSERT_EQ(k.b.g.nodes().size(), 1u);
  const ir::Node& n = k.b.g.node(0);
  EXPECT_EQ(n.outputs, (std::vector<int>{z}));
  EXPECT_EQ(n.attrs.GetString("loom.activation", ""), "Relu");
  EXPECT_EQ(n.fused, (std::vector<std::string>{"Add", "Relu"}));
}

TEST(FuseConvAddTest, RefusesBroadcasting) {
  Block k(true, {1, 3, 1, 1});
  EXPECT_EQ(RunPass(k.b), 0);
  EXPECT_EQ(k.b.g.nodes().size(), 2u);
}

TEST(FuseConvAddTest, RefusesAConvOutputWithAnotherUse) {
  Block k;
  const int z = k.b.Tensor("z", {1, 3, 4, 4});
  k.b.Node("Relu", {k.c}, {z}, "relu");
  k.b.Output(z);
  EXPECT_EQ(RunPass(k.b), 0);
  Block out;
  out.b.Output(out.c);  // the Conv output is a graph output
  EXPECT_EQ(RunPass(out.b), 0);
}

// The residual is computed after the Conv: the fused node, where the Conv
// runs, could not read it.
TEST(FuseConvAddTest, RefusesAResidualComputedLater) {
  IrBuilder b;
  const int x = b.Input("x", {1, 2, 4, 4}), q = b.Input("q", {1, 3, 4, 4});
  const int w = b.Const("w", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  const int c = b.Tensor("c", {1, 3, 4, 4}), r = b.Tensor("r", {1, 3, 4, 4}), y = b.Tensor("y", {1, 3, 4, 4});
  b.Node("Conv", {x, w}, {c}, "conv");
  b.Node("Relu", {q}, {r}, "relu");
  b.Node("Add", {c, r}, {y}, "add");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 0);
  EXPECT_EQ(b.g.nodes().size(), 3u);
}

// Add(Conv A, Conv B) with A first: B takes A's output as its residual.
TEST(FuseConvAddTest, TwoConvsTheLaterOneTakesTheResidual) {
  IrBuilder b;
  const int x = b.Input("x", {1, 2, 4, 4});
  const int wa = b.Const("wa", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6}), wb = b.Const("wb", {3, 2, 1, 1}, {6, 5, 4, 3, 2, 1});
  const int ca = b.Tensor("ca", {1, 3, 4, 4}), cb = b.Tensor("cb", {1, 3, 4, 4}), y = b.Tensor("y", {1, 3, 4, 4});
  b.Node("Conv", {x, wa}, {ca}, "a");
  b.Node("Conv", {x, wb}, {cb}, "b");
  b.Node("Add", {ca, cb}, {y}, "add");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);
  ASSERT_EQ(b.g.nodes().size(), 2u);
  EXPECT_EQ(b.g.node(1).name, "b");
  EXPECT_EQ(b.g.node(1).inputs, (std::vector<int>{x, wb, -1, ca}));
  EXPECT_EQ(b.g.node(1).outputs, (std::vector<int>{y}));
}

TEST(FuseConvAddTest, RefusesInt8ActivatedOrOffCpuConvs) {
  {
    Block k;
    for (int v : {k.x, k.c, k.r, k.y}) {
      k.b.g.value(v).dtype = DType::kInt8;
      k.b.g.value(v).quant = QuantParams{{0.5f}, {0}, 0};
    }
    EXPECT_EQ(RunPass(k.b), 0);
  }
  {
    Block k;  // Conv -> Relu already fused: act(conv) + r is not act(conv + r)
    k.b.node(k.conv).attrs.SetString("loom.activation", "Relu");
    EXPECT_EQ(RunPass(k.b), 0);
  }
  {
    Block k;
    k.b.node(k.conv).device = Device::kFpga;
    EXPECT_EQ(RunPass(k.b), 0);
  }
  {
    Block k;
    k.b.node(k.add).device = Device::kFpga;
    EXPECT_EQ(RunPass(k.b), 0);
  }
}

// A Conv kernel without the residual refuses it in Prepare: nothing changes.
class ConvWithoutResidual : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    return setup.attrs.Has("loom.residual") ? setup.Unsupported("no residual") : Status::Ok();
  }
  Status Run(const KernelArgs&) const override { return Status::Ok(); }
};

TEST(FuseConvAddTest, RefusedByTheKernel) {
  Block k;
  KernelRegistry r;
  r.AddCpu("Conv", [] { return std::unique_ptr<Kernel>(new ConvWithoutResidual()); });
  PassContext ctx;
  ctx.registry = &r;
  int changes = 0;
  ASSERT_TRUE(MakeFuseConvAdd()->Run(k.b.g, ctx, &changes).ok());
  EXPECT_EQ(changes, 0);
  k.b.g.Compact();
  EXPECT_EQ(k.b.g.nodes().size(), 2u);
}

// The depthwise paths take the residual too.
TEST(FuseConvAddTest, FusesADepthwiseConv) {
  IrBuilder b;
  const int x = b.Input("x", {1, 3, 6, 6}), r = b.Input("r", {1, 3, 6, 6});
  const int w = b.Const("w", {3, 1, 3, 3}, std::vector<float>(27, 0.1f));
  const int c = b.Tensor("c", {1, 3, 6, 6}), y = b.Tensor("y", {1, 3, 6, 6});
  const int conv = b.Node("Conv", {x, w}, {c}, "dw");
  b.node(conv).attrs.SetInt("group", 3);
  b.node(conv).attrs.SetInts("pads", {1, 1, 1, 1});
  b.Node("Add", {c, r}, {y}, "add");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);
  EXPECT_EQ(b.g.nodes().size(), 1u);
}

}  // namespace
}  // namespace passes
}  // namespace loom
