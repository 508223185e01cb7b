#include "kernels/common/kernel_checks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/common/index_tensor.h"

namespace loom {
namespace {

TensorInfo Tensor(DType dtype, Shape shape) {
  TensorInfo t;
  t.present = true;
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

KernelSetup MakeSetup(size_t num_inputs, size_t num_outputs) {
  KernelSetup s;
  s.op = "Test";
  for (size_t i = 0; i < num_inputs; ++i) s.inputs.push_back(Tensor(DType::kFloat32, {2, 3}));
  for (size_t i = 0; i < num_outputs; ++i) s.outputs.push_back(Tensor(DType::kFloat32, {2, 3}));
  return s;
}

TEST(CheckNode, AcceptsCountsInRange) {
  EXPECT_TRUE(CheckNode(MakeSetup(1, 1), 1, 1, 1, 1).ok());
  EXPECT_TRUE(CheckNode(MakeSetup(3, 2), 1, 3, 1, 2).ok());
  EXPECT_TRUE(CheckNode(MakeSetup(5, 1), 1, SIZE_MAX, 1, 1).ok());
}

TEST(CheckNode, RejectsCountsAndAbsentRequiredInputs) {
  Status s = CheckNode(MakeSetup(3, 1), 1, 2, 1, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "has 3 inputs, expected 1 to 2");
  EXPECT_EQ(CheckNode(MakeSetup(1, 2), 1, 1, 1, 1).message(), "has 2 outputs, expected 1");
  EXPECT_EQ(CheckNode(MakeSetup(0, 1), 1, SIZE_MAX, 1, 1).message(), "has 0 inputs, expected at least 1");

  KernelSetup absent = MakeSetup(2, 1);
  absent.inputs[1] = TensorInfo();
  EXPECT_TRUE(CheckNode(absent, 1, 2, 1, 1).ok());  // optional input 1
  s = CheckNode(absent, 2, 2, 1, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 1 is required but absent");
}

TEST(CheckNode, ChecksEveryPresentTensor) {
  KernelSetup s = MakeSetup(1, 1);
  s.inputs[0].dtype = DType::kString;
  EXPECT_EQ(CheckNode(s, 1, 1, 1, 1).code(), StatusCode::kUnsupported);
  s = MakeSetup(1, 1);
  s.outputs[0].shape = {2, -1};
  EXPECT_EQ(CheckNode(s, 1, 1, 1, 1).message(), "output 0 has a negative dim in shape 2x-1");
}

TEST(CheckShape, RankDimsAndSize) {
  const KernelSetup s = MakeSetup(0, 0);
  EXPECT_TRUE(CheckShape(s, "input 0", {}).ok());
  EXPECT_TRUE(CheckShape(s, "input 0", Shape(kMaxRank, 1)).ok());
  Status st = CheckShape(s, "input 0", Shape(kMaxRank + 1, 1));
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_EQ(st.message(), "unsupported input 0 of rank 17 (at most 16)");
  EXPECT_EQ(CheckShape(s, "input 0", {int64_t{1} << 40, int64_t{1} << 40}).message(),
            "input 0 is too large: shape 1099511627776x1099511627776");
}

TEST(CheckOutput, DTypeShapeAndIndex) {
  const KernelSetup s = MakeSetup(1, 1);
  EXPECT_TRUE(CheckOutput(s, 0, DType::kFloat32, {2, 3}).ok());
  EXPECT_EQ(CheckOutput(s, 0, DType::kInt64, {2, 3}).message(), "output 0 has dtype float32, expected int64");
  EXPECT_EQ(CheckOutput(s, 0, DType::kFloat32, {3, 2}).message(), "output 0 has shape 2x3, expected 3x2");
  // An output index past the node's outputs is an error, not an out-of-bounds read.
  const Status st = CheckOutput(s, 1, DType::kFloat32, {2, 3});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "output 1 is required but absent");
}

TEST(NormalizeAxis, MapsNegativeAxesAndRejectsOutOfRange) {
  int64_t axis = -1;
  EXPECT_TRUE(NormalizeAxis(-1, 3, &axis));
  EXPECT_EQ(axis, 2);
  EXPECT_TRUE(NormalizeAxis(0, 3, &axis));
  EXPECT_EQ(axis, 0);
  EXPECT_TRUE(NormalizeAxis(-3, 3, &axis));
  EXPECT_EQ(axis, 0);
  EXPECT_FALSE(NormalizeAxis(3, 3, &axis));
  EXPECT_FALSE(NormalizeAxis(-4, 3, &axis));
  EXPECT_FALSE(NormalizeAxis(0, 0, &axis));
}

TEST(IntsToString, PrintsValueLists) {
  EXPECT_EQ(IntsToString({}), "[]");
  EXPECT_EQ(IntsToString({1, -2, 3}), "[1, -2, 3]");
}

TEST(IndexTensor, LoadsInt32AndInt64) {
  const int32_t a[] = {5, -7};
  const int64_t b[] = {int64_t{1} << 40, -3};
  EXPECT_TRUE(IsIndexDType(DType::kInt32));
  EXPECT_TRUE(IsIndexDType(DType::kInt64));
  EXPECT_FALSE(IsIndexDType(DType::kUInt32));
  EXPECT_EQ(LoadIndex(a, DType::kInt32, 1), -7);
  EXPECT_EQ(LoadIndex(b, DType::kInt64, 0), int64_t{1} << 40);
}

}  // namespace
}  // namespace loom
