#include "builder/quantize/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace loom {
namespace quantize {
namespace {

std::vector<float> Gaussian(size_t n, float sigma, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, sigma);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<float> Uniform(size_t n, float lo, float hi, unsigned seed = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

RangeCollector Collect(const std::vector<float>& v) {
  RangeCollector c;
  c.Add(v.data(), v.size());
  return c;
}

// The same samples in `batches` batches of increasing max|x|.
RangeCollector CollectIncreasing(std::vector<float> v, size_t batches) {
  std::sort(v.begin(), v.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });
  RangeCollector c;
  const size_t step = (v.size() + batches - 1) / batches;
  for (size_t start = 0; start < v.size(); start += step) c.Add(v.data() + start, std::min(step, v.size() - start));
  return c;
}

float MaxAbs(const std::vector<float>& v) {
  float m = 0.f;
  for (float x : v) m = std::max(m, std::fabs(x));
  return m;
}

TEST(CalibrationTest, MinMaxIsExactAndContainsZero) {
  RangeCollector c;
  const std::vector<float> a = {-1.5f, 3.25f, 0.5f}, b = {2.f, -0.25f};
  c.Add(a.data(), a.size());
  c.Add(b.data(), b.size());
  ActivationRange r;
  ASSERT_TRUE(c.MinMaxRange(&r).ok());
  EXPECT_EQ(r.lo, -1.5f);
  EXPECT_EQ(r.hi, 3.25f);

  ASSERT_TRUE(Collect({1.f, 2.f}).MinMaxRange(&r).ok());
  EXPECT_EQ(r.lo, 0.f);
  EXPECT_EQ(r.hi, 2.f);
  ASSERT_TRUE(Collect({-3.f, -1.f}).MinMaxRange(&r).ok());
  EXPECT_EQ(r.lo, -3.f);
  EXPECT_EQ(r.hi, 0.f);
}

TEST(CalibrationTest, PercentileOnUniformData) {
  const std::vector<float> v = Uniform(200000, -1.f, 1.f);
  const RangeCollector c = Collect(v);
  const double bin = c.histogram_range() / RangeCollector::kNumBins;
  ActivationRange r;
  ASSERT_TRUE(c.PercentileRange(99.0, &r).ok());
  EXPECT_NEAR(r.hi, 0.99, 2 * bin + 0.005);
  EXPECT_FLOAT_EQ(r.lo, -r.hi);
  ASSERT_TRUE(c.PercentileRange(99.99, &r).ok());
  EXPECT_GT(r.hi, 0.99f);
  EXPECT_LE(r.hi, MaxAbs(v));
  ASSERT_TRUE(c.PercentileRange(100.0, &r).ok());
  ActivationRange mm;
  ASSERT_TRUE(c.MinMaxRange(&mm).ok());
  EXPECT_EQ(r.hi, mm.hi);
  EXPECT_EQ(r.lo, mm.lo);
}

TEST(CalibrationTest, PercentileExcludesFewHugeOutliers) {
  std::vector<float> v = Uniform(100000, 0.f, 1.f);
  for (int k = 0; k < 5; ++k) v.push_back(1000.f);
  v.push_back(-1000.f);
  const RangeCollector c = Collect(v);
  ActivationRange p, mm;
  ASSERT_TRUE(c.PercentileRange(99.99, &p).ok());
  ASSERT_TRUE(c.MinMaxRange(&mm).ok());
  EXPECT_EQ(mm.lo, -1000.f);
  EXPECT_EQ(mm.hi, 1000.f);
  // One histogram bin is 1000 / 2048 wide: the threshold lands within a few
  // bins of 1.
  EXPECT_GT(p.hi, 0.9f);
  EXPECT_LT(p.hi, 2.f);
  EXPECT_EQ(p.lo, -p.hi);  // symmetric threshold, the -1000 sample included
}

TEST(CalibrationTest, EntropyOnGaussianClipsOnlyTheTail) {
  // Pure Gaussian: with 2048 bins the divergence keeps falling until the sparse
  // tail, so the threshold lies between 3 sigma and the max.
  std::vector<float> v = Gaussian(200000, 1.f);
  const float max_abs = MaxAbs(v);
  ActivationRange r;
  ASSERT_TRUE(Collect(v).EntropyRange(&r).ok());
  EXPECT_GT(r.hi, 3.f);
  EXPECT_LE(r.hi, max_abs);
  // A few samples at 30 sigma stretch the histogram; minmax follows them, the
  // entropy threshold stays near the Gaussian's own extent.
  for (int k = 0; k < 4; ++k) v.push_back(k % 2 ? 30.f : -30.f);
  const RangeCollector c = Collect(v);
  ActivationRange mm;
  ASSERT_TRUE(c.EntropyRange(&r).ok());
  ASSERT_TRUE(c.MinMaxRange(&mm).ok());
  EXPECT_EQ(mm.hi, 30.f);
  EXPECT_GT(r.hi, 2.f);
  EXPECT_LT(r.hi, 6.f);
  EXPECT_FLOAT_EQ(r.lo, -r.hi);
}

TEST(CalibrationTest, EntropyOnReluDataStartsAtZero) {
  // Half the samples are exactly 0; the zero bin must not drive the threshold.
  std::vector<float> v = Gaussian(200000, 1.f);
  for (float& x : v) x = std::max(x, 0.f);
  ActivationRange r;
  ASSERT_TRUE(Collect(v).EntropyRange(&r).ok());
  EXPECT_EQ(r.lo, 0.f);
  EXPECT_GT(r.hi, 3.f);
  EXPECT_LE(r.hi, MaxAbs(v));
}

TEST(CalibrationTest, EntropyOnUniformIsCloseToTheMax) {
  const std::vector<float> v = Uniform(200000, 0.f, 1.f);
  ActivationRange r;
  ASSERT_TRUE(Collect(v).EntropyRange(&r).ok());
  EXPECT_EQ(r.lo, 0.f);
  EXPECT_GT(r.hi, 0.97f);
  EXPECT_LE(r.hi, MaxAbs(v));
}

TEST(CalibrationTest, EntropyOnFewSamplesDoesNotClipTheData) {
  // 1024 Gaussian samples (a squeeze-excitation tensor over 32 inputs): on
  // 2048 bins most of P is empty and the divergence would pick a threshold
  // near 128 bins, clipping most of the data. The merged histogram has 128
  // bins, so the threshold is the max.
  const std::vector<float> v = Gaussian(1024, 1.f);
  ActivationRange r, mm;
  const RangeCollector c = Collect(v);
  ASSERT_TRUE(c.EntropyRange(&r).ok());
  ASSERT_TRUE(c.MinMaxRange(&mm).ok());
  EXPECT_FLOAT_EQ(std::max(-r.lo, r.hi), std::max(-mm.lo, mm.hi));
  // With 16 samples per bin of the full histogram, nothing is merged and the
  // tail is clipped as before.
  const std::vector<float> w = Gaussian(16 * RangeCollector::kNumBins, 1.f);
  ASSERT_TRUE(Collect(w).EntropyRange(&r).ok());
  EXPECT_LT(r.hi, MaxAbs(w));
  EXPECT_GT(r.hi, 2.5f);
}

TEST(CalibrationTest, WideningMergesBinsPairwise) {
  RangeCollector c;
  const std::vector<float> a = {0.f, 1.f}, b = {3.f};
  c.Add(a.data(), a.size());
  EXPECT_EQ(c.histogram_range(), 1.0);
  EXPECT_EQ(c.histogram()[0], 1u);
  EXPECT_EQ(c.histogram()[RangeCollector::kNumBins - 1], 1u);
  c.Add(b.data(), b.size());
  EXPECT_EQ(c.histogram_range(), 4.0);  // 1 -> 2 -> 4
  const std::vector<uint64_t>& h = c.histogram();
  EXPECT_EQ(std::accumulate(h.begin(), h.end(), uint64_t{0}), 3u);
  EXPECT_EQ(h[0], 1u);
  EXPECT_EQ(h[RangeCollector::kNumBins / 4 - 1], 1u);    // old last bin, merged twice
  EXPECT_EQ(h[3 * RangeCollector::kNumBins / 4], 1u);    // 3.0 at 3/4 of the range
}

TEST(CalibrationTest, BatchOrderBarelyMatters) {
  const std::vector<float> v = Gaussian(100000, 1.f, 7);
  const float max_abs = MaxAbs(v);
  const RangeCollector one = Collect(v), many = CollectIncreasing(v, 16);
  EXPECT_GT(many.histogram_range(), one.histogram_range());  // widening happened
  EXPECT_EQ(many.finite_count(), one.finite_count());
  const double bin = many.histogram_range() / RangeCollector::kNumBins;

  ActivationRange a, b;
  ASSERT_TRUE(one.MinMaxRange(&a).ok());
  ASSERT_TRUE(many.MinMaxRange(&b).ok());
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);

