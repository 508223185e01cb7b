#include <gtest/gtest.h>

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

// ONNX's definition, naively: (float(x) - float(zero_point)) * scale.
template <typename Q>
std::vector<float> NaiveDequantize(const std::vector<Q>& x, const Shape& shape, int axis,
                                   const std::vector<float>& scale, const std::vector<Q>& zero_point) {
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = scale.size() == 1 ? 0 : static_cast<size_t>(i / inner) % scale.size();
    const float zp = zero_point.empty() ? 0.f : static_cast<float>(zero_point[c]);
    y[i] = (static_cast<float>(x[i]) - zp) * scale[c];
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

Status Dequantize(const std::vector<TestTensor>& inputs, std::vector<float>* y, const Attributes& attrs = {},
                  const RunOptions& options = {}) {
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, inputs[0].shape)};
  Status s = RunKernel("DequantizeLinear", attrs, inputs, &outs, options);
  *y = outs[0].As<float>();
  return s;
}

TEST(DequantizeLinearTest, PerTensorUint8AndInt8) {
  for (bool constant : {false, true}) {
    std::vector<float> y;
    ASSERT_TRUE(Dequantize({TestTensor::Of<uint8_t>({5}, {0, 3, 128, 254, 255}),
                            TestTensor::Of<float>({}, {0.5f}, constant), TestTensor::Of<uint8_t>({}, {128}, constant)},
                           &y, {}, Opset(10))
                    .ok());
    EXPECT_EQ(y, (std::vector<float>{-64.f, -62.5f, 0.f, 63.f, 63.5f}));
    ASSERT_TRUE(Dequantize({TestTensor::Of<int8_t>({4}, {-128, -1, 0, 127}), TestTensor::Of<float>({1}, {2.f}, constant),
                            TestTensor::Of<int8_t>({1}, {-1}, constant)},
                           &y)
                    .ok());
    EXPECT_EQ(y, (std::vector<float>{-254.f, 0.f, 2.f, 256.f}));
  }
}

TEST(DequantizeLinearTest, AbsentZeroPoint) {
  std::vector<float> y;
  ASSERT_TRUE(
      Dequantize({TestTensor::Of<uint8_t>({3}, {0, 1, 255}), TestTensor::Of<float>({}, {0.25f}), TestTensor::Absent()},
                 &y)
          .ok());
  EXPECT_EQ(y, (std::vector<float>{0.f, 0.25f, 63.75f}));
  ASSERT_TRUE(Dequantize({TestTensor::Of<int8_t>({2}, {-128, 5}), TestTensor::Of<float>({}, {0.25f})}, &y).ok());
  EXPECT_EQ(y, (std::vector<float>{-32.f, 1.25f}));
}

TEST(DequantizeLinearTest, Int32) {
  const std::vector<int32_t> x = {-2147483647 - 1, -1000000, -1, 0, 1, 16777217, 2147483647};
  std::vector<float> y;
  ASSERT_TRUE(Dequantize({TestTensor::Of<int32_t>({7}, x), TestTensor::Of<float>({}, {0.5f})}, &y).ok());
  EXPECT_EQ(y, NaiveDequantize<int32_t>(x, {7}, 0, {0.5f}, {}));
  ASSERT_TRUE(Dequantize({TestTensor::Of<int32_t>({7}, x), TestTensor::Const<float>({}, {0.5f}),
                          TestTensor::Const<int32_t>({}, {0})},
                         &y)
                  .ok());
  EXPECT_EQ(y, NaiveDequantize<int32_t>(x, {7}, 0, {0.5f}, {}));
  // Per-axis int32 (a bias), as in a quantized Conv.
  ASSERT_TRUE(Dequantize({TestTensor::Of<int32_t>({2, 2}, {10, -10, 7, 8}), TestTensor::Of<float>({2}, {0.5f, 2.f})},
                         &y, Axis(0))
                  .ok());
  EXPECT_EQ(y, (std::vector<float>{5.f, -5.f, 14.f, 16.f}));
}

