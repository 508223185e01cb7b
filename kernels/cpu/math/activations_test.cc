#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

struct ActivationCase {
  const char* op;
  Attributes attrs;
  std::function<double(double)> ref;
};

Attributes Floats(std::vector<std::pair<const char*, float>> values) {
  Attributes a;
  for (auto& [name, v] : values) a.SetFloat(name, v);
  return a;
}

Attributes Approximate(const char* how) {
  Attributes a;
  a.SetString("approximate", how);
  return a;
}

// Attribute values are float32; float64 references use the same rounded value.
double F(double v) { return static_cast<float>(v); }

std::vector<ActivationCase> Cases() {
  const double kSeluAlpha = 1.67326319217681884765625, kSeluGamma = 1.05070102214813232421875;
  return {
      {"Relu", {}, [](double x) { return x > 0 ? x : 0; }},
      {"LeakyRelu", {}, [](double x) { return x < 0 ? F(0.01) * x : x; }},
      {"LeakyRelu", Floats({{"alpha", 0.3f}}), [](double x) { return x < 0 ? F(0.3) * x : x; }},
      {"Sigmoid", {}, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"Tanh", {}, [](double x) { return std::tanh(x); }},
      {"HardSigmoid", {}, [](double x) { return std::max(0.0, std::min(1.0, F(0.2) * x + F(0.5))); }},
      {"HardSigmoid", Floats({{"alpha", 0.5f}, {"beta", 0.25f}}),
       [](double x) { return std::max(0.0, std::min(1.0, F(0.5) * x + F(0.25))); }},
      {"HardSwish", {}, [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + F(0.5))); }},
      {"Elu", {}, [](double x) { return x < 0 ? std::exp(x) - 1 : x; }},
      {"Elu", Floats({{"alpha", 2.f}}), [](double x) { return x < 0 ? 2 * (std::exp(x) - 1) : x; }},
      {"Selu",
       {},
       [=](double x) { return x > 0 ? kSeluGamma * x : kSeluGamma * (kSeluAlpha * std::exp(x) - kSeluAlpha); }},
      {"Selu", Floats({{"alpha", 2.f}, {"gamma", 3.f}}),
       [](double x) { return x > 0 ? 3 * x : 3 * (2 * std::exp(x) - 2); }},
      {"Celu", {}, [](double x) { return std::max(0.0, x) + std::min(0.0, std::exp(x) - 1); }},
      {"Celu", Floats({{"alpha", 2.f}}),
       [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }},
      {"Softplus", {}, [](double x) { return std::log(std::exp(x) + 1); }},
      {"ThresholdedRelu", {}, [](double x) { return x > 1 ? x : 0; }},
      {"ThresholdedRelu", Floats({{"alpha", 0.5f}}), [](double x) { return x > F(0.5) ? x : 0; }},
      {"Shrink", {}, [](double x) { return x < -F(0.5)  ? x
                                           : x > F(0.5) ? x
                                                        : 0; }},
      {"Swish", {}, [](double x) { return x / (1 + std::exp(-x)); }},
      {"Swish", Floats({{"alpha", 1.5f}}), [](double x) { return x / (1 + std::exp(-1.5 * x)); }},
      {"Gelu", {}, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"Gelu", Approximate("none"), [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
      {"Gelu", Approximate("tanh"),
       [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); }},
      {"Shrink", Floats({{"lambd", 1.5f}, {"bias", 1.f}}),
       [](double x) { return x < -F(1.5)  ? x + 1
                             : x > F(1.5) ? x - 1
                                          : 0; }},
  };
}

