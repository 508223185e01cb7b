#include <gtest/gtest.h>

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

// ONNX's definition, naively: float division, round half to even (rint under
// the default rounding mode), add the zero point, saturate.
template <typename Q, typename X>
std::vector<Q> NaiveQuantize(const std::vector<X>& x, const Shape& shape, int axis, const std::vector<float>& scale,
                             const std::vector<Q>& zero_point) {
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<Q> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = scale.size() == 1 ? 0 : static_cast<size_t>(i / inner) % scale.size();
    const float zp = zero_point.empty() ? 0.f : static_cast<float>(zero_point[c]);
    double v = std::rint(static_cast<float>(x[i]) / scale[c]) + zp;
    v = std::min<double>(std::numeric_limits<Q>::max(), std::max<double>(std::numeric_limits<Q>::min(), v));
    y[i] = static_cast<Q>(v);
  }
  return y;
}

Attributes Axis(int64_t axis) {
  Attributes a;
  a.SetInt("axis", axis);
  return a;
}

RunOptions Opset(int opset) {
  RunOptions o;
  o.opset = opset;
  return o;
}

// Runs QuantizeLinear with output dtype Q.
template <typename Q>
Status Quantize(const std::vector<TestTensor>& inputs, std::vector<Q>* y, const Attributes& attrs = {},
                const RunOptions& options = {}) {
  std::vector<TestTensor> outs = {TestTensor::Empty(DTypeOf<Q>::value, inputs[0].shape)};
  Status s = RunKernel("QuantizeLinear", attrs, inputs, &outs, options);
  *y = outs[0].As<Q>();
  return s;
}

TEST(QuantizeLinearTest, TiesRoundToEven) {
  // x / scale = 2.5, -2.5, 3.5, -3.5, 0.5, -0.5, 1.5, 2.4999998
  const std::vector<float> x = {5.f, -5.f, 7.f, -7.f, 1.f, -1.f, 3.f, 4.9999995f};
  for (bool constant : {false, true}) {
    std::vector<int8_t> y;
    ASSERT_TRUE(Quantize<int8_t>({TestTensor::Of<float>({8}, x), TestTensor::Of<float>({}, {2.f}, constant),
                                  TestTensor::Of<int8_t>({}, {0}, constant)},
                                 &y)
                    .ok());
    EXPECT_EQ(y, (std::vector<int8_t>{2, -2, 4, -4, 0, 0, 2, 2}));
    std::vector<uint8_t> u;
    ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<float>({8}, x), TestTensor::Of<float>({}, {2.f}, constant),
                                   TestTensor::Of<uint8_t>({}, {10}, constant)},
                                  &u)
                    .ok());
    EXPECT_EQ(u, (std::vector<uint8_t>{12, 8, 14, 6, 10, 10, 12, 12}));
  }
}

TEST(QuantizeLinearTest, SaturatesAtBothEnds) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1000.f, -1000.f, 127.f, 128.f, -128.f, -129.f, inf, -inf, 254.5f, 1e30f};
  std::vector<int8_t> y;
  ASSERT_TRUE(Quantize<int8_t>({TestTensor::Of<float>({10}, x), TestTensor::Of<float>({}, {1.f}),
                                TestTensor::Of<int8_t>({}, {0})},
                               &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<int8_t>{127, -128, 127, 127, -128, -128, 127, -128, 127, 127}));
  // uint8 with zero point 1: 254.5 -> 254 + 1 = 255, 255 -> 256 saturates, -1 -> 0.
  std::vector<uint8_t> u;
  ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<float>({6}, {254.5f, 255.f, -1.f, -2.f, inf, -inf}),
                                 TestTensor::Of<float>({}, {1.f}), TestTensor::Of<uint8_t>({}, {1})},
                                &u)
                  .ok());
  EXPECT_EQ(u, (std::vector<uint8_t>{255, 255, 0, 0, 255, 0}));
  // int8 with zero point -100: -28.5 -> -28 - 100 = -128, -29 -> -129 saturates.
  ASSERT_TRUE(Quantize<int8_t>({TestTensor::Of<float>({3}, {-28.5f, -29.f, 300.f}), TestTensor::Of<float>({}, {1.f}),
                                TestTensor::Of<int8_t>({}, {-100})},
                               &y)
                  .ok());
  EXPECT_EQ(y, (std::vector<int8_t>{-128, -128, 127}));
}

TEST(QuantizeLinearTest, AbsentZeroPointIsUint8Zero) {
  std::vector<uint8_t> y;
  ASSERT_TRUE(
      Quantize<uint8_t>({TestTensor::Of<float>({5}, {0.f, 2.f, 3.f, -1.f, 1000.f}), TestTensor::Of<float>({}, {2.f}),
                         TestTensor::Absent()},
                        &y)
          .ok());
  EXPECT_EQ(y, (std::vector<uint8_t>{0, 1, 2, 0, 255}));
  ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<float>({2}, {3.f, 5.f}), TestTensor::Of<float>({}, {2.f})}, &y).ok());
  EXPECT_EQ(y, (std::vector<uint8_t>{2, 2}));
  // output_dtype (opset 21) picks int8 when the zero point is absent.
  Attributes int8;
  int8.SetInt("output_dtype", static_cast<int64_t>(DType::kInt8));
  std::vector<int8_t> s;
  ASSERT_TRUE(Quantize<int8_t>({TestTensor::Of<float>({2}, {-3.f, 5.f}), TestTensor::Of<float>({}, {2.f})}, &s, int8,
                               Opset(21))
                  .ok());
  EXPECT_EQ(s, (std::vector<int8_t>{-2, 2}));
}

