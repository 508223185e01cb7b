#include <gtest/gtest.h>

#include <cmath>
#include <functional>
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

struct FloatCase {
  const char* op;
  double lo, hi;  // input domain
  std::function<double(double)> ref;
};

const std::vector<FloatCase>& FloatCases() {
  static const std::vector<FloatCase> cases = {
      {"Abs", -5, 5, [](double x) { return std::fabs(x); }},
      {"Neg", -5, 5, [](double x) { return -x; }},
      {"Reciprocal", 0.5, 4, [](double x) { return 1.0 / x; }},
      {"Sqrt", 0, 9, [](double x) { return std::sqrt(x); }},
      {"Exp", -5, 5, [](double x) { return std::exp(x); }},
      {"Log", 0.01, 10, [](double x) { return std::log(x); }},
      {"Floor", -5, 5, [](double x) { return std::floor(x); }},
      {"Ceil", -5, 5, [](double x) { return std::ceil(x); }},
      {"Sign", -5, 5, [](double x) { return x > 0   ? 1.0
                                            : x < 0 ? -1.0
                                                    : 0.0; }},
      {"Erf", -3, 3, [](double x) { return std::erf(x); }},
      {"Sin", -4, 4, [](double x) { return std::sin(x); }},
      {"Cos", -4, 4, [](double x) { return std::cos(x); }},
      {"Tan", -1.2, 1.2, [](double x) { return std::tan(x); }},
      {"Asin", -1, 1, [](double x) { return std::asin(x); }},
      {"Acos", -1, 1, [](double x) { return std::acos(x); }},
      {"Atan", -5, 5, [](double x) { return std::atan(x); }},
      {"Sinh", -3, 3, [](double x) { return std::sinh(x); }},
      {"Cosh", -3, 3, [](double x) { return std::cosh(x); }},
      {"Asinh", -5, 5, [](double x) { return std::asinh(x); }},
      {"Acosh", 1, 6, [](double x) { return std::acosh(x); }},
      {"Atanh", -0.95, 0.95, [](double x) { return std::atanh(x); }},
      {"Softsign", -5, 5, [](double x) { return x / (1 + std::fabs(x)); }},
  };
  return cases;
}

template <typename T>
void CheckFloatOp(const FloatCase& c, double tol, int threads, int64_t n) {
  SCOPED_TRACE(std::string(c.op) + " " + DTypeName(DTypeOf<T>::value) + " threads=" + std::to_string(threads));
  const Shape shape = n == 15 ? Shape{3, 5} : Shape{n};
  const std::vector<T> x = RandomValues<T>(n, c.lo, c.hi, 7);
  TestTensor out;
  RunOptions opt;
  opt.threads = threads;
  ASSERT_TRUE(RunOne(c.op, {}, {TestTensor::Of<T>(shape, x)}, DTypeOf<T>::value, shape, &out, opt).ok());
  const std::vector<T> y = out.As<T>();
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(test::Near<double>(y[i], c.ref(static_cast<double>(x[i])), tol))
        << "x=" << x[i] << " got " << y[i] << " expected " << c.ref(static_cast<double>(x[i]));
  }
}

TEST(UnaryTest, FloatOpsMatchReference) {
  for (const FloatCase& c : FloatCases()) {
    CheckFloatOp<float>(c, 1e-5, 1, 15);
    CheckFloatOp<double>(c, 1e-12, 1, 15);
  }
}

TEST(UnaryTest, LargeTensorWithTwoThreads) {
  for (const FloatCase& c : FloatCases()) {
    if (std::string(c.op) == "Exp" || std::string(c.op) == "Sqrt") CheckFloatOp<float>(c, 1e-5, 2, 100003);
  }
}

TEST(UnaryTest, RoundHalfToEven) {
  const std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4f, 2.6f, -2.6f, 0.f};
  const std::vector<float> expected = {0.f, 2.f, 2.f, -0.f, -2.f, -2.f, 2.f, 3.f, -3.f, 0.f};
  TestTensor out;
  ASSERT_TRUE(RunOne("Round", {}, {TestTensor::Of<float>({10}, x)}, DType::kFloat32, {10}, &out).ok());
  EXPECT_EQ(out.As<float>(), expected);
}