template <typename T>
void CheckActivation(const ActivationCase& c, double tol) {
  SCOPED_TRACE(std::string(c.op) + " " + DTypeName(DTypeOf<T>::value));
  std::vector<T> x = RandomValues<T>(40, -6, 6, 11);
  x.push_back(T(0));
  x.push_back(T(-30));
  x.push_back(T(30));
  const Shape shape = {static_cast<int64_t>(x.size())};
  TestTensor out;
  ASSERT_TRUE(RunOne(c.op, c.attrs, {TestTensor::Of<T>(shape, x)}, DTypeOf<T>::value, shape, &out).ok());
  const std::vector<T> y = out.As<T>();
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = c.ref(static_cast<double>(x[i]));
    ASSERT_TRUE(test::Near<double>(y[i], expected, tol)) << "x=" << x[i] << " got " << y[i] << " want " << expected;
  }
}

TEST(ActivationTest, FloatActivationsMatchReference) {
  for (const ActivationCase& c : Cases()) {
    CheckActivation<float>(c, 2e-6);
    CheckActivation<double>(c, 1e-12);
  }
}

TEST(ActivationTest, IntegerReluAndShrink) {
  TestTensor out;
  ASSERT_TRUE(RunOne("Relu", {}, {TestTensor::Of<int8_t>({4}, {-128, -1, 0, 127})}, DType::kInt8, {4}, &out).ok());
  EXPECT_EQ(out.As<int8_t>(), (std::vector<int8_t>{0, 0, 0, 127}));
  ASSERT_TRUE(RunOne("Relu", {}, {TestTensor::Of<int64_t>({2}, {-5, 5})}, DType::kInt64, {2}, &out).ok());
  EXPECT_EQ(out.As<int64_t>(), (std::vector<int64_t>{0, 5}));
  Attributes shrink = Floats({{"lambd", 1.5f}, {"bias", 1.5f}});
  ASSERT_TRUE(
      RunOne("Shrink", shrink, {TestTensor::Of<int32_t>({5}, {-3, -1, 0, 1, 3})}, DType::kInt32, {5}, &out).ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{-1, 0, 0, 0, 1}));  // -3+1.5 = -1.5 -> -1
  ASSERT_TRUE(RunOne("Shrink", shrink, {TestTensor::Of<uint8_t>({3}, {0, 1, 200})}, DType::kUInt8, {3}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 0, 198}));
}

// Swish also in Loom's domain (builder/passes/fuse_swish.h makes it of
// x * Sigmoid(x) in graphs of any opset).
TEST(ActivationTest, LoomSwishIsRegistered) {
  const std::vector<const KernelDef*> defs = KernelRegistry::Global().FindByOp("Swish", "loom");
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(defs[0]->id, "cpu.Swish.loom");
  EXPECT_EQ(KernelRegistry::Global().FindByOp("Swish").size(), 1u);
}

TEST(ActivationTest, SigmoidAndSoftplusStayFiniteAtExtremes) {
  const std::vector<float> x = {-1000.f, -100.f, 100.f, 1000.f};
  TestTensor out;
  ASSERT_TRUE(RunOne("Sigmoid", {}, {TestTensor::Of<float>({4}, x)}, DType::kFloat32, {4}, &out).ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{0.f, std::exp(-100.f) / (1 + std::exp(-100.f)), 1.f, 1.f}));
  ASSERT_TRUE(RunOne("Softplus", {}, {TestTensor::Of<float>({4}, x)}, DType::kFloat32, {4}, &out).ok());
  const std::vector<float> y = out.As<float>();
  EXPECT_EQ(y[0], 0.f);
  EXPECT_FLOAT_EQ(y[2], 100.f);
  EXPECT_FLOAT_EQ(y[3], 1000.f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(RunOne("Relu", {}, {TestTensor::Of<float>({1}, {nan})}, DType::kFloat32, {1}, &out).ok());
  EXPECT_TRUE(std::isnan(out.As<float>()[0]));
}

