#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

template <typename T>
T Reduce(const std::string& r, T a, T b) {
  if (r == "add") return static_cast<T>(a + b);
  if (r == "mul") return static_cast<T>(a * b);
  if (r == "max") return std::max(a, b);
  if (r == "min") return std::min(a, b);
  return b;
}

template <typename T>
std::vector<T> RefScatterElements(std::vector<T> data, const Shape& shape, const std::vector<int64_t>& idx,
                                  const Shape& idx_shape, const std::vector<T>& upd, int axis, const std::string& r) {
  for (int64_t flat = 0; flat < NumElements(idx_shape); ++flat) {
    auto ii = Unravel(flat, idx_shape);
    int64_t v = idx[static_cast<size_t>(flat)];
    if (v < 0) v += shape[static_cast<size_t>(axis)];
    ii[static_cast<size_t>(axis)] = v;
    T& dst = data[static_cast<size_t>(Ravel(ii, shape))];
    dst = Reduce(r, dst, upd[static_cast<size_t>(flat)]);
  }
  return data;
}

TEST(ScatterElementsTest, AxesReductionsAndDuplicates) {
  const Shape shape = {3, 4, 5};
  const auto data = Iota<int32_t>(60, 1);
  for (const std::string r : {"none", "add", "mul", "max", "min"}) {
    for (int axis = 0; axis < 3; ++axis) {
      const Shape idx_shape = {2, 3, 4};
      const int64_t dim = shape[static_cast<size_t>(axis)];
      // Unique indices for "none" (duplicates are undefined there), any for reductions.
      std::vector<int64_t> idx = Pseudo<int64_t>(24, -dim, dim - 1, static_cast<uint32_t>(axis + 1));
      if (r == "none") {
        for (int64_t flat = 0; flat < 24; ++flat)
          idx[static_cast<size_t>(flat)] = Unravel(flat, idx_shape)[static_cast<size_t>(axis)] - (flat % 2 ? dim : 0);
      }
      const auto upd = Pseudo<int32_t>(24, -9, 9, static_cast<uint32_t>(axis + 7));
      Attributes a;
      a.SetInt("axis", axis - 3);
      if (r != "none") a.SetString("reduction", r);
      TestTensor y;
      Status st = Run1("ScatterElements", a,
                       {TestTensor::Of<int32_t>(shape, data), TestTensor::Of<int64_t>(idx_shape, idx),
                        TestTensor::Of<int32_t>(idx_shape, upd)},
                       DType::kInt32, shape, &y, Opset(18));
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(y.As<int32_t>(), RefScatterElements(data, shape, idx, idx_shape, upd, axis, r)) << r << " " << axis;
    }
  }
}

TEST(ScatterElementsTest, ScatterOpset9AndDTypes) {
  // Deprecated Scatter is ScatterElements.
  Attributes a;
  a.SetInt("axis", 1);
  TestTensor y;
  ASSERT_TRUE(Run1("Scatter", a,
                   {TestTensor::Of<float>({1, 5}, {1, 2, 3, 4, 5}), TestTensor::Of<int32_t>({1, 2}, {1, 3}),
                    TestTensor::Of<float>({1, 2}, {1.1f, 2.1f})},
                   DType::kFloat32, {1, 5}, &y, Opset(9))
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({1, 1.1f, 3, 2.1f, 5}));
  // float16 moves bytes without reduction; reductions on float16/bool are unsupported.
  TestTensor h = TestTensor::Of<uint16_t>({3}, {1, 2, 3});
  h.dtype = DType::kFloat16;
  TestTensor hu = TestTensor::Of<uint16_t>({1}, {9});
  hu.dtype = DType::kFloat16;
  ASSERT_TRUE(
      Run1("ScatterElements", Attrs(), {h, TestTensor::Of<int64_t>({1}, {-1}), hu}, DType::kFloat16, {3}, &y).ok());
  EXPECT_EQ(y.As<uint16_t>(), std::vector<uint16_t>({1, 2, 9}));
  a.SetString("reduction", "add");
  a.SetInt("axis", 0);
  EXPECT_EQ(Run1("ScatterElements", a, {h, TestTensor::Of<int64_t>({1}, {-1}), hu}, DType::kFloat16, {3}, &y).code(),
            StatusCode::kUnsupported);
}

