#include "builder/passes/fuse_elementwise_chain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "builder/testing/ir_builder.h"
#include "builder/testing/pass_runner.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

int RunPass(IrBuilder& b) { return testing::RunPass(*MakeFuseElementwiseChain(), b); }

std::vector<std::string> Steps(const ir::Node& n) {
  const Attribute* a = n.attrs.Find("steps");
  return a ? a->strings : std::vector<std::string>();
}

// x -> Mul(per-channel scale) -> Add(0.5) -> Relu -> Sub(1, .) -> Sigmoid -> y.
TEST(FuseElementwiseChainTest, FusesAChainWithItsOperands) {
  IrBuilder b;
  const Shape s = {1, 2, 3, 3};
  const int x = b.Input("x", s), scale = b.Const("scale", {2, 1, 1}, {2, 3}), half = b.Const("half", {}, {0.5f});
  const int one = b.Const("one", {1}, {1.f});
  const int m = b.Tensor("m", s), a = b.Tensor("a", s), r = b.Tensor("r", s), d = b.Tensor("d", s);
  const int y = b.Tensor("y", s);
  b.Node("Mul", {x, scale}, {m});
  b.Node("Add", {m, half}, {a});
  b.Node("Relu", {a}, {r});
  b.Node("Sub", {one, r}, {d});
  b.Node("Sigmoid", {d}, {y}, "last");
  b.Output(y);
  EXPECT_EQ(RunPass(b), 5);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const ir::Node& n = b.g.node(0);
  EXPECT_EQ(n.op, "ElementwiseChain");
  EXPECT_EQ(n.domain, "loom");
  EXPECT_EQ(n.name, "last");
  EXPECT_EQ(n.inputs, (std::vector<int>{x, scale}));
  EXPECT_EQ(n.outputs, std::vector<int>{y});
  EXPECT_EQ(Steps(n), (std::vector<std::string>{"Mul", "Add", "Relu", "Sub", "Sigmoid"}));
  EXPECT_EQ(n.fused, Steps(n));
  EXPECT_EQ(n.attrs.GetInts("operands"), (std::vector<int64_t>{1, 0, 0, 0, 0}));
  EXPECT_EQ(n.attrs.GetInts("swapped"), (std::vector<int64_t>{0, 0, 0, 1, 0}));
  const std::vector<float> params = n.attrs.GetFloats("params");
  ASSERT_EQ(params.size(), 10u);
  EXPECT_EQ(params[2], 0.5f);
  EXPECT_EQ(params[6], 1.f);
}

// Add(a, b) of two computed tensors, then activations with attributes, one
// of them Loom's Swish; a Clip with constant bounds.
TEST(FuseElementwiseChainTest, BinaryFirstNodeAndAttributes) {
  IrBuilder b;
  const int a = b.Input("a", {4, 5}), c = b.Input("c", {4, 5}), lo = b.Const("lo", {}, {-1.f});
  const int s = b.Tensor("s", {4, 5}), l = b.Tensor("l", {4, 5}), w = b.Tensor("w", {4, 5});
  const int y = b.Tensor("y", {4, 5});
  b.Node("Add", {a, c}, {s});
  b.node(b.Node("LeakyRelu", {s}, {l})).attrs.SetFloat("alpha", 0.25f);
  const int swish = b.Node("Swish", {l}, {w});
  b.node(swish).domain = "loom";
  b.node(swish).opset = 1;
  b.node(swish).fused = {"Sigmoid", "Mul"};
  b.node(b.Node("Clip", {w, lo}, {y})).opset = 13;
  b.Output(y);
  EXPECT_EQ(RunPass(b), 4);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  const ir::Node& n = b.g.node(0);
  EXPECT_EQ(n.inputs, (std::vector<int>{a, c}));
  EXPECT_EQ(Steps(n), (std::vector<std::string>{"Add", "LeakyRelu", "Swish", "Clip"}));
  EXPECT_EQ(n.fused, (std::vector<std::string>{"Add", "LeakyRelu", "Sigmoid", "Mul", "Clip"}));
  const std::vector<float> p = n.attrs.GetFloats("params");
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[2], 0.25f);  // LeakyRelu alpha
  EXPECT_EQ(p[4], 1.f);    // Swish alpha
  EXPECT_EQ(p[6], -1.f);   // Clip min; max +inf
  EXPECT_TRUE(std::isinf(p[7]) && p[7] > 0);
}