TEST(ActivationTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor xf = TestTensor::Of<float>({2}, {1.f, 2.f});
  EXPECT_EQ(RunOne("Sigmoid", {}, {TestTensor::Of<int32_t>({1}, {1})}, DType::kInt32, {1}, &out).code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Relu", {}, {TestTensor::Of<uint8_t>({1}, {1})}, DType::kUInt8, {1}, &out).code(),
            StatusCode::kUnsupported);
  Attributes bad_alpha;
  bad_alpha.SetString("alpha", "big");
  EXPECT_EQ(RunOne("LeakyRelu", bad_alpha, {xf}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Celu", Floats({{"alpha", 0.f}}), {xf}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Tanh", {}, {xf}, DType::kFloat32, {1, 2}, &out).code(), StatusCode::kInvalidArgument);
  const Status gelu = RunOne("Gelu", Approximate("fast"), {xf}, DType::kFloat32, {2}, &out);
  EXPECT_EQ(gelu.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gelu.message().find("'fast', expected 'none' or 'tanh'"), std::string::npos) << gelu.message();
}

// ---- Clip ----

TEST(ClipTest, InputFormWithConstantAndRuntimeBounds) {
  const std::vector<float> x = {-3.f, -1.f, 0.f, 2.f, 5.f};
  TestTensor out;
  for (bool constant : {true, false}) {
    SCOPED_TRACE(constant ? "constant" : "runtime");
    ASSERT_TRUE(RunOne("Clip", {},
                       {TestTensor::Of<float>({5}, x), TestTensor::Of<float>({}, {-1.5f}, constant),
                        TestTensor::Of<float>({}, {2.5f}, constant)},
                       DType::kFloat32, {5}, &out)
                    .ok());
    EXPECT_EQ(out.As<float>(), (std::vector<float>{-1.5f, -1.f, 0.f, 2.f, 2.5f}));
  }
  // Only max (min absent), only min.
  ASSERT_TRUE(RunOne("Clip", {},
                     {TestTensor::Of<float>({5}, x), TestTensor::Absent(), TestTensor::Const<float>({}, {1.f})},
                     DType::kFloat32, {5}, &out)
                  .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{-3.f, -1.f, 0.f, 1.f, 1.f}));
  ASSERT_TRUE(RunOne("Clip", {}, {TestTensor::Of<float>({5}, x), TestTensor::Const<float>({1}, {0.f})}, DType::kFloat32,
                     {5}, &out)
                  .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{0.f, 0.f, 0.f, 2.f, 5.f}));
  // No bounds: identity, infinities included.
  const float inf = std::numeric_limits<float>::infinity();
  ASSERT_TRUE(RunOne("Clip", {}, {TestTensor::Of<float>({2}, {-inf, inf})}, DType::kFloat32, {2}, &out).ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{-inf, inf}));
}

TEST(ClipTest, IntegerTypes) {
  TestTensor out;
  ASSERT_TRUE(RunOne("Clip", {},
                     {TestTensor::Of<int8_t>({4}, {-128, -5, 5, 127}), TestTensor::Const<int8_t>({}, {-10}),
                      TestTensor::Const<int8_t>({}, {10})},
                     DType::kInt8, {4}, &out)
                  .ok());
  EXPECT_EQ(out.As<int8_t>(), (std::vector<int8_t>{-10, -5, 5, 10}));
  ASSERT_TRUE(
      RunOne("Clip", {},
             {TestTensor::Of<uint64_t>({3}, {0, 7, 1000}), TestTensor::Absent(), TestTensor::Of<uint64_t>({}, {100})},
             DType::kUInt64, {3}, &out)
          .ok());
  EXPECT_EQ(out.As<uint64_t>(), (std::vector<uint64_t>{0, 7, 100}));
}

