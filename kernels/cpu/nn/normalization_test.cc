#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace nn {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

std::vector<float> Random(size_t n, uint32_t seed, float lo = -2.f, float hi = 2.f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-4) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

TEST(BatchNormalization, MatchesReference) {
  const Shape xs = {2, 3, 4, 5};
  const auto x = Random(120, 1), scale = Random(3, 2), bias = Random(3, 3), mean = Random(3, 4),
             var = Random(3, 5, 0.1f, 2.f);
  std::vector<double> ref;
  for (int i = 0; i < 120; ++i) {
    const int c = (i / 20) % 3;
    ref.push_back(scale[c] * (x[i] - mean[c]) / std::sqrt(var[c] + 1e-3) + bias[c]);
  }
  Attributes a;
  a.SetFloat("epsilon", 1e-3f);
  for (bool constant : {false, true})
    for (int threads : {1, 2}) {
      std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs)};
      RunOptions opt;
      opt.threads = threads;
      ASSERT_TRUE(RunKernel("BatchNormalization", a,
                            {TestTensor::Of<float>(xs, x), TestTensor::Of<float>({3}, scale, constant),
                             TestTensor::Of<float>({3}, bias, constant), TestTensor::Of<float>({3}, mean, constant),
                             TestTensor::Of<float>({3}, var, constant)},
                            &out, opt)
                      .ok());
      ExpectNear(out[0].As<float>(), ref);
    }
  // float64, rank 2 input.
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat64, {1, 2})};
  ASSERT_TRUE(RunKernel("BatchNormalization", {},
                        {TestTensor::Of<double>({1, 2}, {1, 2}), TestTensor::Of<double>({2}, {2, 3}),
                         TestTensor::Of<double>({2}, {1, 1}), TestTensor::Of<double>({2}, {0, 1}),
                         TestTensor::Of<double>({2}, {1, 4})},
                        &out)
                  .ok());
  EXPECT_NEAR(out[0].As<double>()[0], 2 / std::sqrt(1 + 1e-5) + 1, 1e-6);
  EXPECT_NEAR(out[0].As<double>()[1], 3 / std::sqrt(4 + 1e-5) + 1, 1e-6);
}

TEST(BatchNormalization, PerElementBeforeOpset9) {
  // spatial = 0: parameters have shape X.shape[1:].
  const auto x = Random(12, 1), s = Random(6, 2), b = Random(6, 3), m = Random(6, 4), v = Random(6, 5, 0.5f, 1.f);
  std::vector<double> ref;
  for (int i = 0; i < 12; ++i) ref.push_back(s[i % 6] * (x[i] - m[i % 6]) / std::sqrt(v[i % 6] + 1e-5) + b[i % 6]);
  Attributes a;
  a.SetInt("spatial", 0);
  RunOptions opt;
  opt.opset = 7;
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {2, 2, 3})};
  ASSERT_TRUE(RunKernel("BatchNormalization", a,
                        {TestTensor::Of<float>({2, 2, 3}, x), TestTensor::Of<float>({2, 3}, s),
                         TestTensor::Of<float>({2, 3}, b), TestTensor::Of<float>({2, 3}, m),
                         TestTensor::Of<float>({2, 3}, v)},
                        &out, opt)
                  .ok());
  ExpectNear(out[0].As<float>(), ref);
}

TEST(BatchNormalization, RejectsTrainingAndBadShapes) {
  const auto p = TestTensor::Of<float>({2}, {1, 1});
  const auto x = TestTensor::Of<float>({1, 2, 2}, {1, 2, 3, 4});
  Attributes train;
  train.SetInt("training_mode", 1);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 2, 2})};
  EXPECT_EQ(RunKernel("BatchNormalization", train, {x, p, p, p, p}, &out).code(), StatusCode::kUnsupported);
  out.push_back(TestTensor::Empty(DType::kFloat32, {2}));
  EXPECT_EQ(RunKernel("BatchNormalization", {}, {x, p, p, p, p}, &out).code(), StatusCode::kUnsupported);
  out.pop_back();
  EXPECT_FALSE(RunKernel("BatchNormalization", {}, {x, p, p, p, TestTensor::Of<float>({3}, {1, 1, 1})}, &out).ok());
  EXPECT_FALSE(RunKernel("BatchNormalization", {}, {x, p, p, p}, &out).ok());
  out[0] = TestTensor::Empty(DType::kFloat32, {1, 2, 3});
  EXPECT_FALSE(RunKernel("BatchNormalization", {}, {x, p, p, p, p}, &out).ok());
}

