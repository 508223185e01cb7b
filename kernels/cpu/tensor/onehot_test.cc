#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

std::vector<int32_t> RefOneHot(const std::vector<double>& idx, const Shape& idx_shape, int64_t depth, int axis,
                               int32_t off, int32_t on, Shape* out_shape) {
  *out_shape = idx_shape;
  out_shape->insert(out_shape->begin() + axis, depth);
  std::vector<int32_t> y;
  for (int64_t flat = 0; flat < NumElements(*out_shape); ++flat) {
    auto oi = Unravel(flat, *out_shape);
    const int64_t j = oi[static_cast<size_t>(axis)];
    oi.erase(oi.begin() + axis);
    int64_t v = static_cast<int64_t>(idx[static_cast<size_t>(Ravel(oi, idx_shape))]);
    if (v < 0) v += depth;
    y.push_back(v == j ? on : off);
  }
  return y;
}

TEST(OneHotTest, AxesDepthFormsAndIndexTypes) {
  const Shape idx_shape = {2, 3};
  const std::vector<double> idx = {0, 4, -1, 7, -6, 2.7};  // 7 and -6 are out of range for depth 5
  for (int axis = -3; axis < 3; ++axis) {
    Shape out_shape;
    const int a = axis < 0 ? axis + 3 : axis;
    const auto want = RefOneHot(idx, idx_shape, 5, a, -1, 9, &out_shape);
    Attributes attrs;
    attrs.SetInt("axis", axis);
    const auto values = TestTensor::Of<int32_t>({2}, {-1, 9});
    for (bool constant : {true, false}) {
      TestTensor y;
      ASSERT_TRUE(Run1("OneHot", attrs,
                       {TestTensor::Of<float>(idx_shape, std::vector<float>(idx.begin(), idx.end())),
                        TestTensor::Of<int64_t>({1}, {5}, constant), values},
                       DType::kInt32, out_shape, &y)
                      .ok());
      EXPECT_EQ(y.As<int32_t>(), want) << axis;
      ASSERT_TRUE(Run1("OneHot", attrs,
                       {TestTensor::Of<int64_t>(idx_shape, std::vector<int64_t>(idx.begin(), idx.end())),
                        TestTensor::Of<float>({}, {5.f}, constant), values},
                       DType::kInt32, out_shape, &y)
                      .ok());
      EXPECT_EQ(y.As<int32_t>(), want) << axis;
    }
  }
}

TEST(OneHotTest, BadSetupsAndRuntimeMismatch) {
  auto idx = TestTensor::Of<int64_t>({2}, {0, 1});
  auto values = TestTensor::Of<float>({2}, {0, 1});
  TestTensor y;
  EXPECT_FALSE(
      Run1("OneHot", Attrs(), {idx, TestTensor::Const<int64_t>({}, {3}), values}, DType::kFloat32, {2, 4}, &y).ok());
  EXPECT_FALSE(
      Run1("OneHot", Attrs(), {idx, TestTensor::Const<int64_t>({}, {0}), values}, DType::kFloat32, {2, 0}, &y).ok());
  EXPECT_FALSE(Run1("OneHot", Attrs(),
                    {idx, TestTensor::Const<int64_t>({}, {3}), TestTensor::Of<float>({3}, {0, 1, 2})}, DType::kFloat32,
                    {2, 3}, &y)
                   .ok());
  EXPECT_FALSE(
      Run1("OneHot", Attrs(), {idx, TestTensor::Const<int64_t>({}, {3}), values}, DType::kInt32, {2, 3}, &y).ok());
  Attributes a;
  a.SetInt("axis", 2);
  EXPECT_FALSE(Run1("OneHot", a, {idx, TestTensor::Const<int64_t>({}, {3}), values}, DType::kFloat32, {2, 3}, &y).ok());
  EXPECT_EQ(
      Run1("OneHot", Attrs(), {idx, TestTensor::Of<int64_t>({}, {4}), values}, DType::kFloat32, {2, 3}, &y).code(),
      StatusCode::kInvalidArgument);
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("OneHot", Attrs(), {idx, TestTensor::Const<int64_t>({}, {3}), values},
                                   {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{2, 3}}));
}

}  // namespace
}  // namespace loom
