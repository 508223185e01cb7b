// The requantization contract against references written independently here:
// exact 64-bit integer arithmetic for the fixed-point steps (division with an
// explicit remainder, not the masks requantize.h uses) and long double for
// the real-valued result the fixed point approximates.
#include "kernels/common/requantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace loom {
namespace requant {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

// n / d rounded half away from zero, d > 0, exactly.
int64_t DivRoundAway(int64_t n, int64_t d) {
  const int64_t q = n / d, r = n % d;
  if (2 * (r < 0 ? -r : r) >= d) return q + (n < 0 ? -1 : 1);
  return q;
}

// floor(n / d), d > 0.
int64_t FloorDiv(int64_t n, int64_t d) { return n / d - ((n % d != 0 && n < 0) ? 1 : 0); }

// floor(2ab / 2^32 + 1/2): nearest, ties toward +infinity.
int32_t RefHighMul(int32_t a, int32_t b) {
  if (a == kMin && b == kMin) return kMax;
  return static_cast<int32_t>(FloorDiv(static_cast<int64_t>(a) * b + (int64_t{1} << 30), int64_t{1} << 31));
}

int32_t RefDivideByPOT(int32_t x, int e) { return static_cast<int32_t>(DivRoundAway(x, int64_t{1} << e)); }

int32_t RefMultiply(int32_t acc, Multiplier m) {
  int64_t x = static_cast<int64_t>(acc);
  for (int i = 0; i < m.shift; ++i) x = std::max<int64_t>(kMin, std::min<int64_t>(kMax, 2 * x));
  return RefDivideByPOT(RefHighMul(static_cast<int32_t>(x), m.multiplier), m.shift < 0 ? -m.shift : 0);
}

// The real value: round(acc · scale) half away from zero.
int64_t Ideal(int32_t acc, long double scale) { return std::llround(static_cast<long double>(acc) * scale); }

Multiplier Quantize(double scale) {
  Multiplier m;
  const Status s = QuantizeMultiplier(scale, &m);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return m;
}

TEST(RequantizeTest, HighMulRoundsTiesTowardPlusInfinity) {
  // 2ab / 2^32 = 0.5 and -0.5 exactly: gemmlowp's nudge sends both up.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 15, 1 << 15), 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-(1 << 15), 1 << 15), 0);
  // 1.5 -> 2, -1.5 -> -1; off a tie, the nearer value.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(3 << 15, 1 << 15), 2);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-(3 << 15), 1 << 15), -1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-(3 << 15) - 1, 1 << 15), -2);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul((1 << 15) - 1, 1 << 15), 0);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-((1 << 15) - 1), 1 << 15), 0);
}

TEST(RequantizeTest, HighMulSaturatesTheOneOverflow) {
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMax), RefHighMul(kMin, kMax));
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), kMax - 1);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, 1 << 30), -(1 << 29) * 2);
}

TEST(RequantizeTest, HighMulMatchesTheReference) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (int i = 0; i < 200000; ++i) {
    const int32_t a = any(rng), b = any(rng);
    ASSERT_EQ(SaturatingRoundingDoublingHighMul(a, b), RefHighMul(a, b)) << a << " * " << b;
  }
  // Exact ties, which random operands almost never hit: a power of two times anything.
  std::uniform_int_distribution<int32_t> small(-(1 << 16), 1 << 16);
  for (int i = 0; i < 20000; ++i) {
    const int32_t a = small(rng), b = 1 << (rng() % 31);
    ASSERT_EQ(SaturatingRoundingDoublingHighMul(a, b), RefHighMul(a, b)) << a << " * " << b;
  }
}

TEST(RequantizeTest, DivideByPOTRoundsHalfAwayFromZero) {
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);    // 2.5
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);  // -2.5
  EXPECT_EQ(RoundingDivideByPOT(3, 1), 2);    // 1.5
  EXPECT_EQ(RoundingDivideByPOT(-3, 1), -2);
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);    // 1.5
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);    // 1.25
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);
  EXPECT_EQ(RoundingDivideByPOT(7, 0), 7);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(RoundingDivideByPOT(1 << 30, 31), 1);   // 0.5
  EXPECT_EQ(RoundingDivideByPOT(-(1 << 30), 31), -1);
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (int i = 0; i < 100000; ++i) {
    const int32_t x = any(rng);
    const int e = static_cast<int>(rng() % 32);
    ASSERT_EQ(RoundingDivideByPOT(x, e), RefDivideByPOT(x, e)) << x << " / 2^" << e;
  }
}

