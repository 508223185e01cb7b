#include "builder/passes/eliminate_identity.h"

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
  EXPECT_TRUE(MakeEliminateIdentity()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

TEST(EliminateIdentityTest, ConsumersReadTheInput) {
  IrBuilder b;
  const int x = b.Input("x", {4});
  const int a = b.Tensor("a", {4}), c = b.Tensor("c", {4}), y = b.Tensor("y", {4});
  b.Node("Relu", {x}, {a});
  b.Node("Identity", {a}, {c});
  b.Node("Relu", {c}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);
  ASSERT_EQ(b.g.nodes().size(), 2u);
  EXPECT_EQ(b.g.node(1).inputs[0], a);
}

TEST(EliminateIdentityTest, GraphOutputKeepsItsName) {
  IrBuilder b;
  const int x = b.Input("x", {4});
  const int a = b.Tensor("a", {4}), y = b.Tensor("y", {4});
  b.Node("Relu", {x}, {a});
  b.Node("Identity", {a}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.node(0).outputs[0], y);
  EXPECT_EQ(b.g.value(b.g.outputs()[0]).name, "y");
}

TEST(EliminateIdentityTest, CopyOfInputConstantOrOutputIsKept) {
  IrBuilder b;
  const int x = b.Input("x", {4});
  const int w = b.Const("w", {1}, {2.f});
  const int y1 = b.Tensor("y1", {4}), y2 = b.Tensor("y2", {1}), a = b.Tensor("a", {4}), y3 = b.Tensor("y3", {4});
  b.Node("Identity", {x}, {y1});
  b.Node("Identity", {w}, {y2});
  b.Node("Relu", {x}, {a});
  b.Node("Identity", {a}, {y3});
  b.Output(y1);
  b.Output(y2);
  b.Output(a);
  b.Output(y3);
  EXPECT_EQ(RunPass(b), 0);
  EXPECT_EQ(b.g.nodes().size(), 4u);
}

TEST(EliminateIdentityTest, InferenceDropoutOnly) {
  IrBuilder b;
  const int x = b.Input("x", {4});
  const int ratio = b.Const("ratio", {}, {0.5f});
  const int off = b.ConstBool("off", false), on = b.ConstBool("on", true);
  const int d1 = b.Tensor("d1", {4}), d2 = b.Tensor("d2", {4}), d3 = b.Tensor("d3", {4});
  const int mask = b.Tensor("mask", {4}, DType::kBool), y = b.Tensor("y", {4});
  const int s1 = b.Tensor("s1", {4}), s2 = b.Tensor("s2", {4});
  b.Node("Dropout", {x, ratio, off}, {d1}, "inference");
  b.Node("Dropout", {d1, ratio, on}, {d2}, "training");
  b.Node("Dropout", {d2}, {d3, mask}, "with_mask");
  b.Node("Relu", {d3}, {s1});
  b.Node("Relu", {mask}, {s2});
  b.Node("Add", {s1, s2}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 1);
  ASSERT_EQ(b.g.nodes().size(), 5u);
  EXPECT_EQ(b.g.node(0).name, "training");
  EXPECT_EQ(b.g.node(0).inputs[0], x);
  EXPECT_EQ(b.g.node(1).name, "with_mask");
}

}  // namespace
}  // namespace passes
}  // namespace loom
