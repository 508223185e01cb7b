#include <gtest/gtest.h>

#include <cmath>
#include <limits>
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

// Naive normalization of a [outer, n, inner] view, in double.
std::vector<double> NaiveSoftmax(const std::string& op, const std::vector<double>& x, int64_t outer, int64_t n,
                                 int64_t inner) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * n + k) * inner + i; };
      double max = x[at(0)];
      int64_t arg = 0;
      for (int64_t k = 1; k < n; ++k) {
        if (x[at(k)] > max) {
          max = x[at(k)];
          arg = k;
        }
      }
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(x[at(k)] - max);
      for (int64_t k = 0; k < n; ++k) {
        if (op == "Softmax") y[at(k)] = std::exp(x[at(k)] - max) / sum;
        if (op == "LogSoftmax") y[at(k)] = x[at(k)] - max - std::log(sum);
        if (op == "Hardmax") y[at(k)] = k == arg ? 1 : 0;
      }
    }
  }
  return y;
}

template <typename T>
void CheckSoftmax(const std::string& op, const Shape& shape, int64_t axis, int opset, int threads = 1) {
  SCOPED_TRACE(op + " " + DTypeName(DTypeOf<T>::value) + " " + ShapeToString(shape) + " axis=" + std::to_string(axis) +
               " opset=" + std::to_string(opset));
  const std::vector<T> x = RandomValues<T>(NumElements(shape), -5, 5, 31);
  const int rank = static_cast<int>(shape.size());
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  int64_t outer = 1, n = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < a)
      outer *= shape[d];
    else if (d == a || opset < 13)
      n *= shape[d];
    else
      inner *= shape[d];
  }
  const std::vector<double> expected = NaiveSoftmax(op, std::vector<double>(x.begin(), x.end()), outer, n, inner);
  Attributes attrs;
  attrs.SetInt("axis", axis);
  RunOptions opt;
  opt.opset = opset;
  opt.threads = threads;
  TestTensor out;
  ASSERT_TRUE(RunOne(op, attrs, {TestTensor::Of<T>(shape, x)}, DTypeOf<T>::value, shape, &out, opt).ok());
  const std::vector<T> y = out.As<T>();
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_TRUE(test::Near<double>(y[i], expected[i], tol)) << i << ": " << y[i] << " vs " << expected[i];
  }
}

TEST(SoftmaxTest, SingleAxisSemantics) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    for (int64_t axis : {0, 1, 2, -1}) {
      CheckSoftmax<float>(op, {3, 4, 5}, axis, 13);
      CheckSoftmax<double>(op, {2, 3, 70}, axis, 17);  // inner dims wider than one column block
    }
    CheckSoftmax<float>(op, {2, 100, 3}, 2, 13);
    CheckSoftmax<float>(op, {5}, 0, 13);
  }
}

TEST(SoftmaxTest, CoerceTo2DBeforeOpset13) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    for (int64_t axis : {0, 1, 2, -1, 3}) {
      CheckSoftmax<float>(op, {3, 4, 5}, axis, 11);
    }
  }
  // Default axis is 1 before opset 13 and -1 from 13.
  const std::vector<float> x = RandomValues<float>(24, -2, 2, 3);
  TestTensor a, b;
  RunOptions opset11;
  opset11.opset = 11;
  Attributes axis1;
  axis1.SetInt("axis", 1);
  ASSERT_TRUE(
      RunOne("Softmax", {}, {TestTensor::Of<float>({2, 3, 4}, x)}, DType::kFloat32, {2, 3, 4}, &a, opset11).ok());
  ASSERT_TRUE(
      RunOne("Softmax", axis1, {TestTensor::Of<float>({2, 3, 4}, x)}, DType::kFloat32, {2, 3, 4}, &b, opset11).ok());
  EXPECT_EQ(a.As<float>(), b.As<float>());
  Attributes axis_last;
  axis_last.SetInt("axis", -1);
  ASSERT_TRUE(RunOne("Softmax", {}, {TestTensor::Of<float>({2, 3, 4}, x)}, DType::kFloat32, {2, 3, 4}, &a).ok());
  ASSERT_TRUE(RunOne("Softmax", axis_last, {TestTensor::Of<float>({2, 3, 4}, x)}, DType::kFloat32, {2, 3, 4}, &b).ok());
  EXPECT_EQ(a.As<float>(), b.As<float>());
}

TEST(SoftmaxTest, TwoThreads) {
  CheckSoftmax<float>("Softmax", {400, 100}, 1, 13, 2);
  CheckSoftmax<float>("LogSoftmax", {4, 21, 500}, 1, 13, 2);
}

TEST(SoftmaxTest, NumericallyStableForLargeInputs) {
  TestTensor out;
  ASSERT_TRUE(
      RunOne("Softmax", {}, {TestTensor::Of<float>({1, 3}, {1000.f, 1000.f, -1000.f})}, DType::kFloat32, {1, 3}, &out)
          .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{0.5f, 0.5f, 0.f}));
  ASSERT_TRUE(RunOne("LogSoftmax", {}, {TestTensor::Of<float>({2}, {10000.f, 0.f})}, DType::kFloat32, {2}, &out).ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{0.f, -10000.f}));
  ASSERT_TRUE(RunOne("Hardmax", {}, {TestTensor::Of<float>({1, 4}, {3, 3, 3, 1})}, DType::kFloat32, {1, 4}, &out).ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{1, 0, 0, 0}));  // first maximum wins
  ASSERT_TRUE(RunOne("Softmax", {}, {TestTensor::Of<float>({0, 4}, {})}, DType::kFloat32, {0, 4}, &out).ok());
}

TEST(SoftmaxTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor x = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Attributes axis2;
  axis2.SetInt("axis", 2);
  EXPECT_EQ(RunOne("Softmax", axis2, {x}, DType::kFloat32, {2, 3}, &out).code(), StatusCode::kInvalidArgument);
  Attributes axis3;
  axis3.SetInt("axis", 3);
  RunOptions opset11;
  opset11.opset = 11;
  EXPECT_EQ(RunOne("Softmax", axis3, {x}, DType::kFloat32, {2, 3}, &out, opset11).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Softmax", {}, {x}, DType::kFloat32, {3, 2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Softmax", {}, {TestTensor::Of<int32_t>({2}, {1, 2})}, DType::kInt32, {2}, &out).code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Softmax", {}, {TestTensor::Of<float>({}, {1.f})}, DType::kFloat32, {}, &out).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
