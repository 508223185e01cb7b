#include "builder/passes/fuse_swish.h"

#include <gtest/gtest.h>

#include <string>

#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

// Runs the pass with the real CPU kernels.
int RunPass(IrBuilder& b, bool before_placement) {
  PassContext ctx;
  int changes = 0;
  EXPECT_TRUE(MakeFuseSwish(before_placement)->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

// anchor -> a; s = Sigmoid(a); y = Mul(a, s) (or Mul(s, a)).
struct SiluChain {
  IrBuilder b;
  int x, a, s, y;
  SiluChain(const std::string& anchor, bool sigmoid_first, DType dtype = DType::kFloat32) {
    const bool conv = anchor == "Conv";
    x = b.Input("x", conv ? Shape{1, 2, 3, 3} : Shape{3, 2}, dtype);
    const Shape ws = conv ? Shape{4, 2, 1, 1} : Shape{2, 4};
    const int w = dtype == DType::kFloat32 ? b.Const("w", ws, {1, 0, 0, 1, 1, 1, 0, 0}) : b.Input("w", ws, dtype);
    const Shape out = conv ? Shape{1, 4, 3, 3} : Shape{3, 4};
    a = b.Tensor("a", out, dtype);
    s = b.Tensor("s", out, dtype);
    y = b.Tensor("y", out, dtype);
    b.Node(anchor, {x, w}, {a}, "anchor");
    b.Node("Sigmoid", {a}, {s}, "sig");
    b.Node("Mul", sigmoid_first ? std::vector<int>{s, a} : std::vector<int>{a, s}, {y}, "mul");
    b.Output(y);
  }
};

TEST(FuseSwishTest, IntoConvAndMatMulEitherOrder) {
  for (bool before : {true, false}) {
    for (const char* anchor : {"Conv", "MatMul"}) {
      for (bool sigmoid_first : {false, true}) {
        SiluChain c(anchor, sigmoid_first);
        EXPECT_EQ(RunPass(c.b, before), 1) << anchor;
        ASSERT_EQ(c.b.g.nodes().size(), 1u) << anchor;
        const ir::Node& n = c.b.g.node(0);
        EXPECT_EQ(n.op, anchor);
        EXPECT_EQ(n.outputs[0], c.y);
        EXPECT_EQ(n.attrs.GetString("loom.activation", ""), "Swish");
        EXPECT_EQ(n.fused, (std::vector<std::string>{"Sigmoid", "Mul"}));
      }
    }
  }
}

// x with another consumer, or a graph output, or an anchor that already has
// an activation: one loom.Swish node instead of the pair.
TEST(FuseSwishTest, StandaloneWhenTheAnchorCannotTakeIt) {
  for (int variant = 0; variant < 3; ++variant) {
    SiluChain c("Conv", variant == 1);
    if (variant == 0) {
      const int r = c.b.Tensor("r", {1, 4, 3, 3});
      c.b.Node("Relu", {c.a}, {r}, "other");
      c.b.Output(r);
    } else if (variant == 1) {
      c.b.Output(c.a);
    } else {
      c.b.node(0).attrs.SetString("loom.activation", "Relu");
    }
    EXPECT_EQ(RunPass(c.b, true), 1) << variant;
    const ir::Node* swish = c.b.FindNode("Swish");
    ASSERT_NE(swish, nullptr) << variant;
    EXPECT_EQ(swish->domain, "loom");
    EXPECT_EQ(swish->inputs, std::vector<int>{c.a});
    EXPECT_EQ(swish->outputs, std::vector<int>{c.y});
    EXPECT_FLOAT_EQ(swish->attrs.GetFloat("alpha", 0.f), 1.f);
    EXPECT_EQ(c.b.FindNode("Sigmoid"), nullptr);
    EXPECT_EQ(c.b.FindNode("Mul"), nullptr);
    EXPECT_EQ(c.b.FindNode("Conv")->outputs[0], c.a);
  }
}

// x a graph input: no anchor at all.
TEST(FuseSwishTest, StandaloneOnAGraphInput) {
  IrBuilder b;
  const int x = b.Input("x", {2, 5}), s = b.Tensor("s", {2, 5}), y = b.Tensor("y", {2, 5});
  b.Node("Sigmoid", {x}, {s});
  b.Node("Mul", {s, x}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b, false), 1);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.node(0).op, "Swish");
  EXPECT_EQ(b.g.node(0).domain, "loom");
}

TEST(FuseSwishTest, LeavesOtherGraphsAlone) {
  {  // Mul(x, Sigmoid(z)), z != x
    IrBuilder b;
    const int x = b.Input("x", {4}), z = b.Input("z", {4}), s = b.Tensor("s", {4}), y = b.Tensor("y", {4});
    b.Node("Sigmoid", {z}, {s});
    b.Node("Mul", {x, s}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b, true), 0);
    EXPECT_EQ(b.g.nodes().size(), 2u);
  }
  {  // the Sigmoid's output used elsewhere too
    SiluChain c("Conv", false);
    c.b.Output(c.s);
    EXPECT_EQ(RunPass(c.b, true), 0);
    EXPECT_EQ(c.b.g.nodes().size(), 3u);
  }
  {  // not float32
    SiluChain c("MatMul", false, DType::kFloat64);
    EXPECT_EQ(RunPass(c.b, true), 0);
    EXPECT_EQ(c.b.g.nodes().size(), 3u);
  }
  {  // Mul(Sigmoid(x), Sigmoid(x)) is not x * sigmoid(x)
    IrBuilder b;
    const int x = b.Input("x", {4}), s = b.Tensor("s", {4}), y = b.Tensor("y", {4});
    b.Node("Sigmoid", {x}, {s});
    b.Node("Mul", {s, s}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b, true), 0);
  }
}

}  // namespace
}  // namespace passes
}  // namespace loom
