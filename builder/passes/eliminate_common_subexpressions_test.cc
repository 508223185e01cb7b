#include "builder/passes/eliminate_common_subexpressions.h"

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
  EXPECT_TRUE(MakeEliminateCommonSubexpressions()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

int Count(const IrBuilder& b, const std::string& op) {
  int n = 0;
  for (const ir::Node& node : b.g.nodes()) n += node.op == op;
  return n;
}

TEST(EliminateCommonSubexpressionsTest, MergesEqualNodesAndChains) {
  IrBuilder b;
  const int x = b.Input("x", {2, 3});
  const int r1 = b.Tensor("r1", {2, 3}), r2 = b.Tensor("r2", {2, 3});
  const int s1 = b.Tensor("s1", {2, 3}), s2 = b.Tensor("s2", {2, 3});
  const int y = b.Tensor("y", {2, 3});
  b.Node("Relu", {x}, {r1});
  b.Node("Relu", {x}, {r2});
  b.node(b.Node("LeakyRelu", {r1}, {s1})).attrs.SetFloat("alpha", 0.5f);
  b.node(b.Node("LeakyRelu", {r2}, {s2})).attrs.SetFloat("alpha", 0.5f);
  b.Node("Add", {s1, s2}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 2);
  EXPECT_EQ(Count(b, "Relu"), 1);
  EXPECT_EQ(Count(b, "LeakyRelu"), 1);
  const ir::Node* add = b.FindNode("Add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->inputs, (std::vector<int>{s1, s1}));
}

TEST(EliminateCommonSubexpressionsTest, KeepsNodesThatDiffer) {
  IrBuilder b;
  const int x = b.Input("x", {2, 3}), x2 = b.Input("x2", {2, 3});
  std::vector<int> outs;
  auto node = [&](const std::string& op, std::vector<int> in) {
    outs.push_back(b.Tensor("t" + std::to_string(outs.size()), {2, 3}));
    return b.Node(op, in, {outs.back()});
  };
  b.node(node("LeakyRelu", {x})).attrs.SetFloat("alpha", 0.5f);
  b.node(node("LeakyRelu", {x})).attrs.SetFloat("alpha", 0.25f);  // other attribute value
  node("LeakyRelu", {x});                                         // attribute left to its default
  node("Relu", {x2});                                             // other input
  node("Sigmoid", {x});                                           // other op
  b.node(node("Sigmoid", {x})).domain = "com.example";            // other domain
  b.node(node("Sigmoid", {x})).opset = 6;                         // other opset
  node("Sub", {x, x2});
  node("Sub", {x2, x});  // other input order
  node("RandomUniformLike", {x});
  node("RandomUniformLike", {x});  // random: never merged
  const int y = b.Tensor("y", {2, 3});
  b.Node("Sum", outs, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 0);
  EXPECT_EQ(b.g.nodes().size(), outs.size() + 1);
}

TEST(EliminateCommonSubexpressionsTest, AttributeOrderDoesNotMatterButNanBitsDo) {
  IrBuilder b;
  const int x = b.Input("x", {2, 3});
  const int a = b.Tensor("a", {2, 3}), c = b.Tensor("c", {2, 3}), y = b.Tensor("y", {2, 3});
  ir::Node& n1 = b.node(b.Node("HardSigmoid", {x}, {a}));
  n1.attrs.SetFloat("alpha", 0.5f);
  n1.attrs.SetFloat("beta", 0.25f);
  ir::Node& n2 = b.node(b.Node("HardSigmoid", {x}, {c}));
  n2.attrs.SetFloat("beta", 0.25f);
  n2.attrs.SetFloat("alpha", 0.5f);
  b.Node("Add", {a, c}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);

  IrBuilder z;
  const int zx = z.Input("x", {2});
  const int p = z.Tensor("p", {2}), q = z.Tensor("q", {2});
  z.node(z.Node("LeakyRelu", {zx}, {p})).attrs.SetFloat("alpha", 0.f);
  z.node(z.Node("LeakyRelu", {zx}, {q})).attrs.SetFloat("alpha", -0.f);
  const int zy = z.Tensor("zy", {2});
  z.Node("Add", {p, q}, {zy});
  z.Output(zy);
  EXPECT_EQ(RunPass(z), 0);
}

TEST(EliminateCommonSubexpressionsTest, GraphOutputsKeepTheirProducers) {
  IrBuilder b;
  const int x = b.Input("x", {2});
  const int r1 = b.Tensor("r1", {2}), r2 = b.Tensor("r2", {2});
  b.Node("Relu", {x}, {r1});
  b.Node("Relu", {x}, {r2});
  b.Output(r1);
  b.Output(r2);
  EXPECT_EQ(RunPass(b), 0);
  EXPECT_EQ(Count(b, "Relu"), 2);
  EXPECT_EQ(b.g.outputs(), (std::vector<int>{r1, r2}));
}

TEST(EliminateCommonSubexpressionsTest, OptionalOutputsMustMatch) {
  IrBuilder b;
  const int x = b.Input("x", {2});
  const int y1 = b.Tensor("y1", {2}), y2 = b.Tensor("y2", {2}), m2 = b.Tensor("m2", {2}, DType::kBool);
  const int s = b.Tensor("s", {2});
  b.Node("Dropout", {x}, {y1, -1});
  b.Node("Dropout", {x}, {y2, m2});
  const int c = b.Tensor("c", {2});
  b.Node("Cast", {m2}, {c});
  b.Node("Add", {y1, y2}, {s});
  b.Output(s);
  b.Output(c);
  EXPECT_EQ(RunPass(b), 0);
}

TEST(EliminateCommonSubexpressionsTest, SharesEqualConstants) {
  IrBuilder b;
  const int x = b.Input("x", {2});
  const int k1 = b.Const("k1", {2}, {1, 2});
  const int k2 = b.Const("k2", {2}, {1, 2});
  const int k3 = b.Const("k3", {1, 2}, {1, 2});                    // other shape
  const int k4 = b.Const("k4", {2}, {1, 3});                       // other bytes
  const int k5 = b.ConstInt64("k5", {1}, {0x4000000040000000LL});  // other dtype, 8 bytes
  const int k6 = b.Const("k6", {2}, {2, 2});                       // same as 0x40000000 twice
  std::vector<int> outs;
  for (int k : {k1, k2, k3, k4, k6}) {
    outs.push_back(b.Tensor("o" + std::to_string(k), {2}));
    b.Node("Add", {x, k}, {outs.back()});
  }
  outs.push_back(b.Tensor("cast", {1}, DType::kInt64));
  b.Node("Identity", {k5}, {outs.back()});
  for (int o : outs) b.Output(o);
  // k2 merges into k1 (one node rewired), then the two Adds are equal but
  // both are graph outputs.
  EXPECT_EQ(RunPass(b), 1);
  EXPECT_EQ(b.g.node(1).inputs[1], k1);
  EXPECT_EQ(b.g.node(2).inputs[1], k3);
  EXPECT_EQ(b.g.node(3).inputs[1], k4);
  EXPECT_EQ(b.g.node(4).inputs[1], k6);
  EXPECT_EQ(b.g.node(5).inputs[0], k5);
}

TEST(EliminateCommonSubexpressionsTest, ConstantsThenNodes) {
  IrBuilder b;
  const int x = b.Input("x", {2});
  const int a = b.Tensor("a", {2}), c = b.Tensor("c", {2}), y = b.Tensor("y", {2});
  b.Node("Mul", {x, b.Const("k1", {2}, {0.5f, NAN})}, {a});
  b.Node("Mul", {x, b.Const("k2", {2}, {0.5f, NAN})}, {c});
  b.Node("Sub", {a, c}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 2);  // one node rewired to k1, then merged
  EXPECT_EQ(Count(b, "Mul"), 1);
  EXPECT_EQ(b.FindNode("Sub")->inputs, (std::vector<int>{a, a}));
}

}  // namespace
}  // namespace passes
}  // namespace loom
