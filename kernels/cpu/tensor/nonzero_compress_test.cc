#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

template <typename T>
std::vector<int64_t> RefNonZero(const std::vector<T>& x, const Shape& shape) {
  std::vector<std::vector<int64_t>> coords;
  for (int64_t flat = 0; flat < static_cast<int64_t>(x.size()); ++flat)
    if (x[static_cast<size_t>(flat)] != T(0)) coords.push_back(Unravel(flat, shape));
  std::vector<int64_t> out;
  for (size_t d = 0; d < shape.size(); ++d)
    for (const auto& c : coords) out.push_back(c[d]);
  return out;
}

TEST(NonZeroTest, CoordinatesAndPlannedCount) {
  const Shape shape = {3, 4, 2};
  const auto x = Pseudo<int32_t>(24, -1, 1, 5);
  const auto want = RefNonZero(x, shape);
  const int64_t nnz = static_cast<int64_t>(want.size()) / 3;
  for (bool constant : {true, false}) {
    TestTensor y;
    ASSERT_TRUE(
        Run1("NonZero", Attrs(), {TestTensor::Of<int32_t>(shape, x, constant)}, DType::kInt64, {3, nnz}, &y).ok());
    EXPECT_EQ(y.As<int64_t>(), want);
  }
  // Data with a different count than planned.
  TestTensor y;
  EXPECT_EQ(Run1("NonZero", Attrs(), {TestTensor::Of<int32_t>(shape, x)}, DType::kInt64, {3, nnz + 1}, &y).code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(
      Run1("NonZero", Attrs(), {TestTensor::Of<int32_t>(shape, x, true)}, DType::kInt64, {3, nnz + 1}, &y).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(
      testing::InferShapes("NonZero", Attrs(), {TestTensor::Of<int32_t>(shape, x, true)}, {DType::kInt64}, &shapes)
          .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3, nnz}}));
}

TEST(NonZeroTest, FloatsBoolsScalars) {
  TestTensor y;
  ASSERT_TRUE(
      Run1("NonZero", Attrs(), {TestTensor::Of<float>({4}, {0.f, -0.f, 2.f, -1.f})}, DType::kInt64, {1, 2}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({2, 3}));
  TestTensor h = TestTensor::Of<uint16_t>({3}, {0x8000, 0x3c00, 0});
  h.dtype = DType::kFloat16;
  ASSERT_TRUE(Run1("NonZero", Attrs(), {h}, DType::kInt64, {1, 1}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({1}));
  ASSERT_TRUE(Run1("NonZero", Attrs(), {TestTensor::Bools({2, 2}, {1, 0, 0, 1})}, DType::kInt64, {2, 2}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({0, 1, 0, 1}));
  ASSERT_TRUE(Run1("NonZero", Attrs(), {TestTensor::Of<double>({}, {3.0})}, DType::kInt64, {1, 1}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({0}));
  ASSERT_TRUE(Run1("NonZero", Attrs(), {TestTensor::Of<int8_t>({0, 3}, {})}, DType::kInt64, {2, 0}, &y).ok());
}

std::vector<float> RefCompress(const std::vector<float>& x, const Shape& shape, const std::vector<uint8_t>& cond,
                               int axis, Shape* out_shape) {
  std::vector<int64_t> keep;
  const int64_t dim = shape[static_cast<size_t>(axis)];
  for (int64_t j = 0; j < dim && j < static_cast<int64_t>(cond.size()); ++j)
    if (cond[static_cast<size_t>(j)]) keep.push_back(j);
  *out_shape = shape;
  (*out_shape)[static_cast<size_t>(axis)] = static_cast<int64_t>(keep.size());
  std::vector<float> y;
  for (int64_t flat = 0; flat < NumElements(*out_shape); ++flat) {
    auto oi = Unravel(flat, *out_shape);
    oi[static_cast<size_t>(axis)] = keep[static_cast<size_t>(oi[static_cast<size_t>(axis)])];
    y.push_back(x[static_cast<size_t>(Ravel(oi, shape))]);
  }
  return y;
}

TEST(CompressTest, AxesShortConditionAndFlattened) {
  const Shape shape = {3, 4, 2};
  const auto x = Iota<float>(24);
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<uint8_t> cond = {1, 0, 1};  // shorter than dim 1
    Shape out_shape;
    const auto want = RefCompress(x, shape, cond, axis, &out_shape);
    Attributes a;
    a.SetInt("axis", axis - 3);
    for (bool constant : {true, false}) {
      TestTensor y;
      ASSERT_TRUE(Run1("Compress", a, {TestTensor::Of<float>(shape, x), TestTensor::Bools({3}, cond, constant)},
                       DType::kFloat32, out_shape, &y)
                      .ok());
      EXPECT_EQ(y.As<float>(), want) << axis;
    }
  }
  TestTensor y;
  ASSERT_TRUE(Run1("Compress", Attrs(), {TestTensor::Of<float>(shape, x), TestTensor::Bools({5}, {0, 1, 1, 0, 1})},
                   DType::kFloat32, {3}, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({1, 2, 4}));
  EXPECT_EQ(Run1("Compress", Attrs(), {TestTensor::Of<float>(shape, x), TestTensor::Bools({5}, {0, 1, 1, 0, 1})},
                 DType::kFloat32, {2}, &y)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(Run1("Compress", Attrs(), {TestTensor::Of<float>(shape, x), TestTensor::Of<int32_t>({2}, {1, 1})},
                    DType::kFloat32, {2}, &y)
                   .ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Compress", Attrs(),
                                   {TestTensor::Of<float>(shape, x), TestTensor::Bools({2}, {1, 1}, true)},
                                   {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{2}}));
}

}  // namespace
}  // namespace loom
