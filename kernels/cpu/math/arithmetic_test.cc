#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::BroadcastIndex;
using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

// Runs `op` on a and b broadcast and checks every element against ref(a, b).
template <typename T, typename Ref>
void CheckBroadcast(const std::string& op, const Shape& sa, const Shape& sb, const Shape& so, Ref ref, int threads = 1,
                    double lo = -20, double hi = 20) {
  SCOPED_TRACE(op + " " + DTypeName(DTypeOf<T>::value) + " " + ShapeToString(sa) + " x " + ShapeToString(sb));
  const std::vector<T> a = RandomValues<T>(NumElements(sa), lo, hi, 1);
  std::vector<T> b = RandomValues<T>(NumElements(sb), lo, hi, 2);
  TestTensor out;
  RunOptions opt;
  opt.threads = threads;
  ASSERT_TRUE(
      RunOne(op, {}, {TestTensor::Of<T>(sa, a), TestTensor::Of<T>(sb, b)}, DTypeOf<T>::value, so, &out, opt).ok());
  const std::vector<T> y = out.As<T>();
  ASSERT_EQ(static_cast<int64_t>(y.size()), NumElements(so));
  for (int64_t i = 0; i < NumElements(so); ++i) {
    const T expected = ref(a[BroadcastIndex(sa, so, i)], b[BroadcastIndex(sb, so, i)]);
    ASSERT_TRUE(test::Near<double>(y[i], expected, 1e-6)) << "element " << i << ": " << y[i] << " vs " << expected;
  }
}

struct ShapeCase {
  Shape a, b, out;
};

const std::vector<ShapeCase>& ShapeCases() {
  static const std::vector<ShapeCase> cases = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
      {{2, 3, 4}, {4}, {2, 3, 4}},
      {{2, 3, 4}, {}, {2, 3, 4}},
      {{}, {3, 4}, {3, 4}},
      {{3, 1}, {1, 4}, {3, 4}},
      {{2, 1, 4}, {3, 1}, {2, 3, 4}},
      {{}, {}, {}},
      {{0, 4}, {1, 4}, {0, 4}},
      {{1, 3, 1, 1}, {2, 3, 5, 5}, {2, 3, 5, 5}},
  };
  return cases;
}

TEST(ArithmeticTest, FloatBroadcasting) {
  for (const ShapeCase& c : ShapeCases()) {
    CheckBroadcast<float>("Add", c.a, c.b, c.out, [](float a, float b) { return a + b; });
    CheckBroadcast<float>("Sub", c.a, c.b, c.out, [](float a, float b) { return a - b; });
    CheckBroadcast<double>("Mul", c.a, c.b, c.out, [](double a, double b) { return a * b; });
    CheckBroadcast<double>("Div", c.a, c.b, c.out, [](double a, double b) { return a / b; });
  }
}

TEST(ArithmeticTest, IntegerTypes) {
  for (const ShapeCase& c : ShapeCases()) {
    CheckBroadcast<int32_t>("Add", c.a, c.b, c.out, [](int32_t a, int32_t b) { return a + b; });
    CheckBroadcast<int64_t>("Sub", c.a, c.b, c.out, [](int64_t a, int64_t b) { return a - b; });
    CheckBroadcast<int16_t>("Mul", c.a, c.b, c.out, [](int16_t a, int16_t b) { return int16_t(a * b); });
    CheckBroadcast<uint8_t>(
        "Add", c.a, c.b, c.out, [](uint8_t a, uint8_t b) { return uint8_t(a + b); }, 1, 0, 200);
    CheckBroadcast<uint64_t>(
        "Mul", c.a, c.b, c.out, [](uint64_t a, uint64_t b) { return a * b; }, 1, 0, 1000);
  }
}

TEST(ArithmeticTest, TwoThreadsOnLargeBroadcast) {
  CheckBroadcast<float>(
      "Add", {64, 1, 300}, {1, 20, 300}, {64, 20, 300}, [](float a, float b) { return a + b; }, 2);
  CheckBroadcast<float>(
      "Mul", {100000}, {}, {100000}, [](float a, float b) { return a * b; }, 2);
  CheckBroadcast<int32_t>(
      "Sub", {3, 50000}, {3, 1}, {3, 50000}, [](int32_t a, int32_t b) { return a - b; }, 2);
}

// One operand repeated row after row in short runs (a channel-blocked tensor
// and a per-channel one, [N, C/8, H, W, 8] x [N, C/8, 1, 1, 8]): the kernel
// lengthens the runs through a buffer of repeated periods.
TEST(ArithmeticTest, ShortRepeatedPeriods) {
  const auto sub = [](float a, float b) { return a - b; };
  CheckBroadcast<float>("Sub", {1, 3, 1, 1, 8}, {1, 3, 5, 7, 8}, {1, 3, 5, 7, 8}, sub);
  CheckBroadcast<float>("Sub", {2, 3, 6, 6, 8}, {2, 3, 1, 1, 8}, {2, 3, 6, 6, 8}, sub);
  CheckBroadcast<float>("Sub", {5, 8}, {1, 8}, {5, 8}, sub);
  CheckBroadcast<float>("Sub", {3, 40, 64}, {3, 1, 64}, {3, 40, 64}, sub);
  CheckBroadcast<float>("Sub", {3, 200, 3}, {3, 1, 3}, {3, 200, 3}, sub, 2);
  CheckBroadcast<float>(
      "Mul", {1, 18, 56, 56, 8}, {1, 18, 1, 1, 8}, {1, 18, 56, 56, 8}, [](float a, float b) { return a * b; }, 2);
  CheckBroadcast<int64_t>("Sub", {2, 1, 4}, {2, 5, 4}, {2, 5, 4}, [](int64_t a, int64_t b) { return a - b; });
}

