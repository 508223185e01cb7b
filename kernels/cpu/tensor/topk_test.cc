#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// Reference: stable sort of each line (ties keep index order), NaN largest.
template <typename T>
void RefTopK(const std::vector<T>& x, const Shape& shape, int axis, int64_t k, bool largest, std::vector<T>* values,
             std::vector<int64_t>* indices) {
  const int64_t n = shape[static_cast<size_t>(axis)];
  Shape out = shape;
  out[static_cast<size_t>(axis)] = k;
  values->assign(static_cast<size_t>(NumElements(out)), T());
  indices->assign(values->size(), 0);
  auto key = [](T v) {
    return std::isnan(static_cast<double>(v)) ? std::numeric_limits<double>::infinity() : static_cast<double>(v);
  };
  for (int64_t flat = 0; flat < NumElements(out); ++flat) {
    auto oi = Unravel(flat, out);
    if (oi[static_cast<size_t>(axis)] != 0) continue;
    std::vector<std::pair<T, int64_t>> line;
    for (int64_t j = 0; j < n; ++j) {
      auto ii = oi;
      ii[static_cast<size_t>(axis)] = j;
      line.push_back({x[static_cast<size_t>(Ravel(ii, shape))], j});
    }
    std::stable_sort(line.begin(), line.end(), [&](const auto& a, const auto& b) {
      const bool a_nan = std::isnan(static_cast<double>(a.first)), b_nan = std::isnan(static_cast<double>(b.first));
      if (a_nan || b_nan) return largest ? a_nan && !b_nan : b_nan && !a_nan;
      return largest ? key(a.first) > key(b.first) : key(a.first) < key(b.first);
    });
    for (int64_t j = 0; j < k; ++j) {
      auto ii = oi;
      ii[static_cast<size_t>(axis)] = j;
      const size_t pos = static_cast<size_t>(Ravel(ii, out));
      (*values)[pos] = line[static_cast<size_t>(j)].first;
      (*indices)[pos] = line[static_cast<size_t>(j)].second;
    }
  }
}

template <typename T>
void CheckTopK(const Shape& shape, const std::vector<T>& x, int axis, int64_t k, bool largest, int threads,
               bool constant_k = true) {
  std::vector<T> want_v;
  std::vector<int64_t> want_i;
  RefTopK(x, shape, axis, k, largest, &want_v, &want_i);
  Shape out = shape;
  out[static_cast<size_t>(axis)] = k;
  Attributes a;
  a.SetInt("axis", axis);
  a.SetInt("largest", largest ? 1 : 0);
  std::vector<TestTensor> outs = {TestTensor::Empty(DTypeOf<T>::value, out), TestTensor::Empty(DType::kInt64, out)};
  Status st =
      testing::RunKernel("TopK", a, {TestTensor::Of<T>(shape, x), TestTensor::Of<int64_t>({1}, {k}, constant_k)}, &outs,
                         Opset(11, threads));
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(outs[1].As<int64_t>(), want_i) << "axis " << axis << " k " << k << " largest " << largest;
  const auto got = outs[0].As<T>();
  ASSERT_EQ(got.size(), want_v.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(static_cast<double>(want_v[i]))) {
      EXPECT_TRUE(std::isnan(static_cast<double>(got[i])));
    } else {
      EXPECT_EQ(got[i], want_v[i]);
    }
  }
}

TEST(TopKTest, AxesKAndTies) {
  const Shape shape = {3, 7, 4};
  const auto xi = Pseudo<int32_t>(84, -5, 5, 3);  // many ties
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t n = shape[static_cast<size_t>(axis)];
    for (int64_t k : {int64_t{0}, int64_t{1}, n / 2, n}) {
      CheckTopK<int32_t>(shape, xi, axis, k, true, 1);
      CheckTopK<int32_t>(shape, xi, axis, k, false, 2, false);
    }
  }
}

TEST(TopKTest, FloatsWithNaNAndOtherTypes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1.f, nan, -2.f, 3.f, nan, 3.f, 0.f, -0.5f};
  CheckTopK<float>({8}, x, 0, 4, true, 1);
  CheckTopK<float>({8}, x, 0, 8, false, 1);
  CheckTopK<double>({2, 4}, {4, 1, 3, 1, -1, -1, 7, 0}, 1, 3, true, 2);
  CheckTopK<uint8_t>({6}, {5, 200, 7, 200, 0, 9}, 0, 3, true, 1);
  CheckTopK<int64_t>({6}, {5, -200, 7, 200, 0, 9}, 0, 2, false, 1);
}

TEST(TopKTest, LargeWithThreads) {
  const auto x = Pseudo<float>(64 * 500, -1000, 1000, 9);
  CheckTopK<float>({64, 500}, x, 1, 10, true, 2);
}

TEST(TopKTest, Opset1AttributeAndBadSetups) {
  Attributes a;
  a.SetInt("k", 2);
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, {2}), TestTensor::Empty(DType::kInt64, {2})};
  ASSERT_TRUE(testing::RunKernel("TopK", a, {TestTensor::Of<float>({4}, {1, 4, 2, 3})}, &outs, Opset(1)).ok());
  EXPECT_EQ(outs[0].As<float>(), std::vector<float>({4, 3}));
  EXPECT_EQ(outs[1].As<int64_t>(), std::vector<int64_t>({1, 3}));
  auto x = TestTensor::Of<float>({4}, {1, 4, 2, 3});
  EXPECT_FALSE(testing::RunKernel("TopK", Attrs(), {x, TestTensor::Const<int64_t>({1}, {5})}, &outs).ok());
  EXPECT_FALSE(testing::RunKernel("TopK", Attrs(), {x, TestTensor::Const<int64_t>({1}, {3})}, &outs).ok());
  EXPECT_EQ(testing::RunKernel("TopK", Attrs(), {x, TestTensor::Of<int64_t>({1}, {3})}, &outs).code(),
            StatusCode::kInvalidArgument);
  TestTensor h = TestTensor::Of<uint16_t>({4}, {1, 2, 3, 4});
  h.dtype = DType::kFloat16;
  std::vector<TestTensor> houts = {TestTensor::Empty(DType::kFloat16, {2}), TestTensor::Empty(DType::kInt64, {2})};
  EXPECT_EQ(testing::RunKernel("TopK", Attrs(), {h, TestTensor::Const<int64_t>({1}, {2})}, &houts).code(),
            StatusCode::kUnsupported);
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("TopK", Attrs(), {x, TestTensor::Const<int64_t>({1}, {3})},
                                   {DType::kFloat32, DType::kInt64}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3}, {3}}));
}

}  // namespace
}  // namespace loom
