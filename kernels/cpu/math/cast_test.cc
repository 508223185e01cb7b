#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/float16.h"
#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

const DType kAllTypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
                           DType::kInt16,   DType::kInt32,   DType::kInt64,   DType::kUInt8,    DType::kUInt16,
                           DType::kUInt32,  DType::kUInt64,  DType::kBool};

// A tensor of `dtype` holding small exact values.
TestTensor Encode(DType dtype, const Shape& shape, const std::vector<double>& values) {
  TestTensor t = TestTensor::Empty(dtype, shape);
  const size_t w = DTypeSize(dtype);
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    uint8_t* p = t.bytes.data() + i * w;
    auto put = [&](auto x) { std::memcpy(p, &x, sizeof(x)); };
    switch (dtype) {
      case DType::kFloat32:
        put(static_cast<float>(v));
        break;
      case DType::kFloat64:
        put(v);
        break;
      case DType::kFloat16:
        put(FloatToHalf(static_cast<float>(v)));
        break;
      case DType::kBFloat16:
        put(FloatToBFloat16(static_cast<float>(v)));
        break;
      case DType::kInt8:
        put(static_cast<int8_t>(v));
        break;
      case DType::kInt16:
        put(static_cast<int16_t>(v));
        break;
      case DType::kInt32:
        put(static_cast<int32_t>(v));
        break;
      case DType::kInt64:
        put(static_cast<int64_t>(v));
        break;
      case DType::kUInt8:
        put(static_cast<uint8_t>(v));
        break;
      case DType::kUInt16:
        put(static_cast<uint16_t>(v));
        break;
      case DType::kUInt32:
        put(static_cast<uint32_t>(v));
        break;
      case DType::kUInt64:
        put(static_cast<uint64_t>(v));
        break;
      case DType::kBool:
        put(static_cast<uint8_t>(v != 0));
        break;
      default:
        break;
    }
  }
  return t;
}

std::vector<double> Decode(const TestTensor& t) {
  const size_t w = DTypeSize(t.dtype);
  std::vector<double> out;
  for (size_t i = 0; i * w < t.bytes.size(); ++i) {
    const uint8_t* p = t.bytes.data() + i * w;
    auto get = [&](auto x) {
      std::memcpy(&x, p, sizeof(x));
      return x;
    };
    switch (t.dtype) {
      case DType::kFloat32:
        out.push_back(get(float{}));
        break;
      case DType::kFloat64:
        out.push_back(get(double{}));
        break;
      case DType::kFloat16:
        out.push_back(HalfToFloat(get(uint16_t{})));
        break;
      case DType::kBFloat16:
        out.push_back(BFloat16ToFloat(get(uint16_t{})));
        break;
      case DType::kInt8:
        out.push_back(get(int8_t{}));
        break;
      case DType::kInt16:
        out.push_back(get(int16_t{}));
        break;
      case DType::kInt32:
        out.push_back(get(int32_t{}));
        break;
      case DType::kInt64:
        out.push_back(static_cast<double>(get(int64_t{})));
        break;
      case DType::kUInt8:
        out.push_back(get(uint8_t{}));
        break;
      case DType::kUInt16:
        out.push_back(get(uint16_t{}));
        break;
      case DType::kUInt32:
        out.push_back(get(uint32_t{}));
        break;
      case DType::kUInt64:
        out.push_back(static_cast<double>(get(uint64_t{})));
        break;
      case DType::kBool:
        out.push_back(get(uint8_t{}));
        break;
      default:
        break;
    }
  }
  return out;
}

Attributes To(DType d) {
  Attributes a;
  a.SetInt("to", static_cast<int64_t>(d));
  return a;
}

TEST(CastTest, EveryPairOfDtypesOnExactValues) {
  for (DType from : kAllTypes) {
    for (DType to : kAllTypes) {
      SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + DTypeName(to));
      const std::vector<double> values =
          from == DType::kBool ? std::vector<double>{0, 1, 1, 0, 1} : std::vector<double>{0, 1, 2, 3, 100};
      std::vector<double> expected = values;
      if (to == DType::kBool) {
        for (double& v : expected) v = v != 0;
      }
      TestTensor out;
      ASSERT_TRUE(RunOne("Cast", To(to), {Encode(from, {5}, values)}, to, {5}, &out).ok());
      EXPECT_EQ(Decode(out), expected);
      ASSERT_TRUE(RunOne("CastLike", {}, {Encode(from, {5}, values), Encode(to, {1}, {0})}, to, {5}, &out).ok());
      EXPECT_EQ(Decode(out), expected);
    }
  }
}