TEST(ScatterElementsTest, ErrorsAndBadSetups) {
  auto d = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  auto u = TestTensor::Of<float>({1, 2}, {5, 6});
  TestTensor y;
  EXPECT_EQ(
      Run1("ScatterElements", Attrs(), {d, TestTensor::Of<int64_t>({1, 2}, {0, 2}), u}, DType::kFloat32, {2, 2}, &y)
          .code(),
      StatusCode::kOutOfRange);
  EXPECT_FALSE(
      Run1("ScatterElements", Attrs(), {d, TestTensor::Of<int64_t>({2, 1}, {0, 1}), u}, DType::kFloat32, {2, 2}, &y)
          .ok());  // updates shape differs
  Attributes a;
  a.SetString("reduction", "sub");
  EXPECT_FALSE(
      Run1("ScatterElements", a, {d, TestTensor::Of<int64_t>({1, 2}, {0, 1}), u}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_FALSE(
      Run1("ScatterElements", Attrs(), {d, TestTensor::Of<int64_t>({1, 2}, {0, 1}), u}, DType::kFloat32, {4}, &y).ok());
}

std::vector<float> RefScatterND(std::vector<float> data, const Shape& shape, const std::vector<int64_t>& idx,
                                const Shape& idx_shape, const std::vector<float>& upd, const std::string& r) {
  const int64_t k = idx_shape.back();
  const int64_t tuples = NumElements(idx_shape) / k;
  const int64_t slice = NumElements(Shape(shape.begin() + k, shape.end()));
  for (int64_t t = 0; t < tuples; ++t) {
    std::vector<int64_t> di;
    for (int64_t j = 0; j < k; ++j) {
      int64_t v = idx[static_cast<size_t>(t * k + j)];
      if (v < 0) v += shape[static_cast<size_t>(j)];
      di.push_back(v);
    }
    for (int64_t j = k; j < static_cast<int64_t>(shape.size()); ++j) di.push_back(0);
    const int64_t base = Ravel(di, shape);
    for (int64_t i = 0; i < slice; ++i) {
      float& dst = data[static_cast<size_t>(base + i)];
      dst = Reduce(r, dst, upd[static_cast<size_t>(t * slice + i)]);
    }
  }
  return data;
}

TEST(ScatterNDTest, TupleLengthsAndReductions) {
  const Shape shape = {3, 4, 2};
  const auto data = Iota<float>(24, 1);
  for (const std::string r : {"none", "add", "mul", "max", "min"}) {
    for (const Shape& idx_shape : {Shape{2, 1}, Shape{3, 2}, Shape{2, 2, 3}}) {
      const int64_t k = idx_shape.back();
      std::vector<int64_t> idx;
      const int64_t tuples = NumElements(idx_shape) / k;
      for (int64_t t = 0; t < tuples; ++t) {
        for (int64_t j = 0; j < k; ++j) {
          const int64_t dim = shape[static_cast<size_t>(j)];
          // Distinct tuples: vary the first coordinate with t, negative half the time.
          idx.push_back(j == 0 ? (t % dim) - (t % 2 ? dim : 0) : (t + j) % dim);
        }
      }
      Shape upd_shape(idx_shape.begin(), idx_shape.end() - 1);
      upd_shape.insert(upd_shape.end(), shape.begin() + k, shape.end());
      const auto upd = Pseudo<float>(NumElements(upd_shape), -5, 5, static_cast<uint32_t>(k));
      Attributes a;
      if (r != "none") a.SetString("reduction", r);
      TestTensor y;
      Status st = Run1("ScatterND", a,
                       {TestTensor::Of<float>(shape, data), TestTensor::Of<int64_t>(idx_shape, idx),
                        TestTensor::Of<float>(upd_shape, upd)},
                       DType::kFloat32, shape, &y, Opset(18, 2));
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(y.As<float>(), RefScatterND(data, shape, idx, idx_shape, upd, r))
          << r << " " << ShapeToString(idx_shape);
    }
  }
}

TEST(ScatterNDTest, ErrorsAndBadSetups) {
  auto d = TestTensor::Of<int64_t>({4}, {1, 2, 3, 4});
  TestTensor y;
  EXPECT_EQ(Run1("ScatterND", Attrs(), {d, TestTensor::Of<int64_t>({1, 1}, {4}), TestTensor::Of<int64_t>({1}, {9})},
                 DType::kInt64, {4}, &y)
                .code(),
            StatusCode::kOutOfRange);
  ASSERT_TRUE(Run1("ScatterND", Attrs(), {d, TestTensor::Of<int64_t>({1, 1}, {-4}), TestTensor::Of<int64_t>({1}, {9})},
                   DType::kInt64, {4}, &y)
                  .ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({9, 2, 3, 4}));
  EXPECT_FALSE(Run1("ScatterND", Attrs(),
                    {d, TestTensor::Of<int64_t>({1, 2}, {0, 0}), TestTensor::Of<int64_t>({1}, {9})}, DType::kInt64, {4},
                    &y)
                   .ok());
  EXPECT_FALSE(Run1("ScatterND", Attrs(),
                    {d, TestTensor::Of<int64_t>({1, 1}, {0}), TestTensor::Of<int64_t>({2}, {9, 9})}, DType::kInt64, {4},
                    &y)
                   .ok());
}

}  // namespace
}  // namespace loom
