// The fp32 depthwise kernels (conv_depthwise.h) on every path this CPU runs,
// against a double-precision reference: random shapes (channels, sizes,
// asymmetric pads, strides, multiplier, bias, each fused activation) and
// 1, 2 and 3 threads.
#include "kernels/cpu/nn/conv_depthwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/thread_pool.h"

namespace loom {
namespace nn {
namespace {

class ConvDepthwiseF32Test : public ::testing::TestWithParam<const DepthwiseF32Isa*> {};

std::string IsaName(const ::testing::TestParamInfo<const DepthwiseF32Isa*>& info) { return info.param->name; }

INSTANTIATE_TEST_SUITE_P(Isas, ConvDepthwiseF32Test, ::testing::ValuesIn(SupportedDepthwiseF32Isas()), IsaName);

struct Case {
  DepthwiseF32Geometry g;
  int64_t in_channels = 0;
  int64_t pad_bottom = 0, pad_right = 0;
  bool bias = false;
  bool residual = false;  // a residual plane per output plane, added before act
  Activation act;
};

double RefActivation(const Activation& a, double v) {
  switch (a.kind) {
    case ActivationKind::kNone:
      return v;
    case ActivationKind::kRelu:
      return v > 0 ? v : 0;
    case ActivationKind::kClip:
      return std::min<double>(a.max, std::max<double>(a.min, v));
    case ActivationKind::kLeakyRelu:
      return v < 0 ? v * a.alpha : v;
    case ActivationKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-v));
    case ActivationKind::kHardSigmoid:
      return std::min(1.0, std::max(0.0, a.alpha * v + a.beta));
    case ActivationKind::kHardSwish:
      return v * std::min(1.0, std::max(0.0, a.alpha * v + a.beta));
    case ActivationKind::kTanh:
      return std::tanh(v);
    case ActivationKind::kSwish:
      return v / (1.0 + std::exp(-a.alpha * v));
  }
  return v;
}

std::vector<double> Reference(const Case& c, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b, const std::vector<float>& r) {
  const DepthwiseF32Geometry& g = c.g;
  std::vector<double> y(static_cast<size_t>(g.batch * g.channels * g.out_h * g.out_w));
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oc = 0; oc < g.channels; ++oc) {
      const float* xp = x.data() + (n * c.in_channels + oc / g.multiplier) * g.in_h * g.in_w;
      for (int64_t oh = 0; oh < g.out_h; ++oh)
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          double acc = c.bias ? b[oc] : 0.0;
          for (int kh = 0; kh < g.kernel; ++kh)
            for (int kw = 0; kw < g.kernel; ++kw) {
              const int64_t ih = oh * g.stride_h - g.pad_top + kh, iw = ow * g.stride_w - g.pad_left + kw;
              if (ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) continue;
              acc += double(w[(oc * g.kernel + kh) * g.kernel + kw]) * xp[ih * g.in_w + iw];
            }
          const size_t i = static_cast<size_t>(((n * g.channels + oc) * g.out_h + oh) * g.out_w + ow);
          if (c.residual) acc += r[i];
          y[i] = RefActivation(c.act, acc);
        }
    }
  return y;
}

Activation MakeActivation(int kind) {
  Activation a;
  a.kind = static_cast<ActivationKind>(kind);
  if (a.kind == ActivationKind::kClip) {
    a.min = 0.f;
    a.max = 0.5f;
  } else if (a.kind == ActivationKind::kLeakyRelu) {
    a.alpha = 0.1f;
  } else if (a.kind == ActivationKind::kHardSigmoid) {
    a.alpha = 0.2f;
    a.beta = 0.5f;
  } else if (a.kind == ActivationKind::kHardSwish) {
    a.alpha = 1.f / 6.f;
    a.beta = 0.5f;
  } else if (a.kind == ActivationKind::kSwish) {
    a.alpha = 1.5f;
  }
  return a;
}