TEST(UnaryTest, IntegerAbsNegSign) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const std::vector<int32_t> x = {-3, 0, 5, kMin, 7};
  TestTensor out;
  ASSERT_TRUE(RunOne("Abs", {}, {TestTensor::Of<int32_t>({5}, x)}, DType::kInt32, {5}, &out).ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{3, 0, 5, kMin, 7}));  // INT_MIN wraps
  ASSERT_TRUE(RunOne("Neg", {}, {TestTensor::Of<int32_t>({5}, x)}, DType::kInt32, {5}, &out).ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{3, 0, -5, kMin, -7}));
  ASSERT_TRUE(RunOne("Sign", {}, {TestTensor::Of<int32_t>({5}, x)}, DType::kInt32, {5}, &out).ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{-1, 0, 1, -1, 1}));

  ASSERT_TRUE(RunOne("Abs", {}, {TestTensor::Of<int8_t>({3}, {-128, -1, 3})}, DType::kInt8, {3}, &out).ok());
  EXPECT_EQ(out.As<int8_t>(), (std::vector<int8_t>{-128, 1, 3}));
  ASSERT_TRUE(RunOne("Abs", {}, {TestTensor::Of<uint16_t>({2}, {0, 65535})}, DType::kUInt16, {2}, &out).ok());
  EXPECT_EQ(out.As<uint16_t>(), (std::vector<uint16_t>{0, 65535}));
  ASSERT_TRUE(RunOne("Sign", {}, {TestTensor::Of<uint8_t>({2}, {0, 200})}, DType::kUInt8, {2}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 1}));
  ASSERT_TRUE(RunOne("Neg", {}, {TestTensor::Of<int64_t>({2}, {4, -9})}, DType::kInt64, {2}, &out).ok());
  EXPECT_EQ(out.As<int64_t>(), (std::vector<int64_t>{-4, 9}));
  ASSERT_TRUE(RunOne("Erf", {}, {TestTensor::Of<int32_t>({3}, {0, 3, -3})}, DType::kInt32, {3}, &out).ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{0, 0, 0}));  // erf(3) = 0.99998 truncates
}

TEST(UnaryTest, SpecialFloatValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor out;
  ASSERT_TRUE(RunOne("Sign", {}, {TestTensor::Of<float>({3}, {nan, -0.f, -inf})}, DType::kFloat32, {3}, &out).ok());
  std::vector<float> y = out.As<float>();
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 0.f);
  EXPECT_EQ(y[2], -1.f);
  ASSERT_TRUE(RunOne("Sqrt", {}, {TestTensor::Of<float>({2}, {-1.f, inf})}, DType::kFloat32, {2}, &out).ok());
  y = out.As<float>();
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], inf);
  ASSERT_TRUE(RunOne("Reciprocal", {}, {TestTensor::Of<float>({1}, {0.f})}, DType::kFloat32, {1}, &out).ok());
  EXPECT_EQ(out.As<float>()[0], inf);
}

TEST(UnaryTest, BoolOutputs) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1.f, nan, inf, -inf, 0.f};
  TestTensor out;
  ASSERT_TRUE(RunOne("IsNaN", {}, {TestTensor::Of<float>({5}, x)}, DType::kBool, {5}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 1, 0, 0, 0}));
  ASSERT_TRUE(RunOne("IsInf", {}, {TestTensor::Of<float>({5}, x)}, DType::kBool, {5}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 1, 0}));
  Attributes pos_only;
  pos_only.SetInt("detect_negative", 0);
  ASSERT_TRUE(RunOne("IsInf", pos_only, {TestTensor::Of<float>({5}, x)}, DType::kBool, {5}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 0, 0}));
  Attributes neg_only;
  neg_only.SetInt("detect_positive", 0);
  const std::vector<double> xd = {-inf, inf, 2.0};
  ASSERT_TRUE(RunOne("IsInf", neg_only, {TestTensor::Of<double>({3}, xd)}, DType::kBool, {3}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{1, 0, 0}));

  ASSERT_TRUE(RunOne("Not", {}, {TestTensor::Bools({2, 2}, {0, 1, 1, 0})}, DType::kBool, {2, 2}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(UnaryTest, ScalarAndEmptyTensors) {
  TestTensor out;
  ASSERT_TRUE(RunOne("Exp", {}, {TestTensor::Of<float>({}, {0.f})}, DType::kFloat32, {}, &out).ok());
  EXPECT_EQ(out.As<float>(), std::vector<float>{1.f});
  ASSERT_TRUE(RunOne("Exp", {}, {TestTensor::Of<float>({0, 3}, {})}, DType::kFloat32, {0, 3}, &out).ok());
  EXPECT_TRUE(out.As<float>().empty());
}

TEST(UnaryTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor xf = TestTensor::Of<float>({2}, {1.f, 2.f});
  const TestTensor xi = TestTensor::Of<int32_t>({2}, {1, 2});
  // Float-only op on integers; float16 anywhere.
  Status s = RunOne("Sqrt", {}, {xi}, DType::kInt32, {2}, &out);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  s = RunOne("Abs", {}, {TestTensor::Empty(DType::kFloat16, {2})}, DType::kFloat16, {2}, &out);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Neg", {}, {TestTensor::Of<uint8_t>({1}, {1})}, DType::kUInt8, {1}, &out).code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Not", {}, {xf}, DType::kBool, {2}, &out).code(), StatusCode::kUnsupported);
  // Output dtype and shape must match.
  EXPECT_EQ(RunOne("Exp", {}, {xf}, DType::kFloat64, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Exp", {}, {xf}, DType::kFloat32, {3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("IsNaN", {}, {xf}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  // Arity.
  EXPECT_EQ(RunOne("Exp", {}, {xf, xf}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Exp", {}, {}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Exp", {}, {TestTensor::Absent()}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  // Attribute of the wrong kind.
  Attributes bad;
  bad.SetString("detect_positive", "yes");
  EXPECT_EQ(RunOne("IsInf", bad, {xf}, DType::kBool, {2}, &out).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