TEST(RequantizeTest, QuantizeMultiplierNormalises) {
  Multiplier m = Quantize(0.5);
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 0);
  m = Quantize(1.0);
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  m = Quantize(0.75);
  EXPECT_EQ(m.multiplier, 3 << 29);
  EXPECT_EQ(m.shift, 0);
  m = Quantize(std::ldexp(1.0, -20) * 0.75);
  EXPECT_EQ(m.multiplier, 3 << 29);
  EXPECT_EQ(m.shift, -20);
  m = Quantize(1000.0);
  EXPECT_GE(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 10);
  // Every multiplier is in [2^30, 2^31) and within half a unit of the scale.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> exponent(-30, 20);
  for (int i = 0; i < 10000; ++i) {
    const double s = std::pow(2.0, exponent(rng));
    m = Quantize(s);
    ASSERT_GE(m.multiplier, 1 << 30);
    const long double approx = std::ldexp(static_cast<long double>(m.multiplier), m.shift - 31);
    ASSERT_LE(std::fabs(approx - s), std::ldexp(0.5L, m.shift - 31)) << s;
  }
}

TEST(RequantizeTest, ScalesThatRoundUpTo2Pow31AreRenormalised) {
  // fraction = 1 - 2^-40 rounds to 2^31: the multiplier becomes 2^30 and the shift grows by one.
  const Multiplier m = Quantize(1.0 - std::ldexp(1.0, -40));
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  const Multiplier small = Quantize(std::ldexp(1.0 - std::ldexp(1.0, -40), -7));
  EXPECT_EQ(small.multiplier, 1 << 30);
  EXPECT_EQ(small.shift, -6);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1000, m), 1000);
}

TEST(RequantizeTest, TinyScalesGiveMultiplierZero) {
  const Multiplier m = Quantize(1e-12);  // below 2^-32
  EXPECT_EQ(m.multiplier, 0);
  EXPECT_EQ(m.shift, 0);
  OutputStage stage;
  stage.m = m;
  stage.zero_point = -3;
  EXPECT_EQ(Requantize(kMax, stage), -3);
  EXPECT_EQ(Requantize(kMin, stage), -3);
  // 2^-32 itself still has a shift of -31.
  EXPECT_EQ(Quantize(std::ldexp(1.0, -32)).shift, -31);
  EXPECT_EQ(Quantize(std::ldexp(1.0, -32)).multiplier, 1 << 30);
}

TEST(RequantizeTest, RefusesScalesOutsideTheRange) {
  Multiplier m;
  for (double s : {0.0, -1.0, std::nan(""), static_cast<double>(INFINITY), 4294967296.0, 2147483647.9})
    EXPECT_EQ(QuantizeMultiplier(s, &m).code(), StatusCode::kInvalidArgument) << s;
}

TEST(RequantizeTest, MultiplyMatchesTheReferencesForNegativeAndLargeShifts) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> exponent(-31.5, 8);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> moderate(-(1 << 22), 1 << 22);
  for (int i = 0; i < 200000; ++i) {
    const double s = std::pow(2.0, exponent(rng));
    const Multiplier m = Quantize(s);
    const int32_t acc = i % 2 ? any(rng) : moderate(rng);
    const int32_t y = MultiplyByQuantizedMultiplier(acc, m);
    ASSERT_EQ(y, RefMultiply(acc, m)) << acc << " * " << s;
    // Unless acc · 2^shift saturated, the result is within one unit of the real product.
    const long double shifted = static_cast<long double>(acc) * std::ldexp(1.0L, m.shift > 0 ? m.shift : 0);
    if (shifted >= kMin && shifted <= kMax) {
      ASSERT_LE(std::llabs(y - Ideal(acc, s)), 1) << acc << " * " << s;
    }
  }
}

TEST(RequantizeTest, LargeShiftsSaturateBeforeTheMultiply) {
  const Multiplier m = Quantize(std::ldexp(1.0, 20));  // shift 21
  EXPECT_EQ(m.shift, 21);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1 << 12, m), kMax / 2 + 1);  // 2^33 saturates to INT32_MAX, times 0.5
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-(1 << 12), m), kMin / 2);
  OutputStage stage;
  stage.m = m;
  EXPECT_EQ(Requantize(1 << 12, stage), 127);
  EXPECT_EQ(Requantize(-(1 << 12), stage), -128);
}

TEST(RequantizeTest, RequantizeAddsTheZeroPointAndClamps) {
  OutputStage s;
  s.m = Quantize(0.25);
  s.zero_point = 10;
  EXPECT_EQ(Requantize(4, s), 11);
  EXPECT_EQ(Requantize(6, s), 12);   // 1.5 -> 2
  EXPECT_EQ(Requantize(-6, s), 8);   // -1.5 -> -2
  EXPECT_EQ(Requantize(1000, s), 127);
  EXPECT_EQ(Requantize(-1000, s), -128);
  s.range = {0, 255};
  EXPECT_EQ(Requantize(1000, s), 255);
  EXPECT_EQ(Requantize(-1000, s), 0);
}