// Relu(x) + x: x is the chain's X and, in a slot of its own, its operand.
TEST(FuseElementwiseChainTest, XAlsoAnOperand) {
  IrBuilder b;
  const int x = b.Input("x", {2, 8}), r = b.Tensor("r", {2, 8}), y = b.Tensor("y", {2, 8});
  b.Node("Relu", {x}, {r});
  b.Node("Add", {r, x}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 2);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.node(0).inputs, (std::vector<int>{x, x}));
  EXPECT_EQ(b.g.node(0).attrs.GetInts("operands"), (std::vector<int64_t>{0, 1}));
}

// x -> Relu -> r -> Sigmoid -> Tanh -> y with r read elsewhere (or a graph
// output): only Sigmoid and Tanh fuse.
TEST(FuseElementwiseChainTest, BreaksAtASharedValueOrGraphOutput) {
  for (bool graph_output : {false, true}) {
    IrBuilder b;
    const int x = b.Input("x", {8}), r = b.Tensor("r", {8}), s = b.Tensor("s", {8}), y = b.Tensor("y", {8});
    b.Node("Relu", {x}, {r});
    b.Node("Sigmoid", {r}, {s});
    b.Node("Tanh", {s}, {y});
    b.Output(y);
    if (graph_output) {
      b.Output(r);
    } else {
      const int z = b.Tensor("z", {8});
      b.Node("Exp", {r}, {z});
      b.Output(z);
    }
    EXPECT_EQ(RunPass(b), 2) << graph_output;
    ASSERT_NE(b.FindNode("Relu"), nullptr);
    const ir::Node* chain = b.FindNode("ElementwiseChain");
    ASSERT_NE(chain, nullptr);
    EXPECT_EQ(chain->inputs, std::vector<int>{r});
    EXPECT_EQ(Steps(*chain), (std::vector<std::string>{"Sigmoid", "Tanh"}));
  }
}

TEST(FuseElementwiseChainTest, LeavesOtherGraphsAlone) {
  {  // the middle node on another device
    IrBuilder b;
    const int x = b.Input("x", {8}), r = b.Tensor("r", {8}), s = b.Tensor("s", {8}), y = b.Tensor("y", {8});
    b.Node("Relu", {x}, {r});
    b.node(b.Node("Sigmoid", {r}, {s})).device = Device::kFpga;
    b.Node("Tanh", {s}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0);
  }
  {  // an Add that broadcasts x to a larger shape ends the chain
    IrBuilder b;
    const int x = b.Input("x", {2, 3}), c = b.Const("c", {4, 1, 1}, {1, 2, 3, 4});
    const int r = b.Tensor("r", {2, 3}), a = b.Tensor("a", {4, 2, 3}), y = b.Tensor("y", {4, 2, 3});
    b.Node("Relu", {x}, {r});
    b.Node("Add", {r, c}, {a});
    b.Node("Sigmoid", {a}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0);
  }
  {  // an operand neither scalar, per channel nor full; x * x
    IrBuilder b;
    const int x = b.Input("x", {2, 3, 4}), c = b.Input("c", {3, 4});
    const int r = b.Tensor("r", {2, 3, 4}), a = b.Tensor("a", {2, 3, 4}), y = b.Tensor("y", {2, 3, 4});
    b.Node("Relu", {x}, {r});
    b.Node("Add", {r, c}, {a});
    b.Node("Mul", {a, a}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0);
  }
  {  // not float32
    IrBuilder b;
    const int x = b.Input("x", {8}, DType::kFloat64), r = b.Tensor("r", {8}, DType::kFloat64);
    const int y = b.Tensor("y", {8}, DType::kFloat64);
    b.Node("Relu", {x}, {r});
    b.Node("Neg", {r}, {y});
    b.Output(y);
    EXPECT_EQ(RunPass(b), 0);
  }
}

}  // namespace
}  // namespace passes
}  // namespace loom
