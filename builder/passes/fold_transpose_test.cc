#include "builder/passes/fold_transpose.h"

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
  EXPECT_TRUE(MakeFoldTranspose()->Run(b.g, ctx, &changes).ok());
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

Shape Permuted(const Shape& s, const std::vector<int64_t>& perm) {
  Shape out;
  for (int64_t p : perm) out.push_back(s[static_cast<size_t>(p)]);
  return out;
}

// Transpose(x, perm) feeding input `slot` of `op`; the other operand is an
// input of shape `other`.
struct TransposeInto {
  IrBuilder b;
  int x, t, o, y, tr, product;
  TransposeInto(const std::string& op, const Shape& x_shape, const std::vector<int64_t>& perm, int slot,
                const Shape& other, const Shape& y_shape) {
    x = b.Input("x", x_shape);
    t = b.Tensor("t", Permuted(x_shape, perm));
    o = b.Input("o", other);
    y = b.Tensor("y", y_shape);
    tr = b.Node("Transpose", {x}, {t}, "transpose");
    b.node(tr).attrs.SetInts("perm", perm);
    product = b.Node(op, slot == 0 ? std::vector<int>{t, o} : std::vector<int>{o, t}, {y}, "product");
    b.Output(y);
  }
  const ir::Node& Product() const {
    for (const ir::Node& n : b.g.nodes())
      if (n.name == "product") return n;
    return b.g.nodes().back();
  }
};

TEST(FoldTransposeTest, GemmTogglesTransB) {
  TransposeInto t("Gemm", {4, 3}, {1, 0}, 1, {2, 4}, {2, 3});
  EXPECT_EQ(RunPass(t.b), 1);
  ASSERT_EQ(t.b.g.nodes().size(), 1u);
  EXPECT_EQ(t.Product().inputs[1], t.x);
  EXPECT_EQ(t.Product().attrs.GetInt("transB", 0), 1);
  EXPECT_FALSE(t.Product().attrs.Has("transA"));

  TransposeInto u("Gemm", {4, 3}, {1, 0}, 1, {2, 4}, {2, 3});
  u.b.node(u.product).attrs.SetInt("transB", 1);
  EXPECT_EQ(RunPass(u.b), 1);
  EXPECT_EQ(u.Product().inputs[1], u.x);
  EXPECT_EQ(u.Product().attrs.GetInt("transB", 1), 0);

  // No perm attribute: reversed dims, the same swap for 2-D.
  TransposeInto v("Gemm", {4, 3}, {1, 0}, 1, {2, 4}, {2, 3});
  v.b.node(v.tr).attrs.Erase("perm");
  EXPECT_EQ(RunPass(v.b), 1);
}

TEST(FoldTransposeTest, MatMulReadsBTransposed) {
  TransposeInto t("MatMul", {2, 5, 4}, {0, 2, 1}, 1, {2, 3, 4}, {2, 3, 5});
  EXPECT_EQ(RunPass(t.b), 1);
  ASSERT_EQ(t.b.g.nodes().size(), 1u);
  EXPECT_EQ(t.Product().inputs[1], t.x);
  EXPECT_EQ(t.Product().attrs.GetInt("loom.trans_b", 0), 1);
  EXPECT_EQ(t.Product().fused, (std::vector<std::string>{"Transpose"}));
}

TEST(FoldTransposeTest, MatMulKeepsARowMovingTranspose) {
  // [197, 12, 64] -> perm [1, 2, 0] -> [12, 64, 197] (K^T): becomes perm
  // [1, 0, 2] -> [12, 197, 64] read transposed.
  TransposeInto t("MatMul", {7, 3, 4}, {1, 2, 0}, 1, {3, 5, 4}, {3, 5, 7});
  EXPECT_EQ(RunPass(t.b), 1);
  ASSERT_EQ(t.b.g.nodes().size(), 2u);
  const ir::Node* tr = t.b.FindNode("Transpose");
  ASSERT_NE(tr, nullptr);
  EXPECT_EQ(tr->attrs.GetInts("perm"), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(t.b.g.value(t.t).shape, (Shape{3, 7, 4}));
  EXPECT_EQ(t.Product().inputs[1], t.t);
  EXPECT_EQ(t.Product().attrs.GetInt("loom.trans_b", 0), 1);
}

TEST(FoldTransposeTest, Declines) {
  // Gemm's A: int8 Gemm kernels refuse transA.
  TransposeInto ga("Gemm", {3, 2}, {1, 0}, 0, {3, 4}, {2, 4});
  EXPECT_EQ(RunPass(ga.b), 0);
  // MatMul's A (no transposed A in the kernel).
  TransposeInto a("MatMul", {2, 4, 3}, {0, 2, 1}, 0, {2, 4, 5}, {2, 3, 5});
  EXPECT_EQ(RunPass(a.b), 0);
  // A permutation that would not keep rows together.
  TransposeInto p("MatMul", {3, 4, 5}, {2, 0, 1}, 1, {5, 2, 4}, {5, 2, 3});
  EXPECT_EQ(RunPass(p.b), 0);
  // Swapping other dims.
  TransposeInto q("MatMul", {3, 4, 5}, {1, 0, 2}, 1, {4, 2, 5}, {4, 2, 5});
  EXPECT_EQ(RunPass(q.b), 0);
  // Another reader of the Transpose, or a graph output.
  TransposeInto r("Gemm", {4, 3}, {1, 0}, 1, {2, 4}, {2, 3});
  const int z = r.b.Tensor("z", {3, 4});
  r.b.Node("Relu", {r.t}, {z});
  r.b.Output(z);
  EXPECT_EQ(RunPass(r.b), 0);
  TransposeInto s("Gemm", {4, 3}, {1, 0}, 1, {2, 4}, {2, 3});
  s.b.Output(s.t);
  EXPECT_EQ(RunPass(s.b), 0);
  // Both operands the same transposed tensor.
  TransposeInto u("Gemm", {3, 3}, {1, 0}, 1, {3, 3}, {3, 3});
  u.b.node(u.product).inputs[0] = u.t;
  EXPECT_EQ(RunPass(u.b), 0);
  // Not float32.
  IrBuilder b;
  const int x = b.Input("x", {4, 3}, DType::kInt32);
  const int t = b.Tensor("t", {3, 4}, DType::kInt32);
  const int o = b.Input("o", {2, 3}, DType::kInt32);
  const int y = b.Tensor("y", {2, 4}, DType::kInt32);
  b.node(b.Node("Transpose", {x}, {t})).attrs.SetInts("perm", {1, 0});
  b.Node("MatMul", {o, t}, {y});
  b.Output(y);
  EXPECT_EQ(RunPass(b), 0);
}

}  // namespace
}  // namespace passes
}  // namespace loom
