#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace nn {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

struct PoolCase {
  Shape x;
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// Naive pooling over 1..3 spatial dims with explicit pads; kind is "max",
// "avg" or "lp<p>". Also returns row-major flat indices for max.
std::vector<double> RefPool(const PoolCase& c, const std::vector<float>& x, const std::string& kind, Shape* out_shape,
                            std::vector<int64_t>* indices) {
  const size_t r = c.kernel.size();
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, pb[3] = {0, 0, 0},
          pe[3] = {0, 0, 0}, o[3] = {1, 1, 1};
  *out_shape = {c.x[0], c.x[1]};
  for (size_t i = 0; i < r; ++i) {
    const size_t a = 3 - r + i;
    in[a] = c.x[2 + i];
    k[a] = c.kernel[i];
    s[a] = c.strides[i];
    d[a] = c.dilations[i];
    pb[a] = c.pads[i];
    pe[a] = c.pads[i + r];
    const int64_t span = in[a] + pb[a] + pe[a] - ((k[a] - 1) * d[a] + 1);
    if (c.ceil_mode) {
      o[a] = (span + s[a] - 1) / s[a] + 1;
      if ((o[a] - 1) * s[a] >= in[a] + pb[a]) --o[a];
    } else {
      o[a] = span / s[a] + 1;
    }
    out_shape->push_back(o[a]);
  }
  const int64_t planes = c.x[0] * c.x[1], in_size = in[0] * in[1] * in[2];
  std::vector<double> y;
  indices->clear();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t od = 0; od < o[0]; ++od)
      for (int64_t oh = 0; oh < o[1]; ++oh)
        for (int64_t ow = 0; ow < o[2]; ++ow) {
          double best = -1e300, sum = 0;
          int64_t best_idx = -1, valid = 0, padded = 0;
          for (int64_t kd = 0; kd < k[0]; ++kd)
            for (int64_t kh = 0; kh < k[1]; ++kh)
              for (int64_t kw = 0; kw < k[2]; ++kw) {
                const int64_t id = od * s[0] - pb[0] + kd * d[0], ih = oh * s[1] - pb[1] + kh * d[1],
                              iw = ow * s[2] - pb[2] + kw * d[2];
                if (id < in[0] + pe[0] && ih < in[1] + pe[1] && iw < in[2] + pe[2]) ++padded;
                if (id < 0 || ih < 0 || iw < 0 || id >= in[0] || ih >= in[1] || iw >= in[2]) continue;
                const int64_t idx = (id * in[1] + ih) * in[2] + iw;
                const double v = x[pl * in_size + idx];
                ++valid;
                if (kind == "max") {
                  if (v > best) {
                    best = v;
                    best_idx = pl * in_size + idx;
                  }
                } else if (kind == "avg") {
                  sum += v;
                } else {
                  sum += std::pow(std::fabs(v), std::stod(kind.substr(2)));
                }
              }
          if (kind == "max") {
            y.push_back(best);
            indices->push_back(best_idx);
          } else if (kind == "avg") {
            y.push_back(sum / (c.count_include_pad ? padded : valid));
          } else {
            y.push_back(std::pow(sum, 1.0 / std::stod(kind.substr(2))));
          }
        }
  return y;
}

Attributes PoolAttrs(const PoolCase& c) {
  Attributes a;
  a.SetInts("kernel_shape", c.kernel);
  a.SetInts("strides", c.strides);
  a.SetInts("pads", c.pads);
  if (c.dilations != std::vector<int64_t>(c.kernel.size(), 1)) a.SetInts("dilations", c.dilations);
  if (c.ceil_mode) a.SetInt("ceil_mode", 1);
  if (c.count_include_pad) a.SetInt("count_include_pad", 1);
  return a;
}