TEST(CastTest, FloatToIntegerTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {2.7f, -2.7f, 300.f, -300.f, nan, inf, -inf, 127.9f};
  TestTensor out;
  ASSERT_TRUE(RunOne("Cast", To(DType::kInt8), {TestTensor::Of<float>({8}, x)}, DType::kInt8, {8}, &out).ok());
  EXPECT_EQ(out.As<int8_t>(), (std::vector<int8_t>{2, -2, 127, -128, 0, 127, -128, 127}));
  ASSERT_TRUE(RunOne("Cast", To(DType::kUInt8), {TestTensor::Of<float>({8}, x)}, DType::kUInt8, {8}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{2, 0, 255, 0, 0, 255, 0, 127}));
  ASSERT_TRUE(
      RunOne("Cast", To(DType::kInt64), {TestTensor::Of<double>({3}, {1e30, -1e30, -5.5})}, DType::kInt64, {3}, &out)
          .ok());
  EXPECT_EQ(out.As<int64_t>(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), -5}));
}

TEST(CastTest, IntegerWrapsAndBool) {
  TestTensor out;
  ASSERT_TRUE(
      RunOne("Cast", To(DType::kUInt8), {TestTensor::Of<int32_t>({3}, {300, -1, 255})}, DType::kUInt8, {3}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{44, 255, 255}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(
      RunOne("Cast", To(DType::kBool), {TestTensor::Of<float>({4}, {0.f, -0.f, 0.1f, nan})}, DType::kBool, {4}, &out)
          .ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 1}));
  // A bool byte other than 0/1 still reads as true.
  ASSERT_TRUE(RunOne("Cast", To(DType::kInt32), {TestTensor::Bools({2}, {0, 7})}, DType::kInt32, {2}, &out).ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{0, 1}));
}

TEST(CastTest, HalfAndBFloat16Rounding) {
  TestTensor out;
  const std::vector<float> x = {1.f, 65504.f, 1e6f, 0.1f, -2.f, 1e-8f};
  ASSERT_TRUE(RunOne("Cast", To(DType::kFloat16), {TestTensor::Of<float>({6}, x)}, DType::kFloat16, {6}, &out).ok());
  EXPECT_EQ(out.As<uint16_t>(), (std::vector<uint16_t>{0x3c00, 0x7bff, 0x7c00, 0x2e66, 0xc000, 0x0000}));
  ASSERT_TRUE(RunOne("Cast", To(DType::kBFloat16), {TestTensor::Of<float>({6}, x)}, DType::kBFloat16, {6}, &out).ok());
  const std::vector<uint16_t> b = out.As<uint16_t>();
  EXPECT_EQ(b[0], 0x3f80);
  EXPECT_EQ(b[4], 0xc000);
  EXPECT_EQ(b[3], 0x3dcd);  // 0.1 rounds to nearest
  ASSERT_TRUE(
      RunOne("Cast", To(DType::kFloat16), {TestTensor::Of<double>({2}, {0.5, 3.0})}, DType::kFloat16, {2}, &out).ok());
  EXPECT_EQ(out.As<uint16_t>(), (std::vector<uint16_t>{0x3800, 0x4200}));
}

TEST(CastTest, LargeWithTwoThreadsAndEmpty) {
  std::vector<int32_t> x(50001);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i) - 25000;
  RunOptions two;
  two.threads = 2;
  TestTensor out;
  ASSERT_TRUE(
      RunOne("Cast", To(DType::kFloat64), {TestTensor::Of<int32_t>({50001}, x)}, DType::kFloat64, {50001}, &out, two)
          .ok());
  const std::vector<double> y = out.As<double>();
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], x[i]);
  ASSERT_TRUE(RunOne("Cast", To(DType::kFloat32), {TestTensor::Of<float>({0}, {})}, DType::kFloat32, {0}, &out).ok());
  ASSERT_TRUE(RunOne("Cast", To(DType::kInt64), {TestTensor::Of<float>({}, {-3.5f})}, DType::kInt64, {}, &out).ok());
  EXPECT_EQ(out.As<int64_t>(), std::vector<int64_t>{-3});
}

TEST(CastTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor x = TestTensor::Of<float>({2}, {1, 2});
  EXPECT_EQ(RunOne("Cast", To(DType::kString), {x}, DType::kString, {2}, &out).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Cast", To(DType::kComplex64), {x}, DType::kComplex64, {2}, &out).code(), StatusCode::kUnsupported);
  Attributes bad;
  bad.SetInt("to", 99);
  EXPECT_EQ(RunOne("Cast", bad, {x}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Cast", {}, {x}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  Attributes wrong_kind;
  wrong_kind.SetFloat("to", 1.f);
  EXPECT_EQ(RunOne("Cast", wrong_kind, {x}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Cast", To(DType::kInt32), {x}, DType::kInt64, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Cast", To(DType::kInt32), {x}, DType::kInt32, {3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CastLike", {}, {x}, DType::kInt32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("CastLike", {}, {x, TestTensor::Of<int32_t>({1}, {0})}, DType::kInt64, {2}, &out).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