// LayerNormalization over axis (negative too), with Mean and InvStdDev.
TEST(LayerNormalization, MatchesReference) {
  const Shape xs = {2, 3, 4};
  const auto x = Random(24, 7);
  for (int64_t axis : {-1, 1, 0, -2}) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    Shape norm(xs.begin() + a, xs.end());
    const int64_t inner = NumElements(norm), outer = 24 / inner;
    const auto scale = Random(inner, 8), bias = Random(inner, 9);
    std::vector<double> ref, ref_mean, ref_inv;
    for (int64_t r = 0; r < outer; ++r) {
      double m = 0, v = 0;
      for (int64_t i = 0; i < inner; ++i) m += x[r * inner + i];
      m /= inner;
      for (int64_t i = 0; i < inner; ++i) v += (x[r * inner + i] - m) * (x[r * inner + i] - m);
      v /= inner;
      const double inv = 1 / std::sqrt(v + 1e-5);
      for (int64_t i = 0; i < inner; ++i) ref.push_back((x[r * inner + i] - m) * inv * scale[i] + bias[i]);
      ref_mean.push_back(m);
      ref_inv.push_back(inv);
    }
    Shape stat(xs.begin(), xs.begin() + a);
    stat.resize(3, 1);
    Attributes attrs;
    attrs.SetInt("axis", axis);
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs), TestTensor::Empty(DType::kFloat32, stat),
                                   TestTensor::Empty(DType::kFloat32, stat)};
    RunOptions opt;
    opt.threads = 2;
    Status st = RunKernel("LayerNormalization", attrs,
                          {TestTensor::Of<float>(xs, x), TestTensor::Of<float>(norm, scale),
                           TestTensor::Of<float>(norm, bias)},
                          &out, opt);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ExpectNear(out[0].As<float>(), ref);
    ExpectNear(out[1].As<float>(), ref_mean);
    ExpectNear(out[2].As<float>(), ref_inv);
  }
}

TEST(LayerNormalization, BroadcastScaleNoBiasDouble) {
  // Scale of shape [1, 3] over normalized shape [2, 3]; no B.
  const std::vector<double> x = {1, 2, 3, 4, 5, 6}, s = {1, 2, 3};
  Attributes attrs;
  attrs.SetInt("axis", 0);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat64, {2, 3})};
  ASSERT_TRUE(RunKernel("LayerNormalization", attrs,
                        {TestTensor::Of<double>({2, 3}, x), TestTensor::Of<double>({1, 3}, s)}, &out)
                  .ok());
  const double m = 3.5, inv = 1 / std::sqrt(17.5 / 6 + 1e-5);
  const auto got = out[0].As<double>();
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], (x[i] - m) * inv * s[i % 3], 1e-9);
  out = {TestTensor::Empty(DType::kFloat64, {2, 3})};
  EXPECT_FALSE(RunKernel("LayerNormalization", attrs,
                         {TestTensor::Of<double>({2, 3}, x), TestTensor::Of<double>({2}, {1, 2})}, &out)
                   .ok());
  attrs.SetInt("axis", 2);
  EXPECT_FALSE(RunKernel("LayerNormalization", attrs,
                         {TestTensor::Of<double>({2, 3}, x), TestTensor::Of<double>({3}, s)}, &out)
                   .ok());
}

