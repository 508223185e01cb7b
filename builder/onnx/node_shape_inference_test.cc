#include "builder/onnx/node_shape_inference.h"

#include <gtest/gtest.h>

#include "builder/exec/complete_shapes.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace onnx_import {
namespace {

using testing::IrBuilder;

TEST(NodeShapeInferenceTest, UsesAttributesAndConstantInputs) {
  IrBuilder b;
  const int x = b.Input("x", {1, 6});
  const int w = b.Const("w", {4, 6}, std::vector<float>(24, 1.f));
  const int y = b.Tensor("y", {}, DType::kFloat32, false);
  const int gemm = b.Node("Gemm", {x, w}, {y});
  b.node(gemm).attrs.SetInt("transB", 1);
  b.node(gemm).opset = 13;
  std::vector<Shape> shapes;
  ASSERT_TRUE(InferNodeShapesWithOnnx(b.g, b.g.node(gemm), &shapes).ok());
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0], (Shape{1, 4}));

  // Reshape reads its constant shape input.
  const int s = b.ConstInt64("s", {3}, {2, -1, 2});
  const int r = b.Tensor("r", {}, DType::kFloat32, false);
  const int reshape = b.Node("Reshape", {y, s}, {r});
  b.node(reshape).opset = 13;
  b.g.value(y).shape = {1, 4};
  b.g.value(y).shape_known = true;
  ASSERT_TRUE(InferNodeShapesWithOnnx(b.g, b.g.node(reshape), &shapes).ok());
  EXPECT_EQ(shapes[0], (Shape{2, 1, 2}));
}

TEST(NodeShapeInferenceTest, FailsCleanly) {
  IrBuilder b;
  const int x = b.Input("x", {1, 6});
  const int w = b.Const("w", {5, 7}, std::vector<float>(35, 1.f));
  const int y = b.Tensor("y", {}, DType::kFloat32, false);
  b.Node("MatMul", {x, w}, {y});
  b.node(0).opset = 13;
  std::vector<Shape> shapes;
  Status s = InferNodeShapesWithOnnx(b.g, b.g.node(0), &shapes);  // 6 vs 5: mismatch
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("ONNX shape inference"), std::string::npos) << s.message();
  b.node(0).op = "NoSuchOp";
  EXPECT_EQ(InferNodeShapesWithOnnx(b.g, b.g.node(0), &shapes).code(), StatusCode::kUnsupported);
}

TEST(NodeShapeInferenceTest, CompleteShapesFallsBackToOnnx) {
  KernelRegistry r = testing::MakeFakeRegistry();  // the fake Gemm cannot infer shapes
  IrBuilder b;
  const int x = b.Input("x", {3, 6});
  const int w = b.Const("w", {6, 2}, std::vector<float>(12, 1.f));
  const int y = b.Tensor("y", {}, DType::kFloat32, false);
  b.Node("Gemm", {x, w}, {y});
  b.node(0).opset = 13;
  b.Output(y);
  EXPECT_FALSE(exec::CompleteShapes(&b.g, r).ok());
  ASSERT_TRUE(exec::CompleteShapes(&b.g, r, InferNodeShapesWithOnnx).ok());
  EXPECT_EQ(b.g.value(y).shape, (Shape{3, 2}));
}

}  // namespace
}  // namespace onnx_import
}  // namespace loom
