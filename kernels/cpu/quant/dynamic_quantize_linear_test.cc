#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace quant {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

struct Quantized {
  std::vector<uint8_t> y;
  float scale = 0.f;
  uint8_t zero_point = 0;
};

// ONNX's reference, naively, in float32 with rint (round half to even).
Quantized NaiveDynamicQuantize(const std::vector<float>& x) {
  float max = 0.f, min = 0.f;
  for (float v : x) {
    max = std::max(max, v);
    min = std::min(min, v);
  }
  Quantized q;
  q.scale = (max == min ? 1.f : max - min) / 255.f;
  const float zp = std::rint(std::min(255.f, std::max(0.f, 0.f - min / q.scale)));
  q.zero_point = static_cast<uint8_t>(zp);
  for (float v : x) q.y.push_back(static_cast<uint8_t>(std::min(255.f, std::max(0.f, std::rint(v / q.scale) + zp))));
  return q;
}

Status DynamicQuantize(const std::vector<float>& x, Quantized* q, int threads = 1) {
  const Shape shape = {static_cast<int64_t>(x.size())};
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kUInt8, shape), TestTensor::Empty(DType::kFloat32, {}),
                                  TestTensor::Empty(DType::kUInt8, {})};
  RunOptions options;
  options.threads = threads;
  Status s = RunKernel("DynamicQuantizeLinear", {}, {TestTensor::Of<float>(shape, x)}, &outs, options);
  q->y = outs[0].As<uint8_t>();
  q->scale = outs[1].As<float>().at(0);
  q->zero_point = outs[2].As<uint8_t>().at(0);
  return s;
}

void ExpectMatchesNaive(const std::vector<float>& x, int threads = 1) {
  Quantized got;
  ASSERT_TRUE(DynamicQuantize(x, &got, threads).ok());
  const Quantized want = NaiveDynamicQuantize(x);
  EXPECT_EQ(got.scale, want.scale);
  EXPECT_EQ(got.zero_point, want.zero_point);
  EXPECT_EQ(got.y, want.y);
}

TEST(DynamicQuantizeLinearTest, OnnxExample) {
  // ONNX's test_dynamicquantizelinear: scale 5 / 255, zero point round(153) = 153.
  Quantized q;
  ASSERT_TRUE(DynamicQuantize({0.f, 2.f, -3.f, -2.5f, 1.34f, 0.5f}, &q).ok());
  EXPECT_EQ(q.scale, 5.f / 255.f);
  EXPECT_EQ(q.zero_point, 153);
  EXPECT_EQ(q.y, (std::vector<uint8_t>{153, 255, 0, 26, 221, 179}));
}

TEST(DynamicQuantizeLinearTest, AllPositiveAllNegativeMixed) {
  // All positive: the range still includes 0, so the zero point is 0.
  Quantized q;
  ASSERT_TRUE(DynamicQuantize({1.f, 2.f, 51.f}, &q).ok());
  EXPECT_EQ(q.zero_point, 0);
  EXPECT_EQ(q.scale, 51.f / 255.f);
  EXPECT_EQ(q.y, (std::vector<uint8_t>{5, 10, 255}));
  ExpectMatchesNaive({1.f, 2.f, 51.f});
  // All negative: zero point 255. -25.5 / scale is -127.5 in float32, a tie
  // that rounds to even: -128 + 255 = 127.
  ASSERT_TRUE(DynamicQuantize({-1.f, -25.5f, -51.f}, &q).ok());
  EXPECT_EQ(q.zero_point, 255);
  EXPECT_EQ(q.y, (std::vector<uint8_t>{250, 127, 0}));
  ExpectMatchesNaive({-1.f, -25.5f, -51.f});
  ExpectMatchesNaive({-0.75f, 3.25f, 0.f, 1.f, -0.25f, 2.999f});
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-7.f, 3.f);
  std::vector<float> x(1000);
  for (float& v : x) v = dist(gen);
  ExpectMatchesNaive(x);
}

TEST(DynamicQuantizeLinearTest, AllZerosAndEmpty) {
  // max == min: the reference uses a range of 1, so scale 1 / 255.
  Quantized q;
  ASSERT_TRUE(DynamicQuantize({0.f, 0.f, -0.f, 0.f}, &q).ok());
  EXPECT_EQ(q.scale, 1.f / 255.f);
  EXPECT_EQ(q.zero_point, 0);
  EXPECT_EQ(q.y, (std::vector<uint8_t>{0, 0, 0, 0}));
  ASSERT_TRUE(DynamicQuantize({}, &q).ok());
  EXPECT_EQ(q.scale, 1.f / 255.f);
  EXPECT_EQ(q.zero_point, 0);
}

TEST(DynamicQuantizeLinearTest, LargeWithTwoThreads) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> dist(-2.f, 9.f);
  std::vector<float> x(100000);
  for (float& v : x) v = dist(gen);
  x[77777] = 12.5f;  // the extremes sit in different threads' chunks
  x[3] = -4.f;
  ExpectMatchesNaive(x, 2);
}

TEST(DynamicQuantizeLinearTest, RejectsBadSetups) {
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kUInt8, {2}), TestTensor::Empty(DType::kFloat32, {}),
                                  TestTensor::Empty(DType::kUInt8, {})};
  const TestTensor x = TestTensor::Of<float>({2}, {1.f, 2.f});
  EXPECT_TRUE(RunKernel("DynamicQuantizeLinear", {}, {x}, &outs).ok());
  EXPECT_EQ(RunKernel("DynamicQuantizeLinear", {}, {TestTensor::Of<int32_t>({2}, {1, 2})}, &outs).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunKernel("DynamicQuantizeLinear", {}, {TestTensor::Of<double>({2}, {1, 2})}, &outs).code(),
            StatusCode::kUnsupported);
  std::vector<TestTensor> int8_out = {TestTensor::Empty(DType::kInt8, {2}), TestTensor::Empty(DType::kFloat32, {}),
                                      TestTensor::Empty(DType::kUInt8, {})};
  EXPECT_EQ(RunKernel("DynamicQuantizeLinear", {}, {x}, &int8_out).code(), StatusCode::kInvalidArgument);
  std::vector<TestTensor> scale_1d = {TestTensor::Empty(DType::kUInt8, {2}), TestTensor::Empty(DType::kFloat32, {1}),
                                      TestTensor::Empty(DType::kUInt8, {})};
  EXPECT_EQ(RunKernel("DynamicQuantizeLinear", {}, {x}, &scale_1d).code(), StatusCode::kInvalidArgument);
  std::vector<TestTensor> one_out = {TestTensor::Empty(DType::kUInt8, {2})};
  EXPECT_EQ(RunKernel("DynamicQuantizeLinear", {}, {x}, &one_out).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace quant
}  // namespace loom
