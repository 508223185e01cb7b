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

std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

struct Case {
  Shape x;
  int64_t out_per_group;
  std::vector<int64_t> kernel, strides, dilations, pads, out_pad;
  int64_t group = 1;
};

// Direct scatter: y[n, g*Mg+m, i*s - p + k*d] += x[n, g*Cg+c, i] * w[g*Cg+c, m, k].
std::vector<double> Reference(const Case& c, const std::vector<double>& x, const std::vector<double>& w,
                              const std::vector<double>& b, Shape* out_shape) {
  const size_t r = c.kernel.size();
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, p[3] = {0, 0, 0}, o[3] = {1, 1, 1};
  const int64_t cin = c.x[1], cg = cin / c.group, mg = c.out_per_group, cout = mg * c.group;
  *out_shape = {c.x[0], cout};
  for (size_t i = 0; i < r; ++i) {
    const size_t a = 3 - r + i;
    in[a] = c.x[2 + i];
    k[a] = c.kernel[i];
    s[a] = c.strides[i];
    d[a] = c.dilations[i];
    p[a] = c.pads[i];
    o[a] = s[a] * (in[a] - 1) + c.out_pad[i] + (k[a] - 1) * d[a] + 1 - c.pads[i] - c.pads[i + r];
    out_shape->push_back(o[a]);
  }
  const int64_t osz = o[0] * o[1] * o[2], isz = in[0] * in[1] * in[2], ksz = k[0] * k[1] * k[2];
  std::vector<double> y(c.x[0] * cout * osz);
  for (int64_t n = 0; n < c.x[0]; ++n)
    for (int64_t m = 0; m < cout; ++m)
      for (int64_t i = 0; i < osz; ++i) y[(n * cout + m) * osz + i] = b.empty() ? 0.0 : b[m];
  for (int64_t n = 0; n < c.x[0]; ++n)
    for (int64_t ci = 0; ci < cin; ++ci)
      for (int64_t id = 0; id < in[0]; ++id)
        for (int64_t ih = 0; ih < in[1]; ++ih)
          for (int64_t iw = 0; iw < in[2]; ++iw)
            for (int64_t m = 0; m < mg; ++m)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t od = id * s[0] - p[0] + kd * d[0], oh = ih * s[1] - p[1] + kh * d[1],
                                  ow = iw * s[2] - p[2] + kw * d[2];
                    if (od < 0 || oh < 0 || ow < 0 || od >= o[0] || oh >= o[1] || ow >= o[2]) continue;
                    const int64_t g = ci / cg, oc = g * mg + m;
                    y[((n * cout + oc) * o[0] + od) * o[1] * o[2] + oh * o[2] + ow] +=
                        x[(n * cin + ci) * isz + (id * in[1] + ih) * in[2] + iw] *
                        w[(ci * mg + m) * ksz + (kd * k[1] + kh) * k[2] + kw];
                  }
  return y;
}

Attributes MakeAttrs(const Case& c) {
  Attributes a;
  a.SetInts("strides", c.strides);
  a.SetInts("dilations", c.dilations);
  a.SetInts("pads", c.pads);
  a.SetInts("output_padding", c.out_pad);
  if (c.group != 1) a.SetInt("group", c.group);
  return a;
}

std::vector<Case> Cases() {
  return {
      {{1, 2, 3, 4}, 3, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}},
      {{2, 3, 4, 3}, 2, {3, 2}, {2, 3}, {1, 2}, {1, 0, 0, 1}, {1, 2}},
      {{1, 4, 5, 5}, 3, {4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {0, 0}, 2},
      {{1, 3, 7}, 2, {3}, {3}, {2}, {2, 1}, {1}, 1},
      {{1, 2, 3, 2, 3}, 2, {2, 3, 2}, {2, 1, 2}, {1, 1, 1}, {0, 1, 0, 0, 0, 1}, {1, 0, 0}},
      {{1, 16, 14, 14}, 8, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}},
  };
}

TEST(ConvTranspose, MatchesReference) {
  for (const Case& c : Cases())
    for (bool const_w : {false, true})
      for (int threads : {1, 2}) {
        SCOPED_TRACE(::testing::Message() << ShapeToString(c.x) << " const=" << const_w << " threads=" << threads);
        Shape ws = {c.x[1], c.out_per_group};
        for (int64_t k : c.kernel) ws.push_back(k);
        const auto x = Random(NumElements(c.x), 1), w = Random(NumElements(ws), 2),
                   b = Random(c.out_per_group * c.group, 3);
        Shape out_shape;
        const auto ref = Reference(c, x, w, b, &out_shape);
        std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
        RunOptions opt;
        opt.threads = threads;
        Status st = RunKernel("ConvTranspose", MakeAttrs(c),
                              {TestTensor::Of<float>(c.x, std::vector<float>(x.begin(), x.end())),
                               TestTensor::Of<float>(ws, std::vector<float>(w.begin(), w.end()), const_w),
                               TestTensor::Of<float>({c.out_per_group * c.group}, std::vector<float>(b.begin(), b.end()))},
                              &out, opt);
        ASSERT_TRUE(st.ok()) << st.ToString();
        const auto got = out[0].As<float>();
        ASSERT_EQ(got.size(), ref.size());
        for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-4) << "at " << i;
        // float64 and no bias.
        std::vector<TestTensor> out64 = {TestTensor::Empty(DType::kFloat64, out_shape)};
        ASSERT_TRUE(RunKernel("ConvTranspose", MakeAttrs(c), {TestTensor::Of<double>(c.x, x), TestTensor::Of<double>(ws, w)},
                              &out64, opt)
                        .ok());
        const auto ref_nb = Reference(c, x, w, {}, &out_shape);
        const auto got64 = out64[0].As<double>();
        for (size_t i = 0; i < ref_nb.size(); ++i) ASSERT_NEAR(got64[i], ref_nb[i], 1e-12);
      }
}