TEST(ArithmeticTest, IntegerDivisionTruncatesAndNeverTraps) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  TestTensor out;
  ASSERT_TRUE(RunOne("Div", {},
                     {TestTensor::Of<int32_t>({6}, {7, -7, 7, -7, 5, kMin}),
                      TestTensor::Of<int32_t>({6}, {2, 2, -2, -2, 0, -1})},
                     DType::kInt32, {6}, &out)
                  .ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{3, -3, -3, 3, 0, kMin}));
  ASSERT_TRUE(RunOne("Div", {}, {TestTensor::Of<uint8_t>({3}, {200, 7, 9}), TestTensor::Of<uint8_t>({3}, {3, 0, 10})},
                     DType::kUInt8, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{66, 0, 0}));
}

TEST(ArithmeticTest, IntegerOverflowWraps) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  TestTensor out;
  ASSERT_TRUE(RunOne("Add", {}, {TestTensor::Of<int64_t>({1}, {kMax}), TestTensor::Of<int64_t>({1}, {1})},
                     DType::kInt64, {1}, &out)
                  .ok());
  EXPECT_EQ(out.As<int64_t>()[0], kMin);
  ASSERT_TRUE(RunOne("Mul", {}, {TestTensor::Of<uint16_t>({1}, {65535}), TestTensor::Of<uint16_t>({1}, {65535})},
                     DType::kUInt16, {1}, &out)
                  .ok());
  EXPECT_EQ(out.As<uint16_t>()[0], 1);
}

