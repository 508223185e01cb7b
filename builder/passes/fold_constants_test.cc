#include "builder/passes/fold_constants.h"

#include <gtest/gtest.h>

#include "builder/exec/evaluate.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

int RunPass(IrBuilder& b, const KernelRegistry& r) {
  PassContext ctx;
  ctx.registry = &r;
  int changes = 0;
  EXPECT_TRUE(MakeFoldConstants()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

TEST(FoldConstantsTest, RunsTheKernelOnConstantInputs) {
  KernelRegistry r = testing::MakeFakeRegistry();
  IrBuilder b;
  const int x = b.Input("x", {3});
  const int c1 = b.Const("c1", {3}, {1, 2, 3}), c2 = b.Const("c2", {3}, {10, -20, 30});
  const int s = b.Tensor("s", {3}), t = b.Tensor("t", {3}), y = b.Tensor("y", {3});
  b.Node("Add", {c1, c2}, {s});
  b.Node("Relu", {s}, {t});
  b.Node("Add", {x, t}, {y});
  b.Output(y);
  testing::ResetFakeRunCount();
  EXPECT_EQ(RunPass(b, r), 2);
  EXPECT_EQ(testing::FakeRunCount(), 2);
  ASSERT_EQ(b.g.nodes().size(), 1u);
  ASSERT_TRUE(b.g.value(t).is_constant());
  EXPECT_EQ(b.ConstValues(t), (std::vector<float>{11, 0, 33}));
  EXPECT_EQ(b.g.node(0).inputs[1], t);
}

TEST(FoldConstantsTest, ShapeOfAnActivationFolds) {
  KernelRegistry r = testing::MakeFakeRegistry();
  IrBuilder b;
  const int x = b.Input("x", {2, 3, 5});
  const int sh = b.Tensor("sh", {2}, DType::kInt64), y = b.Tensor("y", {2, 3, 5});
  const int sz = b.Tensor("sz", {}, DType::kInt64);
  const int shape_node = b.Node("Shape", {x}, {sh});
  b.node(shape_node).attrs.SetInt("start", -2);
  b.Node("Size", {x}, {sz});
  b.Node("Relu", {x}, {y});
  b.Output(y);
  b.Output(sh);
  b.Output(sz);
  EXPECT_EQ(RunPass(b, r), 2);
  ASSERT_TRUE(b.g.value(sh).is_constant());
  EXPECT_EQ(b.g.value(sh).data->as<int64_t>()[0], 3);
  EXPECT_EQ(b.g.value(sh).data->as<int64_t>()[1], 5);
  EXPECT_EQ(b.g.value(sz).data->as<int64_t>()[0], 30);
}

TEST(FoldConstantsTest, LeavesRefusedRandomAndUnknownOpsAlone) {
  KernelRegistry r = testing::MakeFakeRegistry();
  IrBuilder b;
  const int c = b.Const("c", {2}, {1, 2});
  const int a1 = b.Tensor("a1", {2}), a2 = b.Tensor("a2", {2}), a3 = b.Tensor("a3", {2});
  b.Node("Broken", {c}, {a1});
  b.Node("RandomNormalLike", {c}, {a2});
  b.Node("NoSuchOp", {c}, {a3});
  b.Output(a1);
  b.Output(a2);
  b.Output(a3);
  EXPECT_EQ(RunPass(b, r), 0);
  EXPECT_EQ(b.g.nodes().size(), 3u);
}

TEST(FoldConstantsTest, EvaluateNodeRespectsTheSizeLimit) {
  KernelRegistry r = testing::MakeFakeRegistry();
  IrBuilder b;
  const int c = b.Const("c", {64}, std::vector<float>(64, 1.f));
  const int y = b.Tensor("y", {64});
  b.Node("Relu", {c}, {y});
  std::vector<exec::EvaluatedOutput> out;
  Status s = exec::EvaluateNode(b.g, b.g.node(0), r, 100, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("too large"), std::string::npos) << s.message();
  EXPECT_TRUE(exec::EvaluateNode(b.g, b.g.node(0), r, 256, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{64}));
}

}  // namespace
}  // namespace passes
}  // namespace loom
