#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/act_test_util.h"

namespace loom {
namespace int8 {
namespace {

using namespace test;  // NOLINT

constexpr float kInf = std::numeric_limits<float>::infinity();

// y = Rescale(x) clamped to the activation range of [lo, hi] in Y.
std::vector<int8_t> NaiveClip(const TestTensor& x, float ys, int64_t yz, float lo, float hi) {
  requant::RescaleParams p;
  EXPECT_TRUE(requant::MakeRescaleParams(x.quant.scale[0], static_cast<int32_t>(x.quant.zero_point[0]), ys,
                                         static_cast<int32_t>(yz),
                                         requant::ActivationRange(true, ys, static_cast<int32_t>(yz), lo, hi), &p)
                  .ok());
  std::vector<int8_t> y;
  for (int8_t q : x.As<int8_t>()) y.push_back(static_cast<int8_t>(requant::Rescale(q, p)));
  return y;
}

// Every int8 value, then random ones.
TestTensor AllValues(float scale, int64_t zero_point, std::mt19937* gen, int64_t extra = 744) {
  std::vector<int8_t> v;
  for (int q = -128; q <= 127; ++q) v.push_back(static_cast<int8_t>(q));
  for (int8_t r : RandomInt8(extra, gen)) v.push_back(r);
  return Q({static_cast<int64_t>(v.size())}, v, scale, zero_point);
}

TEST(Int8ReluTest, EqualAndDifferentParameters) {
  std::mt19937 gen(51);
  for (int params = 0; params < 4; ++params) {
    const float xs = RandomScale(&gen), ys = params == 0 ? xs : RandomScale(&gen);
    const int64_t xz = RandomZeroPoint(&gen), yz = params == 0 ? xz : RandomZeroPoint(&gen);
    const TestTensor x = AllValues(xs, xz, &gen);
    std::vector<int8_t> y;
    ASSERT_TRUE(RunInt8("Relu", {}, {x}, x.shape, ys, yz, &y).ok());
    EXPECT_EQ(y, NaiveClip(x, ys, yz, 0.f, kInf)) << "params " << params;
    if (params == 0) {  // a pure clamp at the zero point
      std::vector<int8_t> clamped = x.As<int8_t>();
      for (int8_t& v : clamped) v = v < xz ? static_cast<int8_t>(xz) : v;
      EXPECT_EQ(y, clamped);
    }
  }
  // Large, split across threads.
  const TestTensor big = RandomQ({4, 64, 32, 32}, 0.1f, 3, &gen);
  for (float ys : {0.1f, 0.05f}) {
    std::vector<int8_t> y;
    ASSERT_TRUE(RunInt8("Relu", {}, {big}, big.shape, ys, 3, &y, 17, 3).ok());
    EXPECT_EQ(y, NaiveClip(big, ys, 3, 0.f, kInf));
  }
}

TEST(Int8ClipTest, ConstantInputBounds) {
  std::mt19937 gen(52);
  const TestTensor absent = TestTensor::Absent();
  struct Bounds {
    bool has_lo, has_hi;
    float lo, hi;
  };
  const Bounds bounds[] = {{true, true, 0.f, 6.f},     {true, true, -0.3f, 0.45f}, {true, false, -0.1f, kInf},
                           {false, true, -kInf, 0.2f}, {false, false, -kInf, kInf}, {true, true, 0.5f, 0.5f}};
  for (const Bounds& b : bounds) {
    for (bool same : {true, false}) {
      const float xs = 0.01f, ys = same ? xs : 0.004f;
      const int64_t xz = -10, yz = same ? xz : 30;
      const TestTensor x = AllValues(xs, xz, &gen);
      std::vector<TestTensor> inputs = {x, b.has_lo ? TestTensor::Const<float>({}, {b.lo}) : absent,
                                        b.has_hi ? TestTensor::Const<float>({}, {b.hi}) : absent};
      std::vector<int8_t> y;
      ASSERT_TRUE(RunInt8("Clip", {}, inputs, x.shape, ys, yz, &y, 13).ok());
      EXPECT_EQ(y, NaiveClip(x, ys, yz, b.lo, b.hi)) << b.lo << " " << b.hi << " same " << same;
    }
  }
}

TEST(Int8ClipTest, Int8BoundsAndAttributes) {
  std::mt19937 gen(53);
  const TestTensor x = AllValues(0.02f, 5, &gen);
  std::vector<int8_t> y;
  // int8 bounds with their own parameters: 0.1 · (−20 − 0) = −2, 0.05 · (30 − (−10)) = 2.
  ASSERT_TRUE(RunInt8("Clip", {},
                      {x, Q({}, {-20}, 0.1f, 0, true), Q({}, {30}, 0.05f, -10, true)}, x.shape, 0.02f, 5, &y, 13)
                  .ok());
  EXPECT_EQ(y, NaiveClip(x, 0.02f, 5, -2.f, 2.f));
  // int8 bounds without parameters are in X's: 0.02 · (−45 − 5) = −1, 0.02 · (55 − 5) = 1.
  ASSERT_TRUE(RunInt8("Clip", {},
                      {x, TestTensor::Const<int8_t>({}, {-45}), TestTensor::Const<int8_t>({1}, {55})}, x.shape, 0.03f,
                      -1, &y, 13)
                  .ok());
  EXPECT_EQ(y, NaiveClip(x, 0.03f, -1, -1.f, 1.f));
  // Opset 6: attributes.
  Attributes attrs;
  attrs.SetFloat("min", -0.5f);
  attrs.SetFloat("max", 1.25f);
  ASSERT_TRUE(RunInt8("Clip", attrs, {x}, x.shape, 0.02f, 5, &y, 6).ok());
  EXPECT_EQ(y, NaiveClip(x, 0.02f, 5, -0.5f, 1.25f));
  // min > max: max everywhere.
  ASSERT_TRUE(RunInt8("Clip", {}, {x, TestTensor::Const<float>({}, {1.f}), TestTensor::Const<float>({}, {-1.f})},
                      x.shape, 0.02f, 5, &y, 13)
                  .ok());
  EXPECT_EQ(y, std::vector<int8_t>(y.size(), static_cast<int8_t>(5 - 50)));
}

TEST(Int8ReluClipTest, Refusals) {
  const TestTensor x = Q({4}, {1, 2, 3, 4}, 0.1f, 0);
  const TestTensor fx = TestTensor::Of<float>({4}, {1, 2, 3, 4});
  std::vector<int8_t> y;
  for (const char* op : {"Relu", "Clip"}) {
    std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, {4})};
    EXPECT_EQ(RunKernel(op, {}, {fx}, &fouts, Int8Kernel(op, 13)).code(), StatusCode::kUnsupported) << op;
    ASSERT_TRUE(RunKernel(op, {}, {fx}, &fouts, [&] {
                  RunOptions o;
                  o.opset = 13;
                  return o;
                }())
                    .ok())
        << op;
    EXPECT_EQ(RunInt8(op, {}, {x.WithQuant({0.1f, 0.2f, 0.3f, 0.4f}, {0, 0, 0, 0})}, {4}, 0.1f, 0, &y, 13).code(),
              StatusCode::kUnsupported)
        << op;
    // per-channel output parameters
    std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt8, {4}).WithQuant({0.1f, 0.1f}, {0, 0})};
    EXPECT_EQ(RunKernel(op, {}, {x}, &outs, Int8Kernel(op, 13)).code(), StatusCode::kUnsupported) << op;
  }
  // Bounds that are not constant.
  TestTensor lo = TestTensor::Of<float>({}, {0.f});
  EXPECT_EQ(RunInt8("Clip", {}, {x, lo}, {4}, 0.1f, 0, &y, 13).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace int8
}  // namespace loom
