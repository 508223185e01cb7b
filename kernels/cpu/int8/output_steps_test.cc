// The lookup tables of output_steps.h against requantize.h's Requantize, the
// function they are built from: at every interval end and its neighbours, at
// the int32 extremes and at random accumulators, for stages of every kind
// (scales far below and above 1, a zero multiplier, clamped ranges, extreme
// zero points); then the vector path (RequantizeRow) against the scalar one.
#include "kernels/cpu/int8/output_steps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

std::vector<requant::OutputStage> Stages() {
  std::vector<requant::OutputStage> stages;
  auto add = [&](double scale, int32_t zp, requant::Range range) {
    requant::OutputStage s;
    EXPECT_TRUE(requant::MakeOutputStage(1.f, static_cast<float>(scale), 1.f, zp, range, &s).ok()) << scale;
    stages.push_back(s);
  };
  const requant::Range full;
  requant::Range relu;
  relu.min = 5;
  requant::Range narrow;
  narrow.min = -3;
  narrow.max = 4;
  for (double scale : {1e-9, 3.1e-6, 0.000123, 0.0071, 0.25, 0.5, 0.999, 1.0, 1.5, 3.7, 77.0, 4096.5, 1e6})
    for (int32_t zp : {-128, -5, 0, 127}) add(scale, zp, full);
  add(0.01, 5, relu);
  add(3.0, 0, relu);
  add(0.02, 0, narrow);
  add(1e-12, 17, full);  // too small for any shift: multiplier 0, a constant
  return stages;
}

TEST(OutputStepsTest, LookupIsRequantize) {
  const std::vector<requant::OutputStage> stages = Stages();
  OutputSteps steps;
  steps.Build(stages);
  std::mt19937 gen(1);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (size_t c = 0; c < stages.size(); ++c) {
    SCOPED_TRACE(::testing::Message() << "stage " << c << ": multiplier " << stages[c].m.multiplier << " shift "
                                      << stages[c].m.shift << " zero point " << stages[c].zero_point);
    const int64_t ch = static_cast<int64_t>(c);
    auto check = [&](int64_t acc) {
      if (acc < kMin || acc > kMax) return;
      const int32_t a = static_cast<int32_t>(acc);
      ASSERT_EQ(steps.Lookup(ch, a), requant::Requantize(a, stages[c])) << "acc " << a;
    };
    check(kMin);
    check(kMax);
    for (int i = 0; i <= steps.top()[c]; ++i) {
      const int64_t end = steps.bounds()[ch * OutputSteps::kStride + 1 + i];
      for (int64_t d = -2; d <= 2; ++d) check(end + d);
    }
    for (int i = 0; i < 20000; ++i) check(any(gen));
    for (int64_t acc = -3000; acc <= 3000; ++acc) check(acc);
  }
}

TEST(OutputStepsTest, VectorPathMatchesScalar) {
  const std::vector<requant::OutputStage> stages = Stages();
  OutputSteps steps;
  steps.Build(stages);
  std::mt19937 gen(2);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> near(-100000, 100000);
  for (int64_t n : {1, 7, 8, 9, 33}) {
    std::vector<int32_t> acc(static_cast<size_t>(n));
    for (size_t i = 0; i < acc.size(); ++i) acc[i] = i % 3 == 0 ? any(gen) : near(gen);
    acc[0] = kMax;
    for (size_t c = 0; c < stages.size(); ++c) {
      const int32_t bias = near(gen);
      std::vector<int8_t> want(acc.size());
      for (size_t i = 0; i < acc.size(); ++i)
        want[i] = static_cast<int8_t>(requant::Requantize(linear_test::Wrap(int64_t{acc[i]} + bias), stages[c]));
      linear_test::ForEachGemmImpl([&] {
        std::vector<int8_t> got(acc.size());
        RequantizeRow(steps, static_cast<int64_t>(c), acc.data(), bias, n, got.data());
        EXPECT_EQ(got, want) << "stage " << c << " n=" << n;
      });
    }
  }
}

// Stages straight in fixed-point form, one for every shift in [-31, 31] with
// random multipliers (and 0, and 2^30, whose products land on the rounding
// ties), zero points and clamps: the vector paths (the AVX2 and AVX-512 ones
// evaluate this arithmetic themselves, with the saturating left shift and
// 64-bit rounding) at the int32 extremes, around the saturation thresholds of
// the left shift, around every interval end, at the ties of both roundings
// and at random accumulators, against Requantize.
TEST(OutputStepsTest, VectorPathAtEveryShift) {
  std::mt19937 gen(5);
  std::uniform_int_distribution<int32_t> multiplier(1 << 30, kMax);
  std::uniform_int_distribution<int32_t> zero_point(-128, 127);
  std::vector<requant::OutputStage> stages;
  for (int32_t shift = -31; shift <= 31; ++shift) {
    for (int variant = 0; variant < 4; ++variant) {
      requant::OutputStage s;
      s.m.multiplier = variant == 3                     ? 1 << 30
                       : variant == 2 && shift % 8 == 0 ? 0
                       : variant == 1                   ? kMax
                                                        : multiplier(gen);
      s.m.shift = shift;
      s.zero_point = zero_point(gen);
      if (variant == 1) s.range.min = -20;
      if (variant == 2) s.range.max = 100;
      stages.push_back(s);
    }
  }
  OutputSteps steps;
  steps.Build(stages);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (size_t c = 0; c < stages.size(); ++c) {
    const requant::OutputStage& s = stages[c];
    std::vector<int32_t> acc = {kMin, kMin + 1, kMax, kMax - 1, -1, 0, 1};
    const int left = s.m.shift > 0 ? s.m.shift : 0;
    for (int32_t edge : {kMax >> left, kMin >> left})
      for (int64_t d = -2; d <= 2; ++d)
        if (edge + d >= kMin && edge + d <= kMax) acc.push_back(static_cast<int32_t>(edge + d));
    for (int i = 0; i <= steps.top()[c]; ++i) {
      const int64_t end = steps.bounds()[static_cast<int64_t>(c) * OutputSteps::kStride + 1 + i];
      for (int64_t d = -1; d <= 1; ++d)
        if (end + d >= kMin && end + d <= kMax) acc.push_back(static_cast<int32_t>(end + d));
    }
    // With multiplier 2^30 the high multiply is floor((x + 1) / 2) (odd x are
    // its ties), so the right shift's ties, high = (2q + 1) · 2^(right - 1),
    // lie next to x = (2q + 1) · 2^right.
    const int right = s.m.shift > 0 ? 0 : -s.m.shift;
    for (int64_t q = -3; q <= 3; ++q)
      for (int64_t d = -3; d <= 3; ++d) {
        const int64_t tie = (2 * q + 1) * (int64_t{1} << right) + d;
        if (tie >= kMin && tie <= kMax) acc.push_back(static_cast<int32_t>(tie));
      }
    for (int i = 0; i < 200; ++i) acc.push_back(any(gen));
    std::vector<int8_t> want(acc.size());
    for (size_t i = 0; i < acc.size(); ++i) want[i] = static_cast<int8_t>(requant::Requantize(acc[i], s));
    linear_test::ForEachGemmImpl([&] {
      std::vector<int8_t> got(acc.size());
      RequantizeRow(steps, static_cast<int64_t>(c), acc.data(), 0, static_cast<int64_t>(acc.size()), got.data());
      EXPECT_EQ(got, want) << "multiplier " << s.m.multiplier << " shift " << s.m.shift;
    });
  }
}

}  // namespace
}  // namespace int8
}  // namespace loom