TEST(ConvTranspose, OutputShapeAndAutoPad) {
  const auto x = Random(9, 4), w = Random(9, 5);
  const auto xt = TestTensor::Of<double>({1, 1, 3, 3}, x), wt = TestTensor::Of<double>({1, 1, 3, 3}, w);
  // Full output is 3*2+3 = 9 per dim (stride 3, no pads): compare sub-windows.
  Case full{{1, 1, 3, 3}, 1, {3, 3}, {3, 3}, {1, 1}, {0, 0, 0, 0}, {0, 0}};
  Shape s;
  const auto ref = Reference(full, x, w, {}, &s);
  auto run = [&](const Attributes& a, Shape out_shape, std::vector<double>* got) {
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat64, out_shape)};
    Status st = RunKernel("ConvTranspose", a, {xt, wt}, &out);
    *got = out[0].As<double>();
    return st;
  };
  std::vector<double> got;
  Attributes a;
  a.SetInts("strides", {3, 3});
  a.SetInts("output_shape", {7, 10});  // total padding 2 rows (1 + 1), -1 col (extra col at the end)
  ASSERT_TRUE(run(a, {1, 1, 7, 10}, &got).ok());
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 10; ++j) EXPECT_NEAR(got[i * 10 + j], j < 9 ? ref[(i + 1) * 9 + j] : 0.0, 1e-12);
  a = {};
  a.SetInts("strides", {3, 3});
  a.SetString("auto_pad", "SAME_LOWER");  // out 9 = full: no padding
  ASSERT_TRUE(run(a, {1, 1, 9, 9}, &got).ok());
  for (int i = 0; i < 81; ++i) EXPECT_NEAR(got[i], ref[i], 1e-12);
  a = {};
  a.SetInts("strides", {2, 2});
  a.SetString("auto_pad", "SAME_UPPER");  // full 7, out 6: SAME_UPPER drops the last row/col
  Case c2{{1, 1, 3, 3}, 1, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}};
  const auto ref2 = Reference(c2, x, w, {}, &s);
  ASSERT_TRUE(run(a, {1, 1, 6, 6}, &got).ok());
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(got[i * 6 + j], ref2[i * 7 + j], 1e-12);
  a.SetString("auto_pad", "SAME_LOWER");  // drops the first row/col
  ASSERT_TRUE(run(a, {1, 1, 6, 6}, &got).ok());
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_NEAR(got[i * 6 + j], ref2[(i + 1) * 7 + j + 1], 1e-12);
}

TEST(ConvTranspose, FusedActivationAndErrors) {
  Attributes a;
  a.SetString("loom.activation", "Relu");
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 1, 2})};
  ASSERT_TRUE(RunKernel("ConvTranspose", a,
                        {TestTensor::Of<float>({1, 1, 1}, {1}), TestTensor::Const<float>({1, 1, 2}, {-1, 2})}, &out)
                  .ok());
  EXPECT_EQ(out[0].As<float>(), (std::vector<float>{0, 2}));
  const auto x = TestTensor::Of<float>({1, 2, 3, 3}, std::vector<float>(18, 1.f));
  const auto w = TestTensor::Of<float>({2, 1, 2, 2}, std::vector<float>(8, 1.f));
  auto run = [&](const Attributes& attrs, std::vector<TestTensor> in, Shape os) {
    std::vector<TestTensor> o = {TestTensor::Empty(DType::kFloat32, os)};
    return RunKernel("ConvTranspose", attrs, in, &o);
  };
  EXPECT_TRUE(run({}, {x, w}, {1, 1, 4, 4}).ok());
  EXPECT_FALSE(run({}, {x, w}, {1, 2, 4, 4}).ok());
  EXPECT_FALSE(run({}, {x, TestTensor::Of<float>({3, 1, 2, 2}, std::vector<float>(12, 1.f))}, {1, 1, 4, 4}).ok());
  Attributes bad;
  bad.SetInts("output_padding", {-1, 0});
  EXPECT_FALSE(run(bad, {x, w}, {1, 1, 3, 4}).ok());
  bad = {};
  bad.SetInts("pads", {3, 3, 3, 3});
  EXPECT_FALSE(run(bad, {x, w}, {1, 1, 0, 0}).ok());
  bad = {};
  bad.SetInt("group", 2);
  EXPECT_TRUE(run(bad, {x, w}, {1, 2, 4, 4}).ok());
  EXPECT_FALSE(run(bad, {x, w}, {1, 1, 4, 4}).ok());
}

}  // namespace
}  // namespace nn
}  // namespace loom