TEST(RequantizeTest, ActivationRangesCarryReluAndRelu6) {
  const Range none = ActivationRange(true, 0.1f, 5, -INFINITY, INFINITY);
  EXPECT_EQ(none.min, -128);
  EXPECT_EQ(none.max, 127);
  const Range relu = ActivationRange(true, 0.1f, 5, 0.f, INFINITY);
  EXPECT_EQ(relu.min, 5);
  EXPECT_EQ(relu.max, 127);
  const Range relu6 = ActivationRange(true, 0.05f, -20, 0.f, 6.f);
  EXPECT_EQ(relu6.min, -20);
  EXPECT_EQ(relu6.max, 100);  // -20 + 6 / 0.05
  const Range relu6_wide = ActivationRange(true, 0.01f, 0, 0.f, 6.f);
  EXPECT_EQ(relu6_wide.max, 127);  // 600 is outside int8
  const Range u8 = ActivationRange(false, 0.1f, 128, -1.f, 1.f);
  EXPECT_EQ(u8.min, 118);
  EXPECT_EQ(u8.max, 138);
  const Range tie = ActivationRange(true, 0.5f, 0, -1.25f, 1.25f);  // ±2.5 rounds away from zero
  EXPECT_EQ(tie.min, -3);
  EXPECT_EQ(tie.max, 3);
}

// Real value of an int8 / uint8 quantized number.
long double Real(int32_t q, float scale, int32_t zp) { return static_cast<long double>(scale) * (q - zp); }

TEST(RequantizeTest, AddOfDifferentScalesIsWithinOneUnit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> scale(0.001f, 0.2f);
  std::uniform_int_distribution<int32_t> q(-128, 127);
  for (int trial = 0; trial < 300; ++trial) {
    const float sa = scale(rng), sb = scale(rng), so = scale(rng) * 2;
    const int32_t za = q(rng) / 2, zb = q(rng) / 2, zo = q(rng) / 2;
    AddParams p;
    ASSERT_TRUE(MakeAddParams(sa, za, sb, zb, so, zo, Range{}, &p).ok());
    for (int i = 0; i < 200; ++i) {
      const int32_t a = q(rng), b = q(rng);
      const int32_t y = RequantizeAdd(a, b, p);
      const long double ideal = zo + (Real(a, sa, za) + Real(b, sb, zb)) / so;
      const long double clamped = std::min<long double>(127, std::max<long double>(-128, ideal));
      ASSERT_LE(std::fabs(y - clamped), 1.0L) << a << " + " << b;
    }
  }
  // Equal scales and zero points: exact integer addition.
  AddParams same;
  ASSERT_TRUE(MakeAddParams(0.1f, 3, 0.1f, 3, 0.1f, 3, Range{}, &same).ok());
  EXPECT_EQ(RequantizeAdd(10, 20, same), 27);
  EXPECT_EQ(RequantizeAdd(-100, -100, same), -128);
}

TEST(RequantizeTest, RescaleIsExactForEqualScalesAndWithinOneUnitOtherwise) {
  RescaleParams same;
  ASSERT_TRUE(MakeRescaleParams(0.02f, 4, 0.02f, -6, Range{}, &same).ok());
  for (int32_t q = -128; q <= 127; ++q) EXPECT_EQ(Rescale(q, same), std::max(-128, q - 10)) << q;
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> scale(0.001f, 0.5f);
  for (int trial = 0; trial < 300; ++trial) {
    const float si = scale(rng), so = scale(rng);
    RescaleParams p;
    ASSERT_TRUE(MakeRescaleParams(si, 7, so, -2, Range{-128, 127}, &p).ok());
    for (int32_t q = -128; q <= 127; ++q) {
      const long double ideal = -2 + Real(q, si, 7) / so;
      const long double clamped = std::min<long double>(127, std::max<long double>(-128, ideal));
      ASSERT_LE(std::fabs(Rescale(q, p) - clamped), 1.0L) << q << " " << si << " -> " << so;
    }
  }
}

TEST(RequantizeTest, OutputStageScalesByInputTimesWeightOverOutput) {
  OutputStage s;
  ASSERT_TRUE(MakeOutputStage(0.02f, 0.005f, 0.1f, -3, Range{-128, 127}, &s).ok());
  // acc 1000 is 1000 * 0.02 * 0.005 = 0.1 real, one output step.
  EXPECT_EQ(Requantize(1000, s), -2);
  EXPECT_EQ(Requantize(-150000, s), -128);  // clamped
  Multiplier direct;
  ASSERT_TRUE(
      QuantizeMultiplier(static_cast<double>(0.02f) * static_cast<double>(0.005f) / static_cast<double>(0.1f), &direct)
          .ok());
  EXPECT_EQ(s.m.shift, direct.shift);
  EXPECT_EQ(s.m.multiplier, direct.multiplier);
  EXPECT_FALSE(MakeOutputStage(0.02f, 0.f, 0.1f, 0, Range{-128, 127}, &s).ok());
}

}  // namespace
}  // namespace requant
}  // namespace loom
