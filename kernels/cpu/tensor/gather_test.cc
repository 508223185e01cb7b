#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

template <typename T>
std::vector<T> RefGather(const std::vector<T>& x, const Shape& shape, const std::vector<int64_t>& idx,
                         const Shape& idx_shape, int axis, Shape* out_shape) {
  out_shape->assign(shape.begin(), shape.begin() + axis);
  out_shape->insert(out_shape->end(), idx_shape.begin(), idx_shape.end());
  out_shape->insert(out_shape->end(), shape.begin() + axis + 1, shape.end());
  std::vector<T> y;
  for (int64_t flat = 0; flat < NumElements(*out_shape); ++flat) {
    const auto oi = Unravel(flat, *out_shape);
    std::vector<int64_t> ii(oi.begin(), oi.begin() + axis);
    const std::vector<int64_t> jj(oi.begin() + axis, oi.begin() + axis + static_cast<int64_t>(idx_shape.size()));
    int64_t v = idx[static_cast<size_t>(Ravel(jj, idx_shape))];
    if (v < 0) v += shape[static_cast<size_t>(axis)];
    ii.push_back(v);
    ii.insert(ii.end(), oi.begin() + axis + static_cast<int64_t>(idx_shape.size()), oi.end());
    y.push_back(x[static_cast<size_t>(Ravel(ii, shape))]);
  }
  return y;
}

TEST(GatherTest, EveryAxisWithNegativeIndices) {
  const Shape shape = {3, 4, 5};
  const auto x = Iota<float>(60);
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t dim = shape[static_cast<size_t>(axis)];
    const std::vector<int64_t> idx = {0, -1, dim - 1, 1, -dim, 0};
    for (const Shape& idx_shape : {Shape{6}, Shape{2, 3}}) {
      Shape out_shape;
      const auto want = RefGather(x, shape, idx, idx_shape, axis, &out_shape);
      Attributes a;
      a.SetInt("axis", axis - 3);
      for (int threads : {1, 2}) {
        TestTensor y;
        ASSERT_TRUE(Run1("Gather", a, {TestTensor::Of<float>(shape, x), TestTensor::Of<int64_t>(idx_shape, idx)},
                         DType::kFloat32, out_shape, &y, Opset(13, threads))
                        .ok());
        EXPECT_EQ(y.As<float>(), want) << axis;
        std::vector<int32_t> idx32(idx.begin(), idx.end());
        ASSERT_TRUE(Run1("Gather", a, {TestTensor::Of<float>(shape, x), TestTensor::Of<int32_t>(idx_shape, idx32)},
                         DType::kFloat32, out_shape, &y, Opset(13, threads))
                        .ok());
        EXPECT_EQ(y.As<float>(), want) << axis;
      }
    }
  }
}

TEST(GatherTest, ScalarIndexAndDTypes) {
  // A scalar index drops the axis.
  TestTensor y;
  ASSERT_TRUE(Run1("Gather", Attrs(),
                   {TestTensor::Of<int8_t>({3, 2}, {1, 2, 3, 4, 5, 6}), TestTensor::Of<int64_t>({}, {2})}, DType::kInt8,
                   {2}, &y)
                  .ok());
  EXPECT_EQ(y.As<int8_t>(), std::vector<int8_t>({5, 6}));
  auto b = TestTensor::Bools({4}, {1, 0, 0, 1});
  ASSERT_TRUE(Run1("Gather", Attrs(), {b, TestTensor::Of<int32_t>({3}, {3, 1, 0})}, DType::kBool, {3}, &y).ok());
  EXPECT_EQ(y.bytes, std::vector<uint8_t>({1, 0, 1}));
  ASSERT_TRUE(Run1("Gather", Attrs(), {TestTensor::Of<uint64_t>({2}, {7, 9}), TestTensor::Of<int64_t>({0}, {})},
                   DType::kUInt64, {0}, &y)
                  .ok());
}