// Runs case c on `isa` with `threads` threads; returns the max error over
// the output, or a huge value when a guard float around y or the scratch
// was written.
void Check(const Case& c, const DepthwiseF32Isa& isa, int threads, std::mt19937* rng, const std::string& what) {
  const DepthwiseF32Geometry& g = c.g;
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(static_cast<size_t>(g.batch * c.in_channels * g.in_h * g.in_w));
  std::vector<float> w(static_cast<size_t>(g.channels * g.kernel * g.kernel)), b(static_cast<size_t>(g.channels));
  for (float& v : x) v = dist(*rng);
  for (float& v : w) v = dist(*rng);
  for (float& v : b) v = dist(*rng);
  // The residual from its own generator: the cases drawn after this one do
  // not depend on it.
  std::vector<float> r(c.residual ? static_cast<size_t>(g.batch * g.channels * g.out_h * g.out_w) : 0);
  std::mt19937 r_rng(static_cast<uint32_t>(r.size()));
  for (float& v : r) v = dist(r_rng);
  const std::vector<double> want = Reference(c, x, w, b, r);
  DepthwiseConvF32 conv(g, c.act, isa);
  constexpr size_t kGuard = 64;
  const float sentinel = 12345.f;
  std::vector<float> y(want.size() + 2 * kGuard, sentinel);
  const size_t scratch_bytes = conv.ScratchBytes(threads);
  std::vector<float> scratch_store(scratch_bytes / sizeof(float) + 16 + kGuard, sentinel);
  float* scratch = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch_store.data()) + 63) / 64 * 64);
  // Garbage in the scratch must not matter.
  for (size_t i = 0; i < scratch_bytes / sizeof(float); ++i) scratch[i] = std::numeric_limits<float>::quiet_NaN();
  StaticThreadPool pool(threads);
  conv.Run(x.data(), w.data(), c.bias ? b.data() : nullptr, y.data() + kGuard, scratch, &pool,
           c.residual ? r.data() : nullptr);
  for (size_t i = 0; i < kGuard; ++i) {
    ASSERT_EQ(y[i], sentinel) << what << " wrote before y";
    ASSERT_EQ(y[kGuard + want.size() + i], sentinel) << what << " wrote after y";
  }
  const float* end = scratch + scratch_bytes / sizeof(float);
  for (size_t i = 0; i < kGuard && end + i < scratch_store.data() + scratch_store.size(); ++i)
    ASSERT_EQ(end[i], sentinel) << what << " wrote after scratch";
  for (size_t i = 0; i < want.size(); ++i) {
    const double tol = 1e-5 * (1 + g.kernel * g.kernel);
    ASSERT_NEAR(y[kGuard + i], want[i], tol) << what << " at " << i;
  }
}

std::string Describe(const Case& c, int threads) {
  const DepthwiseF32Geometry& g = c.g;
  return "N" + std::to_string(g.batch) + " C" + std::to_string(c.in_channels) + " M" + std::to_string(g.channels) +
         " " + std::to_string(g.in_h) + "x" + std::to_string(g.in_w) + " k" + std::to_string(g.kernel) + " s" +
         std::to_string(g.stride_h) + std::to_string(g.stride_w) + " pads " + std::to_string(g.pad_top) + "," +
         std::to_string(g.pad_left) + "," + std::to_string(c.pad_bottom) + "," + std::to_string(c.pad_right) +
         " bias " + std::to_string(c.bias) + " residual " + std::to_string(c.residual) + " act " +
         std::to_string(static_cast<int>(c.act.kind)) + " threads " + std::to_string(threads);
}

// Fills the output dims; false when the output would be empty.
bool Finish(Case* c) {
  DepthwiseF32Geometry& g = c->g;
  g.channels = c->in_channels * g.multiplier;
  g.out_h = (g.in_h + g.pad_top + c->pad_bottom - g.kernel) / g.stride_h + 1;
  g.out_w = (g.in_w + g.pad_left + c->pad_right - g.kernel) / g.stride_w + 1;
  return g.in_h + g.pad_top + c->pad_bottom >= g.kernel && g.in_w + g.pad_left + c->pad_right >= g.kernel;
}