std::vector<PoolCase> Cases() {
  return {
      {{2, 3, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{1, 2, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 0, 1}, true, true},
      {{1, 2, 10, 11}, {2, 3}, {3, 2}, {2, 1}, {0, 1, 1, 0}, true},
      {{1, 1, 6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, true},
      {{2, 2, 13}, {4}, {3}, {2}, {2, 1}, true},
      {{1, 2, 5, 6, 7}, {2, 3, 2}, {2, 1, 2}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}, true, true},
      {{1, 64, 28, 28}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
  };
}

void CheckPool(const char* op, const std::string& kind, const PoolCase& c, int threads, Attributes extra = {}) {
  SCOPED_TRACE(::testing::Message() << op << " " << kind << " x=" << ShapeToString(c.x) << " ceil=" << c.ceil_mode
                                    << " include_pad=" << c.count_include_pad << " threads=" << threads);
  const auto x = Random(NumElements(c.x), 3);
  Shape out_shape;
  std::vector<int64_t> ref_idx;
  const auto ref = RefPool(c, x, kind, &out_shape, &ref_idx);
  Attributes attrs = PoolAttrs(c);
  if (std::string(op) != "AveragePool") attrs.Erase("count_include_pad");
  for (const Attribute& a : extra.all()) attrs.Set(a);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
  if (kind == "max") out.push_back(TestTensor::Empty(DType::kInt64, out_shape));
  RunOptions opt;
  opt.threads = threads;
  Status st = RunKernel(op, attrs, {TestTensor::Of<float>(c.x, x)}, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto got = out[0].As<float>();
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-4 * (1 + std::fabs(ref[i]))) << "at " << i;
  if (kind == "max") {
    EXPECT_EQ(out[1].As<int64_t>(), ref_idx);
  }
}

TEST(Pool, MaxAverageLpMatchReference) {
  for (const PoolCase& c : Cases()) {
    for (int threads : {1, 2}) {
      CheckPool("MaxPool", "max", c, threads);
      CheckPool("AveragePool", "avg", c, threads);
    }
    PoolCase lp = c;
    lp.ceil_mode = false;
    Attributes p3;
    p3.SetInt("p", 3);
    CheckPool("LpPool", "lp2", lp, 1);
    CheckPool("LpPool", "lp3", lp, 2, p3);
  }
}

// The vectorized fp32 path (MaxPool without Indices, AveragePool; 1-D and 2-D,
// dilations 1) through the kernel, on random windows: max equals the generic
// loop (MaxPool with Indices) exactly, average is within 1e-6 relative of the
// reference. ctest runs this once per instruction-set path (LOOM_CPU_ISA).
TEST(Pool, FastPathMatchesGenericOnRandomWindows) {
  std::mt19937 gen(21);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); };
  int checked = 0;
  while (checked < 150) {
    const bool two_d = uniform(0, 3) != 0;
    PoolCase c;
    const size_t r = two_d ? 2 : 1;
    c.x = {uniform(1, 2), uniform(1, 3)};
    for (size_t i = 0; i < r; ++i) {
      c.x.push_back(uniform(1, uniform(0, 2) == 0 ? 40 : 9));
      c.kernel.push_back(uniform(1, 5));
      c.strides.push_back(uniform(1, 3));
      c.dilations.push_back(1);
    }
    for (size_t i = 0; i < 2 * r; ++i) c.pads.push_back(uniform(0, c.kernel[i % r] - 1));  // asymmetric
    c.ceil_mode = uniform(0, 1) == 1;
    c.count_include_pad = uniform(0, 1) == 1;
    bool fits = true;
    for (size_t i = 0; i < r; ++i) fits = fits && c.x[2 + i] + c.pads[i] + c.pads[i + r] >= c.kernel[i];
    if (!fits) continue;
    ++checked;
    SCOPED_TRACE(::testing::Message() << "x=" << ShapeToString(c.x) << " k=" << IntsToString(c.kernel)
                                      << " s=" << IntsToString(c.strides) << " pads=" << IntsToString(c.pads)
                                      << " ceil=" << c.ceil_mode << " include_pad=" << c.count_include_pad);
    const auto x = Random(NumElements(c.x), static_cast<uint32_t>(checked));
    Shape out_shape;
    std::vector<int64_t> ref_idx;
    const auto ref = RefPool(c, x, "avg", &out_shape, &ref_idx);
    RunOptions opt;
    opt.threads = 1 + checked % 2;
    Attributes max_attrs = PoolAttrs(c);
    max_attrs.Erase("count_include_pad");
    std::vector<TestTensor> fast = {TestTensor::Empty(DType::kFloat32, out_shape)};
    ASSERT_TRUE(RunKernel("MaxPool", max_attrs, {TestTensor::Of<float>(c.x, x)}, &fast, opt).ok());
    std::vector<TestTensor> generic = {TestTensor::Empty(DType::kFloat32, out_shape),
                                       TestTensor::Empty(DType::kInt64, out_shape)};
    ASSERT_TRUE(RunKernel("MaxPool", max_attrs, {TestTensor::Of<float>(c.x, x)}, &generic, opt).ok());
    ASSERT_EQ(fast[0].As<float>(), generic[0].As<float>());
    std::vector<TestTensor> avg = {TestTensor::Empty(DType::kFloat32, out_shape)};
    ASSERT_TRUE(RunKernel("AveragePool", PoolAttrs(c), {TestTensor::Of<float>(c.x, x)}, &avg, opt).ok());
    const auto got = avg[0].As<float>();
    ASSERT_EQ(got.size(), ref.size());
    // Values are in [-2, 2): the tolerance's floor is 1e-6 of the data's scale (cancellation).
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-6 * (std::fabs(ref[i]) + 1)) << "at " << i;
  }
}