TEST(ArithmeticTest, ModSignSemantics) {
  const std::vector<int32_t> a = {-4, 7, 5, 4, -7, 8, 3, 9};
  const std::vector<int32_t> b = {2, -3, 8, -2, 3, 5, 0, -1};
  TestTensor out;
  ASSERT_TRUE(
      RunOne("Mod", {}, {TestTensor::Of<int32_t>({8}, a), TestTensor::Of<int32_t>({8}, b)}, DType::kInt32, {8}, &out)
          .ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{0, -2, 5, 0, 2, 3, 0, 0}));  // sign of divisor
  Attributes fmod;
  fmod.SetInt("fmod", 1);
  ASSERT_TRUE(
      RunOne("Mod", fmod, {TestTensor::Of<int32_t>({8}, a), TestTensor::Of<int32_t>({8}, b)}, DType::kInt32, {8}, &out)
          .ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{0, 1, 5, 0, -1, 3, 0, 0}));  // sign of dividend
  ASSERT_TRUE(RunOne("Mod", fmod,
                     {TestTensor::Of<float>({3}, {-4.5f, 7.5f, 5.f}), TestTensor::Of<float>({3}, {2.f, -2.f, 3.f})},
                     DType::kFloat32, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{-0.5f, 1.5f, 2.f}));
  ASSERT_TRUE(RunOne("Mod", {}, {TestTensor::Of<uint8_t>({2}, {250, 7}), TestTensor::Of<uint8_t>({1}, {7})},
                     DType::kUInt8, {2}, &out)
                  .ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{5, 0}));
  // Float Mod without fmod=1 breaks the spec.
  EXPECT_EQ(RunOne("Mod", {}, {TestTensor::Of<float>({1}, {1.f}), TestTensor::Of<float>({1}, {1.f})}, DType::kFloat32,
                   {1}, &out)
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ArithmeticTest, PowMixedTypes) {
  TestTensor out;
  ASSERT_TRUE(RunOne("Pow", {}, {TestTensor::Of<float>({3}, {1.f, 2.f, 3.f}), TestTensor::Of<int64_t>({3}, {4, 5, 6})},
                     DType::kFloat32, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{1.f, 32.f, 729.f}));
  ASSERT_TRUE(RunOne("Pow", {}, {TestTensor::Of<int32_t>({3}, {1, 2, 3}), TestTensor::Of<float>({3}, {4.f, 5.f, 6.f})},
                     DType::kInt32, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<int32_t>(), (std::vector<int32_t>{1, 32, 729}));
  ASSERT_TRUE(
      RunOne("Pow", {},
             {TestTensor::Of<int64_t>({6}, {2, 3, -2, 2, 1, -1}), TestTensor::Of<int64_t>({6}, {10, 0, 3, -1, -5, -3})},
             DType::kInt64, {6}, &out)
          .ok());
  EXPECT_EQ(out.As<int64_t>(), (std::vector<int64_t>{1024, 1, -8, 0, 1, -1}));
  ASSERT_TRUE(RunOne("Pow", {}, {TestTensor::Of<double>({2, 2}, {1, 2, 3, 4}), TestTensor::Of<double>({2}, {0.5, 2})},
                     DType::kFloat64, {2, 2}, &out)
                  .ok());
  const std::vector<double> y = out.As<double>();
  EXPECT_DOUBLE_EQ(y[0], 1);
  EXPECT_DOUBLE_EQ(y[1], 4);
  EXPECT_DOUBLE_EQ(y[2], std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(y[3], 16);
  ASSERT_TRUE(RunOne("Pow", {}, {TestTensor::Of<float>({2}, {2.f, 4.f}), TestTensor::Of<uint8_t>({}, {3})},
                     DType::kFloat32, {2}, &out)
                  .ok());
  EXPECT_EQ(out.As<float>(), (std::vector<float>{8.f, 64.f}));
  // int8 bases are outside the spec's base types.
  EXPECT_EQ(
      RunOne("Pow", {}, {TestTensor::Of<int8_t>({1}, {2}), TestTensor::Of<int8_t>({1}, {2})}, DType::kInt8, {1}, &out)
          .code(),
      StatusCode::kUnsupported);
}

TEST(ArithmeticTest, BitShift) {
  Attributes left, right;
  left.SetString("direction", "LEFT");
  right.SetString("direction", "RIGHT");
  TestTensor out;
  ASSERT_TRUE(RunOne("BitShift", left,
                     {TestTensor::Of<uint8_t>({4}, {16, 4, 1, 255}), TestTensor::Of<uint8_t>({4}, {1, 2, 8, 1})},
                     DType::kUInt8, {4}, &out)
                  .ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{32, 16, 0, 254}));
  ASSERT_TRUE(RunOne("BitShift", right, {TestTensor::Of<uint32_t>({3}, {16, 4, 1}), TestTensor::Of<uint32_t>({}, {2})},
                     DType::kUInt32, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<uint32_t>(), (std::vector<uint32_t>{4, 1, 0}));
  ASSERT_TRUE(RunOne("BitShift", left, {TestTensor::Of<uint64_t>({2}, {1, 1}), TestTensor::Of<uint64_t>({2}, {63, 64})},
                     DType::kUInt64, {2}, &out)
                  .ok());
  EXPECT_EQ(out.As<uint64_t>(), (std::vector<uint64_t>{uint64_t{1} << 63, 0}));
  Attributes bad;
  bad.SetString("direction", "UP");
  EXPECT_EQ(RunOne("BitShift", bad, {TestTensor::Of<uint8_t>({1}, {1}), TestTensor::Of<uint8_t>({1}, {1})},
                   DType::kUInt8, {1}, &out)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("BitShift", {}, {TestTensor::Of<uint8_t>({1}, {1}), TestTensor::Of<uint8_t>({1}, {1})},
                   DType::kUInt8, {1}, &out)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("BitShift", left, {TestTensor::Of<int8_t>({1}, {1}), TestTensor::Of<int8_t>({1}, {1})}, DType::kInt8,
                   {1}, &out)
                .code(),
            StatusCode::kUnsupported);
}

TEST(ArithmeticTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor a = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunOne("Add", {}, {a, TestTensor::Of<float>({2}, {1, 2})}, DType::kFloat32, {2, 3}, &out).code(),
            StatusCode::kInvalidArgument);  // shapes do not broadcast
  EXPECT_EQ(RunOne("Add", {}, {a, TestTensor::Of<double>({3}, {1, 2, 3})}, DType::kFloat32, {2, 3}, &out).code(),
            StatusCode::kInvalidArgument);  // mixed dtypes
  EXPECT_EQ(RunOne("Add", {}, {a, a}, DType::kFloat32, {3, 2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Add", {}, {a, a}, DType::kFloat64, {2, 3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Add", {}, {a}, DType::kFloat32, {2, 3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Add", {}, {a, TestTensor::Absent()}, DType::kFloat32, {2, 3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RunOne("Mul", {}, {TestTensor::Bools({1}, {1}), TestTensor::Bools({1}, {1})}, DType::kBool, {1}, &out).code(),
      StatusCode::kUnsupported);
  const Status s = RunOne("Sub", {}, {TestTensor::Empty(DType::kFloat16, {1}), TestTensor::Empty(DType::kFloat16, {1})},
                          DType::kFloat16, {1}, &out);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  // Kernels return bare messages: the caller names the node.
  EXPECT_EQ(s.message(), "unsupported dtype float16 for inputs");
}

TEST(ArithmeticTest, InferOutputShapes) {
  std::vector<Shape> shapes;
  ASSERT_TRUE(
      testing::InferShapes("Add", {},
                           {TestTensor::Empty(DType::kFloat32, {2, 1, 4}), TestTensor::Empty(DType::kFloat32, {3, 1})},
                           {DType::kFloat32}, &shapes)
          .ok());
  EXPECT_EQ(shapes, (std::vector<Shape>{{2, 3, 4}}));
}

}  // namespace
}  // namespace math
}  // namespace loom
