#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

template <typename T>
std::vector<T> NaiveCumSum(const std::vector<T>& x, const Shape& shape, int axis, bool exclusive, bool reverse) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[axis];
  std::vector<T> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < n; ++k) {
        T sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          const bool take = reverse ? (exclusive ? j > k : j >= k) : (exclusive ? j < k : j <= k);
          if (take) sum += x[(o * n + j) * inner + i];
        }
        y[(o * n + k) * inner + i] = sum;
      }
    }
  }
  return y;
}

template <typename T, typename A>
void CheckCumSum(const Shape& shape, A axis, bool exclusive, bool reverse, bool const_axis = true, int threads = 1) {
  SCOPED_TRACE(std::string(DTypeName(DTypeOf<T>::value)) + " " + ShapeToString(shape) +
               " axis=" + std::to_string(axis) + " exclusive=" + std::to_string(exclusive) +
               " reverse=" + std::to_string(reverse) + " const=" + std::to_string(const_axis));
  const std::vector<T> x = RandomValues<T>(NumElements(shape), -10, 10, 41);
  Attributes attrs;
  attrs.SetInt("exclusive", exclusive);
  attrs.SetInt("reverse", reverse);
  RunOptions opt;
  opt.threads = threads;
  TestTensor out;
  ASSERT_TRUE(RunOne("CumSum", attrs, {TestTensor::Of<T>(shape, x), TestTensor::Of<A>({}, {axis}, const_axis)},
                     DTypeOf<T>::value, shape, &out, opt)
                  .ok());
  const int rank = static_cast<int>(shape.size());
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  const std::vector<T> expected = NaiveCumSum(x, shape, a, exclusive, reverse);
  const std::vector<T> y = out.As<T>();
  for (size_t i = 0; i < y.size(); ++i) ASSERT_TRUE(test::Near<double>(y[i], expected[i], 1e-4)) << i;
}

TEST(CumSumTest, AllModesAndAxes) {
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      for (int64_t axis : {0, 1, 2, -1}) {
        CheckCumSum<float, int64_t>({3, 4, 5}, axis, exclusive, reverse);
        CheckCumSum<int32_t, int32_t>({3, 4, 5}, static_cast<int32_t>(axis), exclusive, reverse, false);
      }
      CheckCumSum<double, int64_t>({6}, 0, exclusive, reverse);
      CheckCumSum<int64_t, int64_t>({2, 1}, 1, exclusive, reverse);
      CheckCumSum<uint32_t, int64_t>({0, 3}, 1, exclusive, reverse);
    }
  }
  CheckCumSum<float, int64_t>({200, 300}, 1, false, false, true, 2);
  CheckCumSum<float, int64_t>({200, 300}, 0, true, true, false, 2);
}

TEST(CumSumTest, KnownValues) {
  TestTensor out;
  Attributes attrs;
  attrs.SetInt("exclusive", 1);
  attrs.SetInt("reverse", 1);
  ASSERT_TRUE(RunOne("CumSum", attrs,
                     {TestTensor::Of<double>({5}, {1, 2, 3, 4, 5}), TestTensor::Const<int32_t>({}, {0})},
                     DType::kFloat64, {5}, &out)
                  .ok());
  EXPECT_EQ(out.As<double>(), (std::vector<double>{14, 12, 9, 5, 0}));
}

TEST(CumSumTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor x = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunOne("CumSum", {}, {x, TestTensor::Const<int64_t>({}, {2})}, DType::kFloat32, {2, 3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CumSum", {}, {x, TestTensor::Const<float>({}, {0})}, DType::kFloat32, {2, 3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CumSum", {}, {x, TestTensor::Const<int64_t>({2}, {0, 1})}, DType::kFloat32, {2, 3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CumSum", {}, {x}, DType::kFloat32, {2, 3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CumSum", {}, {x, TestTensor::Const<int64_t>({}, {0})}, DType::kFloat32, {3, 2}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CumSum", {}, {TestTensor::Bools({2}, {1, 0}), TestTensor::Const<int64_t>({}, {0})}, DType::kBool,
                   {2}, &out)
                .code(),
            StatusCode::kUnsupported);
  // A run-time axis out of range fails in Run, without touching memory out of bounds.
  const Status s = RunOne("CumSum", {}, {x, TestTensor::Of<int64_t>({}, {-3})}, DType::kFloat32, {2, 3}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "axis -3 out of range for rank 2");
}

}  // namespace
}  // namespace math
}  // namespace loom