TEST(Pool, MaxPoolColumnMajorIndices) {
  // 1x1x3x4, 2x2 stride 2: maxima picked by hand.
  const std::vector<float> x = {0, 1, 2, 3, 4, 9, 6, 7, 8, 5, 10, 11};
  Attributes a;
  a.SetInts("kernel_shape", {2, 2});
  a.SetInts("strides", {2, 2});
  a.SetInt("storage_order", 1);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 1, 1, 2}),
                                 TestTensor::Empty(DType::kInt64, {1, 1, 1, 2})};
  ASSERT_TRUE(RunKernel("MaxPool", a, {TestTensor::Of<float>({1, 1, 3, 4}, x)}, &out).ok());
  EXPECT_EQ(out[0].As<float>(), (std::vector<float>{9, 7}));
  // (h=1, w=1) -> 1 + 1*3 = 4; (h=1, w=3) -> 1 + 3*3 = 10.
  EXPECT_EQ(out[1].As<int64_t>(), (std::vector<int64_t>{4, 10}));
}

TEST(Pool, MaxPoolInt8AndDouble) {
  Attributes a;
  a.SetInts("kernel_shape", {2});
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt8, {1, 1, 3})};
  ASSERT_TRUE(RunKernel("MaxPool", a, {TestTensor::Of<int8_t>({1, 1, 4}, {-5, -7, 3, -128})}, &out).ok());
  EXPECT_EQ(out[0].As<int8_t>(), (std::vector<int8_t>{-5, 3, 3}));
  out = {TestTensor::Empty(DType::kFloat64, {1, 1, 3})};
  ASSERT_TRUE(RunKernel("AveragePool", a, {TestTensor::Of<double>({1, 1, 4}, {1, 2, 3, 5})}, &out).ok());
  EXPECT_EQ(out[0].As<double>(), (std::vector<double>{1.5, 2.5, 4}));
}

TEST(Pool, AutoPad) {
  const auto x = Random(25, 1);
  Attributes a;
  a.SetInts("kernel_shape", {2, 2});
  a.SetInts("strides", {2, 2});
  a.SetString("auto_pad", "SAME_LOWER");  // out 3x3, one pad row/col at the start
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 1, 3, 3})};
  ASSERT_TRUE(RunKernel("AveragePool", a, {TestTensor::Of<float>({1, 1, 5, 5}, x)}, &out).ok());
  PoolCase c{{1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, {1, 1, 0, 0}};
  Shape s;
  std::vector<int64_t> idx;
  const auto ref = RefPool(c, x, "avg", &s, &idx);
  ASSERT_EQ(s, (Shape{1, 1, 3, 3}));
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(out[0].As<float>()[i], ref[i], 1e-6);
}

