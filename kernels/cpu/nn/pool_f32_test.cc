// The fp32 pooling fast paths (pool_f32_isa.h) on every path this CPU runs,
// against a naive reference: random 1-D and 2-D windows (kernel 1..5, stride
// 1..3, asymmetric pads, ceil_mode on and off, tiny planes), and the plane
// reductions behind GlobalAveragePool / GlobalMaxPool.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/nn/pool_f32_isa.h"

namespace loom {
namespace nn {
namespace {

struct Case {
  int64_t h, w, kh, kw, sh, sw, pt, pl, pb, pr;
  bool ceil_mode;
};

// ONNX's output size along one axis (explicit pads); -1 when the window does not fit.
int64_t OutDim(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, bool ceil_mode) {
  const int64_t span = in + pb + pe - k;
  if (span < 0) return -1;
  if (!ceil_mode) return span / s + 1;
  int64_t o = (span + s - 1) / s + 1;
  if ((o - 1) * s >= in + pb) --o;
  return o;
}

WindowGeometry Geometry(const Case& c, int rank) {
  WindowGeometry g;
  g.rank = rank;
  g.in[1] = c.h;
  g.in[2] = c.w;
  g.kernel[1] = c.kh;
  g.kernel[2] = c.kw;
  g.stride[1] = c.sh;
  g.stride[2] = c.sw;
  g.pad_begin[1] = c.pt;
  g.pad_begin[2] = c.pl;
  g.pad_end[1] = c.pb;
  g.pad_end[2] = c.pr;
  g.out[1] = OutDim(c.h, c.kh, c.sh, c.pt, c.pb, c.ceil_mode);
  g.out[2] = OutDim(c.w, c.kw, c.sw, c.pl, c.pr, c.ceil_mode);
  return g;
}

// Naive pooling of one plane with the generic kernel's conventions: a window
// without input gives lowest() (max) or 0 (average); count_include_pad counts
// the taps inside the padded extent. `scale` gets the mean |x| of each window
// (the tolerance of an average).
std::vector<double> Reference(const WindowGeometry& g, const std::vector<float>& x, bool max, bool include_pad,
                              std::vector<double>* scale) {
  std::vector<double> y;
  scale->clear();
  for (int64_t oh = 0; oh < g.out[1]; ++oh)
    for (int64_t ow = 0; ow < g.out[2]; ++ow) {
      double best = -std::numeric_limits<double>::infinity(), sum = 0, abs_sum = 0;
      int64_t valid = 0, padded = 0;
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh, iw = ow * g.stride[2] - g.pad_begin[2] + kw;
          if (ih < g.in[1] + g.pad_end[1] && iw < g.in[2] + g.pad_end[2]) ++padded;
          if (ih < 0 || iw < 0 || ih >= g.in[1] || iw >= g.in[2]) continue;
          const double v = x[ih * g.in[2] + iw];
          ++valid;
          best = v > best ? v : best;
          sum += v;
          abs_sum += std::fabs(v);
        }
      if (max) {
        y.push_back(valid ? best : std::numeric_limits<float>::lowest());
        scale->push_back(0);
      } else {
        const int64_t count = include_pad ? padded : valid;
        y.push_back(count > 0 ? sum / count : 0);
        scale->push_back(valid ? abs_sum / valid : 0);
      }
    }
  return y;
}

Case RandomCase(std::mt19937* gen, int rank) {
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(*gen); };
  for (;;) {
    Case c;
    c.kh = rank == 1 ? 1 : uniform(1, 5);
    c.kw = uniform(1, 5);
    c.sh = rank == 1 ? 1 : uniform(1, 3);
    c.sw = uniform(1, 3);
    // Mostly small planes (tiny ones included), sometimes wide rows (several vectors, tails).
    c.h = rank == 1 ? 1 : uniform(1, uniform(0, 3) == 0 ? 40 : 9);
    c.w = uniform(1, uniform(0, 3) == 0 ? 70 : 9);
    // Pads up to kernel - 1 per side, now and then equal to the kernel (windows without input).
    const bool wide_pads = uniform(0, 9) == 0;
    c.pt = rank == 1 ? 0 : uniform(0, wide_pads ? c.kh : c.kh - 1);
    c.pb = rank == 1 ? 0 : uniform(0, wide_pads ? c.kh : c.kh - 1);
    c.pl = uniform(0, wide_pads ? c.kw : c.kw - 1);
    c.pr = uniform(0, wide_pads ? c.kw : c.kw - 1);
    c.ceil_mode = uniform(0, 1) == 1;
    if (OutDim(c.h, c.kh, c.sh, c.pt, c.pb, c.ceil_mode) >= 1 && OutDim(c.w, c.kw, c.sw, c.pl, c.pr, c.ceil_mode) >= 1)
      return c;
  }
}

void CheckCase(const PoolF32Isa& isa, const Case& c, int rank, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  std::vector<float> x(c.h * c.w);
  for (float& v : x) v = dist(gen);
  const WindowGeometry g = Geometry(c, rank);
  for (int mode = 0; mode < 3; ++mode) {  // max, average, average counting pads
    const bool max = mode == 0, include_pad = mode == 2;
    SCOPED_TRACE(::testing::Message() << isa.name << " rank " << rank << " in " << c.h << "x" << c.w << " k " << c.kh
                                      << "x" << c.kw << " s " << c.sh << "x" << c.sw << " pads " << c.pt << "," << c.pl
                                      << "," << c.pb << "," << c.pr << " ceil " << c.ceil_mode << " mode " << mode);
    Pool2dF32Plan plan;
    ASSERT_TRUE(MakePool2dF32Plan(g, max, include_pad, &plan));
    std::vector<double> scale;
    const std::vector<double> want = Reference(g, x, max, include_pad, &scale);
    // Guard floats after the output catch stores past its end.
    const float guard = 12345.f;
    std::vector<float> out(want.size() + 16, guard);
    std::vector<float> scratch(plan.ScratchFloats(), std::numeric_limits<float>::quiet_NaN());
    isa.pool2d(plan, x.data(), out.data(), scratch.data());
    for (size_t i = 0; i < want.size(); ++i) {
      if (max) {
        ASSERT_EQ(out[i], static_cast<float>(want[i])) << "at " << i;
      } else {
        ASSERT_NEAR(out[i], want[i], 1e-6 * (std::fabs(want[i]) + scale[i])) << "at " << i;
      }
    }
    for (size_t i = want.size(); i < out.size(); ++i) ASSERT_EQ(out[i], guard) << "wrote past the output at " << i;
  }
}

TEST(PoolF32, Pool2dMatchesReferenceOnEveryPath) {
  for (const PoolF32Isa* isa : SupportedPoolF32Isas()) {
    std::mt19937 gen(7);
    for (int i = 0; i < 600; ++i) {
      const int rank = i % 5 == 0 ? 1 : 2;
      CheckCase(*isa, RandomCase(&gen, rank), rank, 100 + i);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(PoolF32, Pool2dEdgeShapesOnEveryPath) {
  const std::vector<Case> cases = {
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, false},      // 1x1 plane, 1x1 window
      {1, 1, 3, 3, 2, 2, 1, 1, 1, 1, true},       // 1x1 plane, 3x3 window in the padding
      {2, 3, 2, 2, 1, 1, 0, 0, 0, 0, false},      // 2x3
      {2, 3, 3, 3, 2, 2, 1, 1, 1, 1, true},       // 2x3, ceil_mode
      {112, 112, 3, 3, 2, 2, 1, 1, 1, 1, false},  // 3x3/2 pad 1, even plane
      {111, 111, 3, 3, 2, 2, 0, 0, 0, 0, true},   // ceil_mode on an odd plane
      {55, 55, 3, 3, 2, 2, 0, 0, 0, 0, true},     // odd, ceil_mode
      {13, 13, 3, 3, 2, 2, 0, 0, 0, 0, true},     // odd, ceil_mode, one vector of outputs
      {8, 35, 2, 2, 2, 2, 0, 0, 0, 0, false},     // 2x2/2, odd width
      {9, 40, 5, 5, 3, 3, 4, 4, 4, 4, true},      // stride 3, pads kernel - 1
      {6, 6, 2, 2, 2, 2, 2, 2, 0, 0, false},      // pads equal to the kernel: windows without input
  };
  for (const PoolF32Isa* isa : SupportedPoolF32Isas())
    for (size_t i = 0; i < cases.size(); ++i) {
      CheckCase(*isa, cases[i], 2, 11 + static_cast<uint32_t>(i));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(PoolF32, PlanRejectsWhatItDoesNotCover) {
  Case c{6, 6, 3, 3, 1, 1, 0, 0, 0, 0, false};
  Pool2dF32Plan plan;
  WindowGeometry g = Geometry(c, 2);
  EXPECT_TRUE(MakePool2dF32Plan(g, true, false, &plan));
  g.dilation[2] = 2;
  EXPECT_FALSE(MakePool2dF32Plan(g, true, false, &plan));
  g = Geometry(c, 2);
  g.rank = 3;
  g.in[0] = 2;
  EXPECT_FALSE(MakePool2dF32Plan(g, true, false, &plan));
}

TEST(PoolF32, SumAndMaxOnEveryPath) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  for (const PoolF32Isa* isa : SupportedPoolF32Isas()) {
    for (int64_t n : {1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 49, 63, 64, 65, 100, 169, 196, 1000, 3137}) {
      std::vector<float> x(n);
      for (float& v : x) v = dist(gen);
      // The maximum anywhere, the tail included.
      for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
        std::vector<float> y = x;
        y[at] = 3.f + static_cast<float>(at);
        ASSERT_EQ(isa->max(y.data(), n), y[at]) << isa->name << " n " << n << " at " << at;
      }
      double sum = 0, abs_sum = 0;
      for (float v : x) {
        sum += v;
        abs_sum += std::fabs(v);
      }
      EXPECT_NEAR(isa->sum(x.data(), n), sum, 1e-6 * abs_sum) << isa->name << " n " << n;
    }
    const std::vector<float> negative = {-5.f, -3.f, -4.f};
    EXPECT_EQ(isa->max(negative.data(), 3), -3.f) << isa->name;
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