  ASSERT_TRUE(one.PercentileRange(99.9, &a).ok());
  ASSERT_TRUE(many.PercentileRange(99.9, &b).ok());
  EXPECT_NEAR(a.hi, b.hi, 2 * bin);

  ASSERT_TRUE(one.EntropyRange(&a).ok());
  ASSERT_TRUE(many.EntropyRange(&b).ok());
  EXPECT_NEAR(a.hi, b.hi, 0.05 * max_abs);
}

TEST(CalibrationTest, NonFiniteSamplesAreRefused) {
  RangeCollector c;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v = {1.f, std::numeric_limits<float>::quiet_NaN(), inf, -inf, -2.f};
  c.Add(v.data(), v.size());
  EXPECT_EQ(c.finite_count(), 2u);
  EXPECT_EQ(c.min(), -2.f);
  EXPECT_EQ(c.max(), 1.f);
  ActivationRange r;
  for (const CalibrationMethod m :
       {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile, CalibrationMethod::kEntropy}) {
    CalibrationOptions options;
    options.method = m;
    const Status s = c.Range(options, &r).WithContext("conv1_out");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(),
              "conv1_out: 3 non-finite calibration samples (1 NaN, 2 Inf) among 5, expected only finite values");
  }
}

TEST(CalibrationTest, AllZeroDataGivesDegenerateRange) {
  RangeCollector c;
  const std::vector<float> zeros(1000, 0.f);
  c.Add(zeros.data(), zeros.size());
  c.Add(zeros.data(), zeros.size());
  EXPECT_EQ(c.histogram_range(), 0.0);
  for (const CalibrationMethod m :
       {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile, CalibrationMethod::kEntropy}) {
    CalibrationOptions options;
    options.method = m;
    ActivationRange r{-1.f, 1.f};
    ASSERT_TRUE(c.Range(options, &r).ok());
    EXPECT_EQ(r.lo, 0.f);
    EXPECT_EQ(r.hi, 0.f);
    EXPECT_TRUE(r.degenerate());
  }
  // Zeros seen before the first nonzero sample stay in bin 0.
  const std::vector<float> one = {1.f};
  c.Add(one.data(), one.size());
  EXPECT_EQ(c.histogram()[0], 2000u);
  ActivationRange r;
  ASSERT_TRUE(c.PercentileRange(99.0, &r).ok());
  EXPECT_FALSE(r.degenerate());
  EXPECT_GT(r.hi, 0.f);
}

TEST(CalibrationTest, EmptyCollectorAndBadPercentileAreRefused) {
  RangeCollector c;
  ActivationRange r;
  EXPECT_EQ(c.MinMaxRange(&r).message(), "no calibration samples were collected");
  const RangeCollector d = Collect({1.f, 2.f});
  EXPECT_EQ(d.PercentileRange(0.0, &r).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.PercentileRange(100.5, &r).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace quantize
}  // namespace loom