TEST(GlobalPool, AllKinds) {
  const auto x = Random(2 * 3 * 4 * 5, 9);
  for (int threads : {1, 2}) {
    RunOptions opt;
    opt.threads = threads;
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
      std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {2, 3, 1, 1})};
      ASSERT_TRUE(RunKernel(op, {}, {TestTensor::Of<float>({2, 3, 4, 5}, x)}, &out, opt).ok()) << op;
      const auto got = out[0].As<float>();
      for (int p = 0; p < 6; ++p) {
        double sum = 0, sq = 0, mx = -1e30;
        for (int i = 0; i < 20; ++i) {
          const double v = x[p * 20 + i];
          sum += v;
          sq += v * v;
          mx = std::max(mx, v);
        }
        const std::string name = op;
        const double want = name == "GlobalAveragePool" ? sum / 20 : name == "GlobalMaxPool" ? mx : std::sqrt(sq);
        EXPECT_NEAR(got[p], want, 1e-5) << op;
      }
    }
  }
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat64, {1, 2, 1})};
  ASSERT_TRUE(RunKernel("GlobalMaxPool", {}, {TestTensor::Of<double>({1, 2, 3}, {1, 5, 2, -1, -3, -2})}, &out).ok());
  EXPECT_EQ(out[0].As<double>(), (std::vector<double>{5, -1}));
}

TEST(Pool, RejectsBadSetups) {
  const auto x = TestTensor::Of<float>({1, 1, 4, 4}, Random(16, 1));
  auto run = [&](const char* op, const Attributes& a, Shape out_shape, std::vector<TestTensor> in = {}) {
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
    return RunKernel(op, a, in.empty() ? std::vector<TestTensor>{x} : in, &out);
  };
  Attributes a;
  a.SetInts("kernel_shape", {2, 2});
  EXPECT_TRUE(run("MaxPool", a, {1, 1, 3, 3}).ok());
  EXPECT_FALSE(run("MaxPool", a, {1, 1, 2, 2}).ok());
  EXPECT_FALSE(run("MaxPool", {}, {1, 1, 3, 3}).ok());  // no kernel_shape
  Attributes bad = a;
  bad.SetInts("kernel_shape", {2});
  EXPECT_FALSE(run("MaxPool", bad, {1, 1, 3, 3}).ok());
  bad = a;
  bad.SetInts("kernel_shape", {0, 2});
  EXPECT_FALSE(run("AveragePool", bad, {1, 1, 3, 3}).ok());
  bad = a;
  bad.SetInts("pads", {-1, 0, 0, 0});
  EXPECT_FALSE(run("AveragePool", bad, {1, 1, 3, 3}).ok());
  bad = a;
  bad.SetInt("storage_order", 3);
  EXPECT_FALSE(run("MaxPool", bad, {1, 1, 3, 3}).ok());
  bad = a;
  bad.SetInt("p", 0);
  EXPECT_FALSE(run("LpPool", bad, {1, 1, 3, 3}).ok());
  EXPECT_EQ(run("AveragePool", a, {1, 1, 3, 3}, {TestTensor::Of<int8_t>({1, 1, 4, 4}, std::vector<int8_t>(16))}).code(),
            StatusCode::kUnsupported);
  EXPECT_FALSE(run("GlobalAveragePool", {}, {1, 1, 1, 2}).ok());
  EXPECT_FALSE(run("MaxPool", a, {1, 3, 3}, {TestTensor::Of<float>({1, 4, 4}, Random(16, 1))}).ok());
}

}  // namespace
}  // namespace nn
}  // namespace loom
