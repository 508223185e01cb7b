#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/int8/act_test_util.h"

namespace loom {
namespace int8 {
namespace {

using namespace test;  // NOLINT

// The table definition of the int8 Sigmoid, HardSigmoid and HardSwish, one element at a time.
std::vector<int8_t> NaiveTable(const std::string& op, const TestTensor& x, float ys, int64_t yz, double alpha = 0.2,
                               double beta = 0.5) {
  const double xs = x.quant.scale[0];
  const int64_t xz = x.quant.zero_point[0];
  std::vector<int8_t> y;
  for (int8_t q : x.As<int8_t>()) {
    const double r = xs * static_cast<double>(q - xz);
    double f;
    if (op == "Sigmoid") {
      f = 1.0 / (1.0 + std::exp(-r));
    } else if (op == "HardSigmoid") {
      f = std::min(1.0, std::max(0.0, alpha * r + beta));
    } else {
      f = r * std::min(1.0, std::max(0.0, r / 6.0 + 0.5));
    }
    const double v = std::round(f / static_cast<double>(ys)) + static_cast<double>(yz);  // half away from zero
    y.push_back(static_cast<int8_t>(std::min(127.0, std::max(-128.0, v))));
  }
  return y;
}

TestTensor AllValues(float scale, int64_t zero_point, std::mt19937* gen) {
  std::vector<int8_t> v;
  for (int q = -128; q <= 127; ++q) v.push_back(static_cast<int8_t>(q));
  for (int8_t r : RandomInt8(1000, gen)) v.push_back(r);
  return Q({4, static_cast<int64_t>(v.size()) / 4}, v, scale, zero_point);
}

TEST(Int8LutActivationTest, TablesMatchTheirDefinition) {
  std::mt19937 gen(61);
  struct Params {
    float xs;
    int64_t xz;
    float ys;
    int64_t yz;
  };
  const Params params[] = {
      {0.05f, 0, 1.f / 256, -128},  // the usual Sigmoid output parameters
      {0.1f, 20, 0.01f, 0},
      {0.03f, -40, 0.05f, -50},
      {0.2f, 7, 0.2f, 7},
  };
  for (const Params& p : params) {
    const TestTensor x = AllValues(p.xs, p.xz, &gen);
    for (const char* op : {"Sigmoid", "HardSigmoid", "HardSwish"}) {
      std::vector<int8_t> y;
      ASSERT_TRUE(RunInt8(op, {}, {x}, x.shape, p.ys, p.yz, &y, 17, 2).ok()) << op;
      EXPECT_EQ(y, NaiveTable(op, x, p.ys, p.yz)) << op << " " << p.xs;
      // Close to the float op on the dequantized values (one step of Y, plus saturation).
      std::vector<float> real;
      for (int8_t q : x.As<int8_t>()) real.push_back(p.xs * static_cast<float>(q - p.xz));
      std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, x.shape)};
      ASSERT_TRUE(RunKernel(op, {}, {TestTensor::Of<float>(x.shape, real)}, &fouts).ok());
      const std::vector<float> fy = fouts[0].As<float>();
      for (size_t i = 0; i < fy.size(); ++i) {
        const float q = std::min(127.f, std::max(-128.f, std::round(fy[i] / p.ys) + static_cast<float>(p.yz)));
        ASSERT_LE(std::fabs(q - y[i]), 1.f) << op << " at " << real[i];
      }
    }
  }
}

TEST(Int8LutActivationTest, HardSigmoidAttributes) {
  std::mt19937 gen(62);
  const TestTensor x = AllValues(0.04f, 3, &gen);
  Attributes attrs;
  attrs.SetFloat("alpha", 0.3f);
  attrs.SetFloat("beta", 0.6f);
  std::vector<int8_t> y;
  ASSERT_TRUE(RunInt8("HardSigmoid", attrs, {x}, x.shape, 1.f / 255, -128, &y).ok());
  EXPECT_EQ(y, NaiveTable("HardSigmoid", x, 1.f / 255, -128, static_cast<double>(0.3f), static_cast<double>(0.6f)));
}

TEST(Int8LutActivationTest, Refusals) {
  const TestTensor x = Q({4}, {1, 2, 3, 4}, 0.1f, 0);
  const TestTensor fx = TestTensor::Of<float>({4}, {1, 2, 3, 4});
  std::vector<int8_t> y;
  for (const char* op : {"Sigmoid", "HardSigmoid", "HardSwish"}) {
    std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, {4})};
    EXPECT_EQ(RunKernel(op, {}, {fx}, &fouts, Int8Kernel(op)).code(), StatusCode::kUnsupported) << op;
    ASSERT_TRUE(RunKernel(op, {}, {fx}, &fouts).ok()) << op;
    EXPECT_EQ(RunInt8(op, {}, {x.WithQuant({0.1f, 0.2f, 0.3f, 0.4f}, {0, 0, 0, 0})}, {4}, 0.1f, 0, &y).code(),
              StatusCode::kUnsupported)
        << op;
    EXPECT_EQ(RunInt8(op, {}, {TestTensor::Of<int8_t>({4}, {1, 2, 3, 4})}, {4}, 0.1f, 0, &y).code(),
              StatusCode::kUnsupported)
        << op;
  }
}

}  // namespace
}  // namespace int8
}  // namespace loom