TEST(GatherTest, OutOfRangeIndexIsRunError) {
  auto x = TestTensor::Of<float>({3, 2}, Iota<float>(6));
  TestTensor y;
  Status st = Run1("Gather", Attrs(), {x, TestTensor::Of<int64_t>({2}, {0, 3})}, DType::kFloat32, {2, 2}, &y);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(st.message(), "index 3 out of range [-3, 3)");
  st = Run1("Gather", Attrs(), {x, TestTensor::Of<int32_t>({1}, {-4})}, DType::kFloat32, {1, 2}, &y);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
}

TEST(GatherTest, BadSetups) {
  auto x = TestTensor::Of<float>({3, 2}, Iota<float>(6));
  TestTensor y;
  EXPECT_FALSE(Run1("Gather", Attrs(), {x, TestTensor::Of<float>({1}, {0})}, DType::kFloat32, {1, 2}, &y).ok());
  EXPECT_FALSE(Run1("Gather", Attrs(), {x, TestTensor::Of<int64_t>({1}, {0})}, DType::kFloat32, {2, 2}, &y).ok());
  Attributes a;
  a.SetInt("axis", 2);
  EXPECT_FALSE(Run1("Gather", a, {x, TestTensor::Of<int64_t>({1}, {0})}, DType::kFloat32, {3, 1}, &y).ok());
  EXPECT_FALSE(Run1("Gather", Attrs(), {TestTensor::Of<float>({}, {1}), TestTensor::Of<int64_t>({}, {0})},
                    DType::kFloat32, {}, &y)
                   .ok());
}

template <typename T>
std::vector<T> RefGatherElements(const std::vector<T>& x, const Shape& shape, const std::vector<int64_t>& idx,
                                 const Shape& idx_shape, int axis) {
  std::vector<T> y;
  for (int64_t flat = 0; flat < NumElements(idx_shape); ++flat) {
    auto ii = Unravel(flat, idx_shape);
    int64_t v = idx[static_cast<size_t>(flat)];
    if (v < 0) v += shape[static_cast<size_t>(axis)];
    ii[static_cast<size_t>(axis)] = v;
    y.push_back(x[static_cast<size_t>(Ravel(ii, shape))]);
  }
  return y;
}

TEST(GatherElementsTest, EveryAxisSmallerIndices) {
  const Shape shape = {4, 5, 6};
  const auto x = Iota<int16_t>(120);
  for (int axis = 0; axis < 3; ++axis) {
    Shape idx_shape = {3, 4, 5};
    idx_shape[static_cast<size_t>(axis)] = 7;
    const int64_t dim = shape[static_cast<size_t>(axis)];
    const auto idx = Pseudo<int64_t>(NumElements(idx_shape), -dim, dim - 1, static_cast<uint32_t>(axis + 3));
    Attributes a;
    a.SetInt("axis", axis);
    for (int threads : {1, 2}) {
      TestTensor y;
      ASSERT_TRUE(Run1("GatherElements", a,
                       {TestTensor::Of<int16_t>(shape, x), TestTensor::Of<int64_t>(idx_shape, idx)}, DType::kInt16,
                       idx_shape, &y, Opset(13, threads))
                      .ok());
      EXPECT_EQ(y.As<int16_t>(), RefGatherElements(x, shape, idx, idx_shape, axis)) << axis;
    }
  }
}

TEST(GatherElementsTest, ErrorsAndBadSetups) {
  auto x = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  TestTensor y;
  EXPECT_EQ(
      Run1("GatherElements", Attrs(), {x, TestTensor::Of<int32_t>({1, 2}, {0, 2})}, DType::kFloat32, {1, 2}, &y).code(),
      StatusCode::kOutOfRange);
  EXPECT_FALSE(
      Run1("GatherElements", Attrs(), {x, TestTensor::Of<int32_t>({2}, {0, 1})}, DType::kFloat32, {2}, &y).ok());
  EXPECT_FALSE(
      Run1("GatherElements", Attrs(), {x, TestTensor::Of<int32_t>({1, 3}, {0, 1, 0})}, DType::kFloat32, {1, 3}, &y)
          .ok());
  EXPECT_FALSE(
      Run1("GatherElements", Attrs(), {x, TestTensor::Of<int32_t>({1, 2}, {0, 1})}, DType::kFloat32, {2, 1}, &y).ok());
}

}  // namespace
}  // namespace loom
