#include "builder/passes/eliminate_dead_nodes.h"

#include <gtest/gtest.h>

#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

TEST(EliminateDeadNodesTest, RemovesChainsThatReachNoOutput) {
  testing::IrBuilder b;
  const int x = b.Input("x", {4});
  const int a = b.Tensor("a", {4}), d1 = b.Tensor("d1", {4}), d2 = b.Tensor("d2", {4}), y = b.Tensor("y", {4});
  const int u = b.Tensor("unused_second_output", {4});
  b.Node("Relu", {x}, {a}, "live1");
  b.Node("Relu", {a}, {d1}, "dead1");
  b.Node("Relu", {d1}, {d2}, "dead2");
  b.Node("Split", {a}, {y, u}, "live2");
  b.Output(y);
  PassContext ctx;
  int changes = 0;
  ASSERT_TRUE(MakeEliminateDeadNodes()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_EQ(changes, 2);
  ASSERT_EQ(b.g.nodes().size(), 2u);
  EXPECT_EQ(b.g.node(0).name, "live1");
  EXPECT_EQ(b.g.node(1).name, "live2");
}

}  // namespace
}  // namespace passes
}  // namespace loom