TEST(DequantizeLinearTest, PerAxisAgainstNaive) {
  const Shape shape = {2, 3, 4, 5};
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<uint8_t> x(120);
  for (uint8_t& v : x) v = static_cast<uint8_t>(dist(gen));
  for (int axis : {0, 1, 2, 3}) {
    for (int64_t attr : {int64_t{axis}, int64_t{axis} - 4}) {
      const int64_t c = shape[axis];
      std::vector<float> scale;
      std::vector<uint8_t> zp;
      for (int64_t i = 0; i < c; ++i) {
        scale.push_back(0.1f + 0.3f * static_cast<float>(i));
        zp.push_back(static_cast<uint8_t>(100 + 20 * i));
      }
      for (bool constant : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(attr) + (constant ? " constant" : " run-time"));
        std::vector<float> y;
        RunOptions options;
        options.threads = constant ? 2 : 1;
        ASSERT_TRUE(Dequantize({TestTensor::Of<uint8_t>(shape, x), TestTensor::Of<float>({c}, scale, constant),
                                TestTensor::Of<uint8_t>({c}, zp, constant)},
                               &y, Axis(attr), options)
                        .ok());
        EXPECT_EQ(y, NaiveDequantize<uint8_t>(x, shape, axis, scale, zp));
      }
    }
  }
}

TEST(DequantizeLinearTest, LargeWithTwoThreads) {
  const Shape shape = {4, 30000};
  std::vector<int8_t> x(120000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(i * 37);
  const std::vector<float> scale = {0.5f, 0.25f, 3.f, 0.01f};
  const std::vector<int8_t> zp = {0, -128, 127, 5};
  RunOptions two;
  two.threads = 2;
  std::vector<float> y;
  ASSERT_TRUE(Dequantize({TestTensor::Of<int8_t>(shape, x), TestTensor::Of<float>({4}, scale),
                          TestTensor::Of<int8_t>({4}, zp)},
                         &y, Axis(-2), two)
                  .ok());
  EXPECT_EQ(y, NaiveDequantize<int8_t>(x, shape, 0, scale, zp));
}

TEST(DequantizeLinearTest, RejectsBadSetups) {
  const TestTensor x = TestTensor::Of<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const TestTensor s3 = TestTensor::Of<float>({3}, {1, 2, 3});
  const TestTensor z3 = TestTensor::Of<uint8_t>({3}, {0, 0, 0});
  std::vector<float> y;
  auto code = [&](const std::vector<TestTensor>& inputs, const Attributes& attrs = {}, int opset = 13) {
    return Dequantize(inputs, &y, attrs, Opset(opset)).code();
  };
  EXPECT_TRUE(Dequantize({x, s3, z3}, &y).ok());
  const Status mismatch = Dequantize({x, TestTensor::Of<float>({4}, {1, 2, 3, 4})}, &y);
  EXPECT_EQ(mismatch.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(mismatch.message(), "scale has 4 elements, expected 3 (input 0 dim 1)");
  EXPECT_EQ(code({x, s3, z3}, Axis(0)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, s3, z3}, Axis(2)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, s3, z3}, {}, 10), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, s3, TestTensor::Of<uint8_t>({2}, {0, 0})}), StatusCode::kInvalidArgument);
  // Zero point of another dtype than x; x float; scale not float32.
  EXPECT_EQ(code({x, s3, TestTensor::Of<int8_t>({3}, {0, 0, 0})}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({TestTensor::Of<float>({2}, {1, 2}), TestTensor::Of<float>({}, {1})}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, TestTensor::Of<uint8_t>({}, {1})}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({x, TestTensor::Of<double>({}, {1})}), StatusCode::kUnsupported);
  EXPECT_EQ(code({TestTensor::Of<int16_t>({2}, {1, 2}), TestTensor::Of<float>({}, {1})}), StatusCode::kUnsupported);
  // A constant non-zero zero point for int32 x.
  EXPECT_EQ(code({TestTensor::Of<int32_t>({2}, {1, 2}), TestTensor::Const<float>({}, {1}),
                  TestTensor::Const<int32_t>({}, {3})}),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace quant
}  // namespace loom
