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

// y[i] = y_zp + Requantize((a − a_zp)(b − b_zp)) at scale a_scale · b_scale / y_scale.
std::vector<int8_t> NaiveMul(const TestTensor& a, const TestTensor& b, const Shape& out, float y_scale, int64_t y_zp,
                             float lo = -kInf, float hi = kInf) {
  requant::OutputStage stage;
  EXPECT_TRUE(requant::MakeOutputStage(a.quant.scale[0], b.quant.scale[0], y_scale, static_cast<int32_t>(y_zp),
                                       requant::ActivationRange(true, y_scale, static_cast<int32_t>(y_zp), lo, hi),
                                       &stage)
                  .ok());
  const int32_t za = static_cast<int32_t>(a.quant.zero_point[0]), zb = static_cast<int32_t>(b.quant.zero_point[0]);
  const std::vector<int8_t> av = a.As<int8_t>(), bv = b.As<int8_t>();
  std::vector<int8_t> y(static_cast<size_t>(NumElements(out)));
  for (int64_t i = 0; i < NumElements(out); ++i) {
    const int32_t qa = av[BroadcastSource(out, a.shape, i)], qb = bv[BroadcastSource(out, b.shape, i)];
    y[i] = static_cast<int8_t>(requant::Requantize((qa - za) * (qb - zb), stage));
  }
  return y;
}

struct BroadcastCase {
  Shape a, b, out;
};

const BroadcastCase kCases[] = {
    {{2, 3, 4, 5}, {2, 3, 4, 5}, {2, 3, 4, 5}},
    {{2, 8, 5, 7}, {1, 8, 1, 1}, {2, 8, 5, 7}},
    {{1, 8, 1, 1}, {2, 8, 5, 7}, {2, 8, 5, 7}},
    {{1, 16, 40, 40}, {16, 1, 1}, {1, 16, 40, 40}},
    {{2, 3, 4}, {}, {2, 3, 4}},
    {{}, {3, 30, 30}, {3, 30, 30}},
    {{4, 1, 6}, {5, 1}, {4, 5, 6}},
    {{3, 1}, {1, 4}, {3, 4}},
    {{7}, {7}, {7}},
    {{0, 3}, {1, 3}, {0, 3}},
    {{1, 1, 300, 300}, {1, 1, 300, 300}, {1, 1, 300, 300}},
};

TEST(Int8MulTest, BroadcastingMatchesNaive) {
  std::mt19937 gen(11);
  for (const BroadcastCase& c : kCases) {
    for (int params = 0; params < 3; ++params) {
      float sa = RandomScale(&gen), sb = RandomScale(&gen), sy = RandomScale(&gen);
      int64_t za = RandomZeroPoint(&gen), zb = RandomZeroPoint(&gen), zy = RandomZeroPoint(&gen);
      if (params == 0) sb = sy = sa, zb = zy = za;
      if (params == 1) sy = sa * sb * 64.f;  // the product's range spread over int8
      const TestTensor a = RandomQ(c.a, sa, za, &gen), b = RandomQ(c.b, sb, zb, &gen);
      for (int threads : {1, 3}) {
        std::vector<int8_t> y;
        ASSERT_TRUE(RunInt8("Mul", {}, {a, b}, c.out, sy, zy, &y, 17, threads).ok());
        EXPECT_EQ(y, NaiveMul(a, b, c.out, sy, zy))
            << ShapeToString(c.a) << " * " << ShapeToString(c.b) << " params " << params << " threads " << threads;
      }
    }
  }
}

TEST(Int8MulTest, ConstantOperand) {
  std::mt19937 gen(12);
  const TestTensor x = RandomQ({1, 4, 25, 25}, 0.05f, -3, &gen);
  // A constant per-channel multiplier and a constant scalar (int8 initializers).
  const TestTensor per_channel = Q({1, 4, 1, 1}, {-100, -1, 64, 127}, 0.01f, 0, true);
  const TestTensor scalar = Q({}, {50}, 0.02f, 10, true);
  for (const TestTensor& k : {per_channel, scalar}) {
    std::vector<int8_t> y;
    ASSERT_TRUE(RunInt8("Mul", {}, {x, k}, x.shape, 0.04f, 1, &y).ok());
    EXPECT_EQ(y, NaiveMul(x, k, x.shape, 0.04f, 1));
    ASSERT_TRUE(RunInt8("Mul", {}, {k, x}, x.shape, 0.04f, 1, &y).ok());
    EXPECT_EQ(y, NaiveMul(k, x, x.shape, 0.04f, 1));
  }
}