TEST(ClipTest, AttributeFormBeforeOpset11) {
  RunOptions opset6;
  opset6.opset = 6;
  TestTensor out;
  const std::vector<double> x = {-3, 0.5, 3};
  ASSERT_TRUE(RunOne("Clip", Floats({{"min", -1.f}, {"max", 1.f}}), {TestTensor::Of<double>({3}, x)}, DType::kFloat64,
                     {3}, &out, opset6)
                  .ok());
  EXPECT_EQ(out.As<double>(), (std::vector<double>{-1, 0.5, 1}));
  ASSERT_TRUE(
      RunOne("Clip", Floats({{"max", 0.f}}), {TestTensor::Of<double>({3}, x)}, DType::kFloat64, {3}, &out, opset6)
          .ok());
  EXPECT_EQ(out.As<double>(), (std::vector<double>{-3, 0, 0}));
  // An input bound in attribute form is an arity error.
  EXPECT_FALSE(RunOne("Clip", {}, {TestTensor::Of<double>({3}, x), TestTensor::Const<double>({}, {0})}, DType::kFloat64,
                      {3}, &out, opset6)
                   .ok());
}

TEST(ClipTest, LargeTensorWithTwoThreads) {
  const std::vector<float> x = RandomValues<float>(70001, -10, 10, 3);
  RunOptions two;
  two.threads = 2;
  TestTensor out;
  ASSERT_TRUE(RunOne("Clip", {},
                     {TestTensor::Of<float>({70001}, x), TestTensor::Const<float>({}, {-2.f}),
                      TestTensor::Of<float>({}, {3.f})},
                     DType::kFloat32, {70001}, &out, two)
                  .ok());
  const std::vector<float> y = out.As<float>();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], std::min(std::max(x[i], -2.f), 3.f));
}

TEST(ClipTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor x = TestTensor::Of<float>({2}, {1.f, 2.f});
  EXPECT_EQ(RunOne("Clip", {}, {x, TestTensor::Const<double>({}, {0.0})}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Clip", {}, {x, TestTensor::Const<float>({2}, {0.f, 1.f})}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Clip", {}, {x}, DType::kFloat32, {3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Clip", {}, {TestTensor::Bools({1}, {1})}, DType::kBool, {1}, &out).code(),
            StatusCode::kUnsupported);
}

// ---- PRelu ----

TEST(PReluTest, SlopeBroadcastsToX) {
  const Shape shape = {2, 3, 4};
  const std::vector<float> x = RandomValues<float>(24, -5, 5, 5);
  for (const Shape& slope_shape : {Shape{3, 1}, Shape{4}, Shape{1}, Shape{}, Shape{2, 3, 4}, Shape{1, 3, 1}}) {
    SCOPED_TRACE(ShapeToString(slope_shape));
    const std::vector<float> slope = RandomValues<float>(NumElements(slope_shape), 0, 1, 9);
    TestTensor out;
    ASSERT_TRUE(RunOne("PRelu", {}, {TestTensor::Of<float>(shape, x), TestTensor::Of<float>(slope_shape, slope)},
                       DType::kFloat32, shape, &out)
                    .ok());
    const std::vector<float> y = out.As<float>();
    for (int64_t i = 0; i < 24; ++i) {
      const float s = slope[test::BroadcastIndex(slope_shape, shape, i)];
      ASSERT_EQ(y[i], x[i] < 0 ? x[i] * s : x[i]);
    }
  }
}

TEST(PReluTest, IntegerAndRejections) {
  TestTensor out;
  ASSERT_TRUE(RunOne("PRelu", {}, {TestTensor::Of<int32_t>({3}, {-4, 0, 4}), TestTensor::Of<int32_t>({1}, {3})},
                     DType::kInt32, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{-12, 0, 4}));
  // The slope must broadcast to X (unidirectional), not the other way round.
  EXPECT_EQ(
      RunOne("PRelu", {}, {TestTensor::Of<float>({3}, {1, 2, 3}), TestTensor::Of<float>({2, 3}, {1, 1, 1, 1, 1, 1})},
             DType::kFloat32, {2, 3}, &out)
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("PRelu", {}, {TestTensor::Of<float>({3}, {1, 2, 3}), TestTensor::Of<double>({1}, {1})},
                   DType::kFloat32, {3}, &out)
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