TEST(InstanceNormalization, MatchesReference) {
  const Shape xs = {2, 3, 5};
  const auto x = Random(30, 11), s = Random(3, 12), b = Random(3, 13);
  std::vector<double> ref;
  for (int p = 0; p < 6; ++p) {
    double m = 0, v = 0;
    for (int i = 0; i < 5; ++i) m += x[p * 5 + i];
    m /= 5;
    for (int i = 0; i < 5; ++i) v += (x[p * 5 + i] - m) * (x[p * 5 + i] - m);
    v /= 5;
    for (int i = 0; i < 5; ++i) ref.push_back(s[p % 3] * (x[p * 5 + i] - m) / std::sqrt(v + 1e-2) + b[p % 3]);
  }
  Attributes attrs;
  attrs.SetFloat("epsilon", 1e-2f);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs)};
  ASSERT_TRUE(RunKernel("InstanceNormalization", attrs,
                        {TestTensor::Of<float>(xs, x), TestTensor::Of<float>({3}, s), TestTensor::Of<float>({3}, b)},
                        &out)
                  .ok());
  ExpectNear(out[0].As<float>(), ref);
  EXPECT_FALSE(RunKernel("InstanceNormalization", attrs,
                         {TestTensor::Of<float>(xs, x), TestTensor::Of<float>({2}, {1, 1}), TestTensor::Of<float>({3}, b)},
                         &out)
                   .ok());
}

TEST(Lrn, MatchesSpecFormula) {
  const Shape xs = {1, 6, 2, 3};
  const auto x = Random(36, 21);
  for (int64_t size : {1, 2, 3, 4, 5}) {
    std::vector<double> ref;
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < 6; ++i) {
        double sq = 0;
        const int lo = std::max<int>(0, c - static_cast<int>((size - 1) / 2));
        const int hi = std::min<int>(5, c + static_cast<int>((size - 1 + 1) / 2));  // ceil((size-1)/2)
        for (int k = lo; k <= hi; ++k) sq += x[k * 6 + i] * x[k * 6 + i];
        ref.push_back(x[c * 6 + i] / std::pow(2.0 + 0.5 / size * sq, 0.6));
      }
    Attributes a;
    a.SetInt("size", size);
    a.SetFloat("alpha", 0.5f);
    a.SetFloat("beta", 0.6f);
    a.SetFloat("bias", 2.f);
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs)};
    RunOptions opt;
    opt.threads = 2;
    ASSERT_TRUE(RunKernel("LRN", a, {TestTensor::Of<float>(xs, x)}, &out, opt).ok());
    ExpectNear(out[0].As<float>(), ref);
  }
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs)};
  EXPECT_FALSE(RunKernel("LRN", {}, {TestTensor::Of<float>(xs, x)}, &out).ok());  // size is required
}

TEST(MeanVarianceNormalization, DefaultAndCustomAxes) {
  const Shape xs = {2, 3, 2, 2};
  const auto x = Random(24, 31);
  for (const std::vector<int64_t>& axes : {std::vector<int64_t>{0, 2, 3}, std::vector<int64_t>{1, -1}}) {
    std::vector<bool> red(4, false);
    for (int64_t a : axes) red[a < 0 ? a + 4 : a] = true;
    auto key = [&](int e) {
      int k = 0, rem = e;
      int idx[4];
      for (int i = 3; i >= 0; --i) {
        idx[i] = rem % static_cast<int>(xs[i]);
        rem /= static_cast<int>(xs[i]);
      }
      for (int i = 0; i < 4; ++i) k = k * 10 + (red[i] ? 0 : idx[i] + 1);
      return k;
    };
    std::vector<double> ref(24);
    for (int e = 0; e < 24; ++e) {
      double m = 0, sq = 0;
      int n = 0;
      for (int f = 0; f < 24; ++f)
        if (key(f) == key(e)) {
          m += x[f];
          sq += static_cast<double>(x[f]) * x[f];
          ++n;
        }
      m /= n;
      ref[e] = (x[e] - m) / (std::sqrt(sq / n - m * m) + 1e-9);
    }
    Attributes a;
    if (axes.size() == 2) a.SetInts("axes", axes);
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs)};
    ASSERT_TRUE(RunKernel("MeanVarianceNormalization", a, {TestTensor::Of<float>(xs, x)}, &out).ok());
    ExpectNear(out[0].As<float>(), ref, 1e-3);
  }
  Attributes bad;
  bad.SetInts("axes", {4});
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, xs)};
  EXPECT_FALSE(RunKernel("MeanVarianceNormalization", bad, {TestTensor::Of<float>(xs, x)}, &out).ok());
}

}  // namespace
}  // namespace nn
}  // namespace loom