TEST(Int8MulTest, FusedRelu) {
  std::mt19937 gen(13);
  Attributes relu;
  relu.SetString("loom.activation", "Relu");
  const TestTensor a = RandomQ({2, 3, 40}, 0.1f, 0, &gen), b = RandomQ({3, 1}, 0.1f, 4, &gen);
  std::vector<int8_t> y;
  ASSERT_TRUE(RunInt8("Mul", relu, {a, b}, {2, 3, 40}, 0.5f, -20, &y).ok());
  EXPECT_EQ(y, NaiveMul(a, b, {2, 3, 40}, 0.5f, -20, 0.f, kInf));
}

// Same-shape operands of lengths around the vector steps, with extreme values
// and zero points, output scales that shift left and right, and fused
// activations, on every path this CPU has.
TEST(Int8MulTest, SameShapeMatchesNaiveOnEveryPath) {
  const int64_t lengths[] = {1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, 999, 8191, 8197};
  ForEachInt8Path([&](const char* path) {
    std::mt19937 gen(14);
    for (int64_t n : lengths) {
      for (int trial = 0; trial < 6; ++trial) {
        float sa = RandomScale(&gen), sb = RandomScale(&gen), sy = RandomScale(&gen);
        int64_t za = RandomZeroPoint(&gen), zb = RandomZeroPoint(&gen), zy = RandomZeroPoint(&gen);
        if (trial == 0) za = -128, zb = 127, zy = -128;
        if (trial == 1) sy = sa * sb * 64.f;    // the product's range spread over int8
        if (trial == 2) sy = sa * sb / 1000.f;  // a stage shifting left, saturating
        if (trial == 3) sy = sa * sb * 1e6f;    // everything rounds to the zero point
        Attributes attrs;
        float lo = -kInf, hi = kInf;
        if (trial == 4) {
          attrs.SetString("loom.activation", "Relu");
          lo = 0.f;
        } else if (trial == 5) {
          lo = -10.f * sy, hi = 50.f * sy;
          attrs.SetString("loom.activation", "Clip");
          attrs.SetFloat("loom.activation_min", lo);
          attrs.SetFloat("loom.activation_max", hi);
        }
        const TestTensor a = RandomQWithExtremes({n}, sa, za, &gen), b = RandomQWithExtremes({n}, sb, zb, &gen);
        for (int threads : {1, 2}) {
          std::vector<int8_t> y;
          ASSERT_TRUE(RunInt8("Mul", attrs, {a, b}, {n}, sy, zy, &y, 17, threads).ok());
          ASSERT_EQ(y, NaiveMul(a, b, {n}, sy, zy, lo, hi))
              << path << " n " << n << " trial " << trial << " threads " << threads;
        }
      }
    }
  });
}

TEST(Int8MulTest, RefusesWhatIsNotPerTensorInt8) {
  const TestTensor a = Q({2, 3}, std::vector<int8_t>(6, 1), 0.1f, 0);
  std::vector<int8_t> y;
  std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, {2, 3})};
  const TestTensor fa = TestTensor::Of<float>({2, 3}, std::vector<float>(6, 3.f));
  EXPECT_EQ(RunKernel("Mul", {}, {fa, fa}, &fouts, Int8Kernel("Mul")).code(), StatusCode::kUnsupported);
  ASSERT_TRUE(RunKernel("Mul", {}, {fa, fa}, &fouts).ok());
  EXPECT_EQ(fouts[0].As<float>(), std::vector<float>(6, 9.f));
  // A per-channel constant operand is not supported either.
  const TestTensor k = Q({1, 3}, {1, 2, 3}, 0.1f, 0, true).WithQuant({0.1f, 0.2f, 0.3f}, {0, 0, 0}, 1);
  EXPECT_EQ(RunInt8("Mul", {}, {a, k}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
  // A float operand (a float constant) is not an int8 Mul.
  const TestTensor fk = TestTensor::Const<float>({1, 3}, {1.f, 2.f, 3.f});
  EXPECT_EQ(RunInt8("Mul", {}, {a, fk}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace int8
}  // namespace loom
