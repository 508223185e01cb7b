#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// Reference: entries [begin, begin + size) of axis 1 of a [outer, dim, inner] view.
std::vector<float> RefPart(const std::vector<float>& x, int64_t outer, int64_t dim, int64_t inner, int64_t begin,
                           int64_t size) {
  std::vector<float> out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = begin; j < begin + size; ++j)
      for (int64_t i = 0; i < inner; ++i) out.push_back(x[static_cast<size_t>((o * dim + j) * inner + i)]);
  return out;
}

Status RunSplit(const Attributes& a, const std::vector<TestTensor>& ins, const std::vector<Shape>& outs,
                std::vector<TestTensor>* got, const testing::RunOptions& o) {
  got->clear();
  for (const Shape& s : outs) got->push_back(TestTensor::Empty(DType::kFloat32, s));
  return testing::RunKernel("Split", a, ins, got, o);
}

TEST(SplitTest, SizesFromInputAttributeAndEqual) {
  const auto xv = Iota<float>(2 * 7 * 3);
  auto x = TestTensor::Of<float>({2, 7, 3}, xv);
  Attributes a;
  a.SetInt("axis", -2);
  std::vector<TestTensor> got;
  const std::vector<Shape> outs = {{2, 2, 3}, {2, 0, 3}, {2, 5, 3}};
  for (int threads : {1, 2}) {
    ASSERT_TRUE(RunSplit(a, {x, TestTensor::Const<int64_t>({3}, {2, 0, 5})}, outs, &got, Opset(13, threads)).ok());
    EXPECT_EQ(got[0].As<float>(), RefPart(xv, 2, 7, 3, 0, 2));
    EXPECT_EQ(got[1].As<float>(), RefPart(xv, 2, 7, 3, 2, 0));
    EXPECT_EQ(got[2].As<float>(), RefPart(xv, 2, 7, 3, 2, 5));
  }
  // Runtime split input.
  ASSERT_TRUE(RunSplit(a, {x, TestTensor::Of<int64_t>({3}, {2, 0, 5})}, outs, &got, Opset(13)).ok());
  EXPECT_EQ(got[2].As<float>(), RefPart(xv, 2, 7, 3, 2, 5));
  EXPECT_EQ(RunSplit(a, {x, TestTensor::Of<int64_t>({3}, {1, 1, 5})}, outs, &got, Opset(13)).code(),
            StatusCode::kInvalidArgument);
  // Attribute form (opset 11).
  Attributes b = a;
  b.SetInts("split", {2, 0, 5});
  ASSERT_TRUE(RunSplit(b, {x}, outs, &got, Opset(11)).ok());
  EXPECT_EQ(got[0].As<float>(), RefPart(xv, 2, 7, 3, 0, 2));
  // Equal split on axis 0 by default.
  ASSERT_TRUE(RunSplit(Attrs(), {x}, {{1, 7, 3}, {1, 7, 3}}, &got, Opset(13)).ok());
  EXPECT_EQ(got[1].As<float>(), RefPart(xv, 1, 2, 21, 1, 1));
}

TEST(SplitTest, NumOutputsOpset18) {
  auto x = TestTensor::Of<float>({7}, Iota<float>(7));
  Attributes a;
  a.SetInt("num_outputs", 3);
  std::vector<TestTensor> got;
  ASSERT_TRUE(RunSplit(a, {x}, {{3}, {3}, {1}}, &got, Opset(18)).ok());
  EXPECT_EQ(got[2].As<float>(), std::vector<float>({6}));
  a.SetInt("num_outputs", 2);
  EXPECT_FALSE(RunSplit(a, {x}, {{3}, {3}, {1}}, &got, Opset(18)).ok());
}

TEST(SplitTest, BadSetups) {
  auto x = TestTensor::Of<float>({6}, Iota<float>(6));
  std::vector<TestTensor> got;
  EXPECT_FALSE(RunSplit(Attrs(), {x}, {{2}, {2}, {1}}, &got, Opset(13)).ok());  // sizes do not add up
  EXPECT_FALSE(RunSplit(Attrs(), {x}, {{4}, {1}}, &got, Opset(13)).ok());       // not equal
  EXPECT_FALSE(RunSplit(Attrs(), {x}, {{5}}, &got, Opset(13)).ok());            // single output of 5
  EXPECT_FALSE(RunSplit(Attrs(), {x, TestTensor::Const<int64_t>({2}, {7, -1})}, {{7}, {-1}}, &got, Opset(13)).ok());
  EXPECT_FALSE(RunSplit(Attrs(), {x, TestTensor::Const<int64_t>({1}, {6})}, {{3}, {3}}, &got, Opset(13)).ok());
  Attributes a;
  a.SetInt("axis", 1);
  EXPECT_FALSE(RunSplit(a, {x}, {{3}, {3}}, &got, Opset(13)).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Split", Attrs(), {x, TestTensor::Const<int64_t>({2}, {1, 5})},
                                   {DType::kFloat32, DType::kFloat32}, &shapes, Opset(13))
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{1}, {5}}));
}

}  // namespace
}  // namespace loom