TEST_P(ConvDepthwiseF32Test, MatchesReferenceOnRandomShapes) {
  std::mt19937 rng(1234);
  int checked = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Case c;
    DepthwiseF32Geometry& g = c.g;
    g.batch = 1 + static_cast<int64_t>(rng() % 4 == 0);
    c.in_channels = 1 + rng() % 40;
    g.multiplier = rng() % 5 == 0 ? 2 : 1;
    g.in_h = 1 + rng() % 23;
    g.in_w = 1 + rng() % 23;
    g.kernel = rng() % 3 == 0 ? 5 : 3;
    g.stride_h = g.stride_w = 1 + rng() % 2;
    g.pad_top = rng() % 3;
    g.pad_left = rng() % 3;
    c.pad_bottom = rng() % 3;
    c.pad_right = rng() % 3;
    c.bias = rng() % 2 == 0;
    c.act = MakeActivation(static_cast<int>(rng() % 9));
    c.residual = iter % 3 == 0;
    if (!Finish(&c)) continue;
    const int threads = 1 + iter % 3;
    Check(c, *GetParam(), threads, &rng, Describe(c, threads));
    if (HasFatalFailure()) return;
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

TEST_P(ConvDepthwiseF32Test, MatchesReferenceOnNetworkShapes) {
  std::mt19937 rng(99);
  struct Shape {
    int64_t c, h, k, s, pad;
  };
  for (const Shape& s :
       {Shape{32, 112, 3, 1, 1}, Shape{96, 112, 3, 2, 1}, Shape{144, 56, 3, 1, 1}, Shape{24, 57, 5, 2, 2},
        Shape{40, 14, 5, 1, 2}, Shape{17, 7, 3, 1, 1}, Shape{9, 28, 3, 2, 1}}) {
    for (int threads = 1; threads <= 3; ++threads) {
      Case c;
      c.in_channels = s.c;
      c.g.batch = 1;
      c.g.in_h = c.g.in_w = s.h;
      c.g.kernel = static_cast<int>(s.k);
      c.g.stride_h = c.g.stride_w = static_cast<int>(s.s);
      c.g.pad_top = c.g.pad_left = c.pad_bottom = c.pad_right = s.pad;
      c.bias = true;
      c.act = MakeActivation(static_cast<int>(ActivationKind::kClip));
      ASSERT_TRUE(Finish(&c));
      Check(c, *GetParam(), threads, &rng, Describe(c, threads));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ConvDepthwiseF32, SupportsOnlyItsWindows) {
  EXPECT_TRUE(DepthwiseConvF32::Supports(3, 3, 1, 1, 1, 1));
  EXPECT_TRUE(DepthwiseConvF32::Supports(5, 5, 2, 2, 1, 1));
  EXPECT_FALSE(DepthwiseConvF32::Supports(5, 5, 2, 1, 1, 1));  // mixed strides: Conv's generic loop
  EXPECT_FALSE(DepthwiseConvF32::Supports(3, 5, 1, 1, 1, 1));
  EXPECT_FALSE(DepthwiseConvF32::Supports(7, 7, 1, 1, 1, 1));
  EXPECT_FALSE(DepthwiseConvF32::Supports(3, 3, 3, 3, 1, 1));
  EXPECT_FALSE(DepthwiseConvF32::Supports(3, 3, 1, 1, 2, 2));
}

TEST(ConvDepthwiseF32, ActivePathFollowsTheEnvironment) {
  const char* forced = std::getenv("LOOM_CPU_ISA");
  const DepthwiseF32Isa& active = ActiveDepthwiseF32Isa();
  bool supported = false;
  for (const DepthwiseF32Isa* isa : SupportedDepthwiseF32Isas()) supported = supported || isa == &active;
  EXPECT_TRUE(supported);
  if (forced &&
      (std::strcmp(forced, "generic") == 0 || std::strcmp(forced, "avx2") == 0 || std::strcmp(forced, "avx512") == 0)) {
    bool available = false;
    for (const DepthwiseF32Isa* isa : SupportedDepthwiseF32Isas())
      available = available || std::strcmp(isa->name, forced) == 0;
    if (available) {
      EXPECT_STREQ(active.name, forced);
    }
  }
}

TEST(ConvDepthwiseF32, NarrowRowsAvoidHalfEmptyVectors) {
  const DepthwiseF32Isa& active = ActiveDepthwiseF32Isa();
  EXPECT_EQ(&DepthwiseF32IsaForWidth(9), &active);
  const DepthwiseF32Isa& narrow = DepthwiseF32IsaForWidth(7);
  EXPECT_LE(narrow.lanes, active.lanes);
  bool has8 = false;
  for (const DepthwiseF32Isa* isa : SupportedDepthwiseF32Isas()) has8 = has8 || isa->lanes == 8;
  if (active.lanes == 16 && has8) {
    EXPECT_EQ(narrow.lanes, 8);
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
