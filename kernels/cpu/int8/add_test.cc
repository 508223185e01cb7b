#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/act_test_util.h"
#include "kernels/cpu/int8/add_mul_avx2.h"

namespace loom {
namespace int8 {
namespace {

using namespace test;  // NOLINT

constexpr float kInf = std::numeric_limits<float>::infinity();

// y[i] = RequantizeAdd of the broadcast elements, one element at a time.
std::vector<int8_t> NaiveAdd(const TestTensor& a, const TestTensor& b, const Shape& out, float y_scale, int64_t y_zp,
                             float lo, float hi) {
  const requant::Range range = requant::ActivationRange(true, y_scale, static_cast<int32_t>(y_zp), lo, hi);
  requant::AddParams p;
  EXPECT_TRUE(requant::MakeAddParams(a.quant.scale[0], static_cast<int32_t>(a.quant.zero_point[0]), b.quant.scale[0],
                                     static_cast<int32_t>(b.quant.zero_point[0]), y_scale, static_cast<int32_t>(y_zp),
                                     range, &p)
                  .ok());
  const std::vector<int8_t> av = a.As<int8_t>(), bv = b.As<int8_t>();
  std::vector<int8_t> y(static_cast<size_t>(NumElements(out)));
  for (int64_t i = 0; i < NumElements(out); ++i)
    y[i] = static_cast<int8_t>(
        requant::RequantizeAdd(av[BroadcastSource(out, a.shape, i)], bv[BroadcastSource(out, b.shape, i)], p));
  return y;
}

struct BroadcastCase {
  Shape a, b, out;
};

const BroadcastCase kCases[] = {
    {{2, 3, 4, 5}, {2, 3, 4, 5}, {2, 3, 4, 5}},          // same shape
    {{2, 8, 5, 7}, {1, 8, 1, 1}, {2, 8, 5, 7}},          // per-channel B, short runs
    {{1, 8, 1, 1}, {2, 8, 5, 7}, {2, 8, 5, 7}},          // per-channel A
    {{1, 16, 40, 40}, {16, 1, 1}, {1, 16, 40, 40}},      // per-channel B, runs of 1600 (tabulated)
    {{2, 3, 4}, {}, {2, 3, 4}},                          // scalar B
    {{}, {3, 30, 30}, {3, 30, 30}},                      // scalar A, one long run
    {{4, 1, 6}, {5, 1}, {4, 5, 6}},                      // both broadcast
    {{3, 1}, {1, 4}, {3, 4}},                            // outer product
    {{2, 1, 3, 1}, {1, 4, 1, 5}, {2, 4, 3, 5}},          // alternating
    {{7}, {7}, {7}},
    {{}, {}, {}},
    {{0, 3}, {1, 3}, {0, 3}},                            // empty
    {{1, 1, 300, 300}, {1, 1, 300, 300}, {1, 1, 300, 300}},  // large, split across threads
};

TEST(Int8AddTest, BroadcastingMatchesNaive) {
  std::mt19937 gen(1);
  for (const BroadcastCase& c : kCases) {
    for (int params = 0; params < 4; ++params) {
      float sa = RandomScale(&gen), sb = RandomScale(&gen), sy = RandomScale(&gen);
      int64_t za = RandomZeroPoint(&gen), zb = RandomZeroPoint(&gen), zy = RandomZeroPoint(&gen);
      if (params == 0) sb = sy = sa, zb = zy = za;  // all equal
      if (params == 1) sb = sa, zb = za;            // equal inputs, different output
      if (params == 2) sy = 2 * std::max(sa, sb);   // output of twice the larger scale
      const TestTensor a = RandomQ(c.a, sa, za, &gen), b = RandomQ(c.b, sb, zb, &gen);
      for (int threads : {1, 3}) {
        std::vector<int8_t> y;
        ASSERT_TRUE(RunInt8("Add", {}, {a, b}, c.out, sy, zy, &y, 17, threads).ok());
        EXPECT_EQ(y, NaiveAdd(a, b, c.out, sy, zy, -kInf, kInf))
            << ShapeToString(c.a) << " + " << ShapeToString(c.b) << " params " << params << " threads " << threads;
      }
    }
  }
}

TEST(Int8AddTest, ExtremeScaleRatios) {
  std::mt19937 gen(2);
  const float scales[][3] = {{1.f, 1e-3f, 0.5f}, {1e-3f, 1.f, 1e-3f}, {0.05f, 0.05f, 1e-4f}, {0.1f, 0.1f, 10.f}};
  for (const auto& s : scales) {
    const TestTensor a = RandomQ({2, 4, 33}, s[0], 3, &gen), b = RandomQ({4, 1}, s[1], -7, &gen);
    std::vector<int8_t> y;
    ASSERT_TRUE(RunInt8("Add", {}, {a, b}, {2, 4, 33}, s[2], -2, &y).ok());
    EXPECT_EQ(y, NaiveAdd(a, b, {2, 4, 33}, s[2], -2, -kInf, kInf));
  }
}

TEST(Int8AddTest, FusedReluAndClipNarrowTheRange) {
  std::mt19937 gen(3);
  struct Act {
    const char* name;
    float lo, hi;
    bool has_lo, has_hi;
  };
  const Act acts[] = {{"Relu", 0.f, kInf, false, false},
                      {"Clip", 0.f, 6.f, true, true},
                      {"Clip", -0.5f, 0.75f, true, true},
                      {"Clip", -kInf, 0.3f, false, true},
                      {"Clip", -0.2f, kInf, true, false}};
  for (const Act& act : acts) {
    Attributes attrs;
    attrs.SetString("loom.activation", act.name);
    if (act.has_lo) attrs.SetFloat("loom.activation_min", act.lo);
    if (act.has_hi) attrs.SetFloat("loom.activation_max", act.hi);
    for (const BroadcastCase& c : {kCases[0], kCases[1], kCases[3], kCases[5]}) {
      const TestTensor a = RandomQ(c.a, 0.03f, 5, &gen), b = RandomQ(c.b, 0.02f, -20, &gen);
      std::vector<int8_t> y;
      ASSERT_TRUE(RunInt8("Add", attrs, {a, b}, c.out, 0.04f, -10, &y).ok());
      const std::vector<int8_t> expected = NaiveAdd(a, b, c.out, 0.04f, -10, act.lo, act.hi);
      EXPECT_EQ(y, expected) << act.name << " " << act.lo << " " << act.hi;
      if (act.lo == 0.f) {
        for (int8_t v : y) ASSERT_GE(v, -10);  // Relu: nothing below the zero point
      }
    }
  }
}

// The vector path's decomposition of an input term (add_mul_avx2.h) against
// ScaleAddInput, for every input value and zero point, on multipliers of
// ratios over (0, 0.5] (the ratios MakeAddParams makes) and the edges.
TEST(Int8AddTest, AddTermMatchesScaleAddInputExhaustively) {
  std::mt19937 gen(5);
  std::vector<double> ratios = {0.5, 0.25, 0.4999999, 0.2500001, 1e-3, 1e-6, 1e-9, 1e-12};
  std::uniform_real_distribution<double> log_ratio(-20.0, std::log2(0.5));
  for (int i = 0; i < 40; ++i) ratios.push_back(std::exp2(log_ratio(gen)));
  for (double ratio : ratios) {
    requant::Multiplier m;
    ASSERT_TRUE(requant::QuantizeMultiplier(ratio, &m).ok());
    for (int32_t zp = -128; zp <= 127; ++zp) {
      internal::AddTerm term;
      ASSERT_TRUE(internal::MakeAddTerm(zp, m, &term)) << ratio;
      for (int32_t q = -128; q <= 127; ++q)
        ASSERT_EQ(internal::EvalAddTerm(q, term), requant::ScaleAddInput(q, zp, m))
            << "ratio " << ratio << " zero point " << zp << " q " << q;
    }
  }
  internal::AddTerm term;
  EXPECT_FALSE(internal::MakeAddTerm(0, requant::Multiplier{1 << 30, 1}, &term));  // shifts left: not covered
}

// Same-shape operands (the residual Add) of lengths around the vector steps,
// with extreme values and zero points, scales of every ratio and fused
// activations, on every path this CPU has.
TEST(Int8AddTest, SameShapeMatchesNaiveOnEveryPath) {
  struct Params {
    float sa, sb, sy;
    int64_t za, zb, zy;
  };
  const Params fixed[] = {
      {0.05f, 0.05f, 0.05f, 0, 0, 0},          // equal scales: both terms plain shifts
      {0.05f, 0.02f, 0.07f, -128, 127, -128},  // extreme zero points
      {1e-3f, 1.f, 0.5f, 127, -128, 127},      // the smaller input far below
      {0.1f, 0.1f, 1e-7f, 3, -3, 0},           // output stage shifting left: not the vector path
      {0.02f, 0.03f, 10.f, -7, 9, 100},        // everything rounds to the zero point
  };
  const int64_t lengths[] = {1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, 999, 8191, 8197};
  ForEachInt8Path([&](const char* path) {
    std::mt19937 gen(4);
    for (int64_t n : lengths) {
      for (int trial = 0; trial < 8; ++trial) {
        Params p = {RandomScale(&gen),     RandomScale(&gen),     RandomScale(&gen),
                    RandomZeroPoint(&gen), RandomZeroPoint(&gen), RandomZeroPoint(&gen)};
        if (trial < 5) p = fixed[trial];
        const Shape shape = trial % 2 ? Shape{n} : Shape{1, 1, 1, n};
        Attributes attrs;
        float lo = -kInf, hi = kInf;
        if (trial % 3 == 1) {
          attrs.SetString("loom.activation", "Relu");
          lo = 0.f;
        } else if (trial % 3 == 2) {
          lo = -20.f * p.sy, hi = 30.f * p.sy;
          attrs.SetString("loom.activation", "Clip");
          attrs.SetFloat("loom.activation_min", lo);
          attrs.SetFloat("loom.activation_max", hi);
        }
        const TestTensor a = RandomQWithExtremes(shape, p.sa, p.za, &gen);
        const TestTensor b = RandomQWithExtremes(shape, p.sb, p.zb, &gen);
        for (int threads : {1, 2}) {
          std::vector<int8_t> y;
          ASSERT_TRUE(RunInt8("Add", attrs, {a, b}, shape, p.sy, p.zy, &y, 17, threads).ok());
          ASSERT_EQ(y, NaiveAdd(a, b, shape, p.sy, p.zy, lo, hi))
              << path << " n " << n << " trial " << trial << " threads " << threads;
        }
      }
    }
  });
}

TEST(Int8AddTest, RefusesWhatIsNotPerTensorInt8) {
  const TestTensor a = Q({2, 3}, std::vector<int8_t>(6, 1), 0.1f, 0);
  const TestTensor b = Q({2, 3}, std::vector<int8_t>(6, 2), 0.1f, 0);
  std::vector<int8_t> y;
  // float inputs
  std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, {2, 3})};
  const TestTensor fa = TestTensor::Of<float>({2, 3}, std::vector<float>(6, 1.f));
  EXPECT_EQ(RunKernel("Add", {}, {fa, fa}, &fouts, Int8Kernel("Add")).code(), StatusCode::kUnsupported);
  // the float kernel still takes the float node
  ASSERT_TRUE(RunKernel("Add", {}, {fa, fa}, &fouts).ok());
  EXPECT_EQ(fouts[0].As<float>(), std::vector<float>(6, 2.f));
  // per-channel activation parameters
  const TestTensor per_channel = a.WithQuant({0.1f, 0.2f}, {0, 0}, 0);
  EXPECT_EQ(RunInt8("Add", {}, {per_channel, b}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt8, {2, 3}).WithQuant({0.1f, 0.1f}, {0, 0})};
  EXPECT_EQ(RunKernel("Add", {}, {a, b}, &outs, Int8Kernel("Add")).code(), StatusCode::kUnsupported);
  // int8 without parameters, and bad parameters
  const TestTensor raw = TestTensor::Of<int8_t>({2, 3}, std::vector<int8_t>(6, 1));
  EXPECT_EQ(RunInt8("Add", {}, {raw, b}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunInt8("Add", {}, {a.WithQuant({0.f}, {0}), b}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunInt8("Add", {}, {a.WithQuant({0.1f}, {200}), b}, {2, 3}, 0.1f, 0, &y).code(),
            StatusCode::kUnsupported);
  // uint8 activations
  const TestTensor u = TestTensor::Of<uint8_t>({2, 3}, std::vector<uint8_t>(6, 1)).WithQuant({0.1f}, {0});
  EXPECT_EQ(RunInt8("Add", {}, {u, b}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
  // a fused activation other than Relu/Clip
  Attributes sigmoid;
  sigmoid.SetString("loom.activation", "Sigmoid");
  EXPECT_EQ(RunInt8("Add", sigmoid, {a, b}, {2, 3}, 0.1f, 0, &y).code(), StatusCode::kUnsupported);
  // shapes that do not broadcast are invalid
  const TestTensor c = Q({4}, std::vector<int8_t>(4, 1), 0.1f, 0);
  EXPECT_EQ(RunInt8("Add", {}, {a, c}, {2, 4}, 0.1f, 0, &y).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace int8
}  // namespace loom