TEST(QuantizeLinearTest, PerAxisAgainstNaive) {
  const Shape shape = {2, 3, 4, 5};
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-300.f, 300.f);
  std::vector<float> x(120);
  for (float& v : x) v = std::round(dist(gen)) / 2.f;  // many exact ties
  for (int axis : {0, 1, 2, 3}) {
    for (int64_t attr : {int64_t{axis}, int64_t{axis} - 4}) {
      std::vector<float> scale;
      std::vector<int8_t> zp;
      for (int64_t c = 0; c < shape[axis]; ++c) {
        scale.push_back(0.5f + 0.25f * static_cast<float>(c));
        zp.push_back(static_cast<int8_t>(c * 7 - 10));
      }
      const int64_t c = shape[axis];
      for (bool constant : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(attr) + (constant ? " constant" : " run-time"));
        std::vector<int8_t> y;
        ASSERT_TRUE(Quantize<int8_t>({TestTensor::Of<float>(shape, x), TestTensor::Of<float>({c}, scale, constant),
                                      TestTensor::Of<int8_t>({c}, zp, constant)},
                                     &y, Axis(attr))
                        .ok());
        EXPECT_EQ(y, NaiveQuantize<int8_t>(x, shape, axis, scale, zp));
      }
    }
  }
}

TEST(QuantizeLinearTest, Int32InputAndOneElementScales) {
  const std::vector<int32_t> x = {-1000, -5, -3, 0, 3, 5, 7, 1000};
  const std::vector<uint8_t> expected = {0, 126, 126, 128, 130, 130, 132, 255};
  EXPECT_EQ(NaiveQuantize<uint8_t>(x, {2, 4}, 0, {2.f}, std::vector<uint8_t>{128}), expected);
  std::vector<uint8_t> y;
  ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<int32_t>({2, 4}, x), TestTensor::Of<float>({}, {2.f}),
                                 TestTensor::Of<uint8_t>({}, {128})},
                                &y, {}, Opset(10))
                  .ok());
  EXPECT_EQ(y, expected);
  // 1-D scale and zero point of one element are per-tensor, whatever the axis.
  ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<int32_t>({2, 4}, x), TestTensor::Of<float>({1}, {2.f}),
                                 TestTensor::Of<uint8_t>({1}, {128})},
                                &y, Axis(-1))
                  .ok());
  EXPECT_EQ(y, expected);
}

TEST(QuantizeLinearTest, LargeWithTwoThreads) {
  const Shape shape = {3, 50000};
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-200.f, 200.f);
  std::vector<float> x(150000);
  for (float& v : x) v = dist(gen);
  RunOptions two;
  two.threads = 2;
  std::vector<uint8_t> y;
  ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<float>(shape, x), TestTensor::Const<float>({3}, {0.7f, 1.1f, 0.9f}),
                                 TestTensor::Const<uint8_t>({3}, {0, 128, 255})},
                                &y, Axis(0), two)
                  .ok());
  EXPECT_EQ(y, NaiveQuantize<uint8_t>(x, shape, 0, {0.7f, 1.1f, 0.9f}, std::vector<uint8_t>{0, 128, 255}));
  ASSERT_TRUE(Quantize<uint8_t>({TestTensor::Of<float>(shape, x), TestTensor::Of<float>({}, {0.3f})}, &y, {}, two)
                  .ok());
  EXPECT_EQ(y, NaiveQuantize<uint8_t>(x, shape, 0, {0.3f}, std::vector<uint8_t>{}));
}

TEST(QuantizeLinearTest, RejectsBadSetups) {
  const TestTensor x = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const TestTensor s3 = TestTensor::Of<float>({3}, {1, 2, 3});
  const TestTensor z3 = TestTensor::Of<uint8_t>({3}, {0, 0, 0});
  std::vector<uint8_t> y;
  auto code = [&](const std::vector<TestTensor>& inputs, const Attributes& attrs = {}, int opset = 13) {
    return Quantize<uint8_t>(inputs, &y, attrs, Opset(opset)).code();
  };
  EXPECT_TRUE(Quantize<uint8_t>({x, s3, z3}, &y).ok());
  // Scale length does not match dim `axis`; axis out of range.
  const Status mismatch = Quantize<uint8_t>({x, s3, z3}, &y, Axis(0));
  EXPECT_EQ(mismatch.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mismatch.message(), "scale has 3 elements, expected 2 (input 0 dim 0)");
  EXPECT_EQ(code({x, s3, z3}, Axis(2)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, s3, z3}, Axis(-3)), StatusCode::kInvalidArgument);
  // Per-axis needs opset 13; zero point shape must match the scale's.
  EXPECT_EQ(code({x, s3, z3}, {}, 10), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, s3, TestTensor::Of<uint8_t>({}, {0})}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, TestTensor::Of<float>({1, 3}, {1, 2, 3}), z3}), StatusCode::kInvalidArgument);
  // Wrong dtypes: scale, input, zero point.
  EXPECT_EQ(code({x, TestTensor::Of<int32_t>({}, {1})}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({TestTensor::Of<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}), TestTensor::Of<float>({}, {1})}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, TestTensor::Of<float>({}, {1}), TestTensor::Of<float>({}, {0})}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, TestTensor::Of<double>({}, {1})}), StatusCode::kUnsupported);
  EXPECT_EQ(code({x, TestTensor::Of<float>({}, {1}), TestTensor::Of<uint16_t>({}, {0})}), StatusCode::kUnsupported);
  // Output dtype must follow the zero point; blocked quantization is refused.
  EXPECT_EQ(code({x, TestTensor::Of<float>({}, {1}), TestTensor::Of<int8_t>({}, {0})}), StatusCode::kInvalidArgument);
  Attributes blocked;
  blocked.SetInt("block_size", 2);
  EXPECT_EQ(code({x, s3, z3}, blocked, 21), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace quant
}  // namespace loom
