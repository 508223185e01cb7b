// vector_math.h on every path this CPU runs: dense sweeps against the double
// precision functions of <cmath>, special values, every tail length, in place.
#include "kernels/cpu/math/vector_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace loom {
namespace vmath {
namespace {

using ArrayFn = std::function<void(const VectorMathIsa&, const float*, float*, int64_t)>;
using RefFn = double (*)(double);

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

double Sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }
double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double GeluTanh(double x) {
  const double u = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
  return x * Sigmoid(2 * u);  // 0.5 x (1 + tanh(u)), without its cancellation
}
double Silu(double x) { return x * Sigmoid(x); }
double Swish15(double x) { return x * Sigmoid(1.5 * x); }

// |y - ref| in units of the float spacing at ref (2^-149 at least).
double UlpError(float y, double ref) {
  if (std::isnan(ref)) return std::isnan(y) ? 0 : 1e30;
  const float r = static_cast<float>(ref);  // +-inf beyond the float range
  if (std::isinf(r)) return y == r ? 0 : 1e30;
  if (std::isnan(y) || std::isinf(y)) return 1e30;
  const double spacing = std::fabs(r) >= std::numeric_limits<float>::max()
                             ? std::ldexp(1.0, 104)
                             : static_cast<double>(std::nextafter(std::fabs(r), kInf)) - std::fabs(r);
  return std::fabs(static_cast<double>(y) - ref) / std::max(spacing, std::ldexp(1.0, -149));
}

// Every float between lo and hi, stepping the bit pattern (both signs when
// lo < 0 < hi), plus random values and the special ones.
std::vector<float> Sweep(float lo, float hi, uint32_t step) {
  std::vector<float> v;
  auto add_range = [&](float a, float b) {  // 0 <= a <= b
    uint32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    for (uint64_t i = ia; i <= ib; i += step) {
      const uint32_t bits = static_cast<uint32_t>(i);
      float f;
      std::memcpy(&f, &bits, 4);
      v.push_back(f);
    }
  };
  if (hi > 0) add_range(std::max(lo, 0.f), hi);
  if (lo < 0) {
    const size_t start = v.size();
    add_range(std::max(-hi, 0.f), -lo);
    for (size_t i = start; i < v.size(); ++i) v[i] = -v[i];
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int i = 0; i < 20000; ++i) v.push_back(u(rng));
  return v;
}

// The ulps a float evaluation of x * sigmoid(w) may lose to the rounding of
// w itself (exp amplifies an argument error e to a relative error e):
// |w| / 2 ulps per rounding of w.
double SwishExtra(double x) { return std::fabs(1.5 * x); }
double GeluTanhExtra(double x) { return 3 * std::fabs(1.6 * (x + 0.044715 * x * x * x)); }

// Max ulp error of `fn` against `ref` over `xs` where |ref| >= floor_abs
// (below it, the absolute error is checked against abs_tol instead), with
// extra(x) ulps more allowed where the function is ill-conditioned.
void CheckAccuracy(const std::string& what, const VectorMathIsa& isa, const ArrayFn& fn, RefFn ref,
                   const std::vector<float>& xs, double max_ulp, double floor_abs, double abs_tol,
                   double (*extra)(double)) {
  std::vector<float> y(xs.size());
  fn(isa, xs.data(), y.data(), static_cast<int64_t>(xs.size()));
  double worst = 0;
  float worst_x = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double r = ref(xs[i]);
    double e = UlpError(y[i], r);
    if (std::fabs(r) < floor_abs && std::isfinite(y[i])) e = std::fabs(y[i] - r) <= abs_tol ? 0 : 1e30;
    if (extra && e < 1e30) e = std::max(0.0, e - extra(xs[i]));
    if (e > worst) {
      worst = e;
      worst_x = xs[i];
    }
  }
  EXPECT_LE(worst, max_ulp) << what << " on " << isa.name << ": worst at x = " << worst_x << " (y " <<
      [&] {
        float yy;
        fn(isa, &worst_x, &yy, 1);
        return yy;
      }() << ", expected " << ref(worst_x)
                            << ")";
  ::testing::Test::RecordProperty(what + "_" + isa.name + "_max_ulp", std::to_string(worst));
}

struct UnaryCase {
  const char* name;
  ArrayFn fn;
  RefFn ref;
  float lo, hi;
  double max_ulp;
  double floor_abs = 0, abs_tol = 0;
  double (*extra)(double) = nullptr;
};

std::vector<UnaryCase> Cases() {
  return {
      {"exp", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.exp(x, y, n); },
       [](double x) { return std::exp(x); }, -110.f, 100.f, 2},
      {"sigmoid", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.sigmoid(x, y, n); }, &Sigmoid,
       -110.f, 110.f, 3},
      {"tanh", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.tanh(x, y, n); },
       [](double x) { return std::tanh(x); }, -20.f, 20.f, 3},
      {"erf", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.erf(x, y, n); },
       [](double x) { return std::erf(x); }, -10.f, 10.f, 3},
      // The far negative tail of GELU (x < -5.6, |y| < 1e-7) is checked in absolute terms.
      {"gelu", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.gelu(x, y, n); }, &Gelu, -20.f, 20.f,
       6, 1e-7, 1e-9},
      {"gelu_tanh", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.gelu_tanh(x, y, n); },
       &GeluTanh, -20.f, 20.f, 4, 0, 0, &GeluTanhExtra},
      {"silu", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.swish(x, y, n, 1.f); }, &Silu,
       -110.f, 110.f, 4, 1e-35, 1e-41},
      {"swish1.5", [](const VectorMathIsa& m, const float* x, float* y, int64_t n) { m.swish(x, y, n, 1.5f); },
       &Swish15, -80.f, 80.f, 4, 1e-35, 1e-40, &SwishExtra},
  };
}

class VectorMathTest : public ::testing::TestWithParam<const VectorMathIsa*> {};

TEST_P(VectorMathTest, DenseSweepsWithinUlpBounds) {
  const VectorMathIsa& isa = *GetParam();
  for (const UnaryCase& c : Cases()) {
    // Fine steps through the interesting range, the whole float range coarsely.
    CheckAccuracy(c.name, isa, c.fn, c.ref, Sweep(c.lo, c.hi, 4001), c.max_ulp, c.floor_abs, c.abs_tol, c.extra);
    CheckAccuracy(std::string(c.name) + "_all", isa, c.fn, c.ref,
                  Sweep(-std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), 65521), c.max_ulp,
                  c.floor_abs, c.abs_tol, c.extra);
  }
}

TEST_P(VectorMathTest, SpecialValues) {
  const VectorMathIsa& isa = *GetParam();
  const float fmax = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> xs = {0.f,    -0.f,   tiny,   -tiny,   1e-30f,    -1e-30f, fmax,   -fmax,
                                 kInf,   -kInf,  kNaN,   -kNaN,   88.72f,    88.73f,  -87.4f, -103.f,
                                 -104.f, -200.f, 0.625f, -0.625f, 0.921875f, 4.f};
  for (const UnaryCase& c : Cases()) {
    // All in one call (vectors that mix far and near values take the
    // full-range paths), then each value alone (a vector of it and zeros).
    std::vector<float> y(xs.size()), alone(xs.size());
    c.fn(isa, xs.data(), y.data(), static_cast<int64_t>(xs.size()));
    for (size_t i = 0; i < xs.size(); ++i) c.fn(isa, &xs[i], &alone[i], 1);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double r = c.ref(xs[i]);
      const float x = xs[i];
      for (const float v : {y[i], alone[i]}) {
        if (std::isnan(r)) {
          EXPECT_TRUE(std::isnan(v)) << c.name << "(" << x << ") on " << isa.name << " = " << v;
        } else if (std::fabs(r) < c.floor_abs) {
          EXPECT_NEAR(v, r, c.abs_tol) << c.name << "(" << x << ") on " << isa.name;
        } else {
          EXPECT_LE(UlpError(v, r), c.max_ulp + (c.extra ? c.extra(x) : 0))
              << c.name << "(" << x << ") on " << isa.name << " = " << v << ", expected " << r;
        }
      }
    }
  }
  // The limits exactly.
  float y = 0;
  isa.exp(&xs[8], &y, 1);
  EXPECT_EQ(y, kInf);
  isa.exp(&xs[9], &y, 1);
  EXPECT_EQ(y, 0.f);
  isa.sigmoid(&xs[9], &y, 1);
  EXPECT_EQ(y, 0.f);
  isa.sigmoid(&xs[8], &y, 1);
  EXPECT_EQ(y, 1.f);
  isa.tanh(&xs[7], &y, 1);
  EXPECT_EQ(y, -1.f);
  isa.erf(&xs[6], &y, 1);
  EXPECT_EQ(y, 1.f);
  isa.gelu(&xs[6], &y, 1);
  EXPECT_EQ(y, fmax);
  isa.swish(&xs[6], &y, 1, 1.f);
  EXPECT_EQ(y, fmax);
  isa.tanh(&xs[1], &y, 1);
  EXPECT_TRUE(y == 0.f && std::signbit(y));
}

TEST_P(VectorMathTest, EveryLengthAndInPlace) {
  const VectorMathIsa& isa = *GetParam();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-8.f, 8.f);
  for (int64_t n = 0; n <= 67; ++n) {
    std::vector<float> x(n + 1), y(n + 1, 123.f);
    for (float& v : x) v = u(rng);
    for (const UnaryCase& c : Cases()) {
      c.fn(isa, x.data(), y.data(), n);
      EXPECT_EQ(y[n], 123.f) << c.name << ": wrote past n = " << n;
      std::vector<float> z(x.begin(), x.begin() + n);
      c.fn(isa, z.data(), z.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(z[i], y[i]) << c.name << " in place, n = " << n;
        const double r = c.ref(x[i]);
        if (std::fabs(r) < c.floor_abs) {
          EXPECT_NEAR(y[i], r, c.abs_tol) << c.name << "(" << x[i] << "), n = " << n;
          continue;
        }
        EXPECT_LE(UlpError(y[i], r), c.max_ulp + (c.extra ? c.extra(x[i]) : 0))
            << c.name << "(" << x[i] << "), n = " << n;
      }
    }
  }
}

TEST_P(VectorMathTest, SoftmaxPieces) {
  const VectorMathIsa& isa = *GetParam();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-30.f, 30.f);
  for (int64_t n = 1; n <= 80; n += (n < 40 ? 1 : 13)) {
    std::vector<float> x(n), y(n);
    for (float& v : x) v = u(rng);
    x[rng() % n] = 31.f;  // the maximum, anywhere
    EXPECT_EQ(isa.max(x.data(), n), 31.f) << "n = " << n;
    const float sum = isa.exp_shift_sum(x.data(), y.data(), n, 31.f);
    double ref_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double e = std::exp(static_cast<double>(x[i] - 31.f));
      ref_sum += e;
      EXPECT_LE(UlpError(y[i], e), 2) << "exp_shift_sum element " << i << ", n = " << n;
    }
    EXPECT_NEAR(sum, ref_sum, 1e-6 * ref_sum) << "n = " << n;
    EXPECT_EQ(isa.exp_shift_sum(x.data(), nullptr, n, 31.f), sum);
    isa.scale_add(x.data(), y.data(), n, 0.5f, -1.f);
    for (int64_t i = 0; i < n; ++i) EXPECT_LE(UlpError(y[i], x[i] * 0.5 - 1.0), 1) << "scale_add, n = " << n;
  }
}

// ns per element of the functions a network's activations run, over an
// L1-resident array of typical activation values (reported, not asserted: the
// machine is shared).
TEST_P(VectorMathTest, Timings) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  const VectorMathIsa& isa = *GetParam();
  constexpr int64_t kN = 4096;
  std::mt19937 rng(11);
  std::normal_distribution<float> u(0.f, 4.f);
  std::vector<float> x(kN), y(kN);
  for (float& v : x) v = u(rng);
  for (const UnaryCase& c : Cases()) {
    std::vector<double> ns;
    for (int rep = 0; rep < 31; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 50; ++i) c.fn(isa, x.data(), y.data(), kN);
      ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                   (50.0 * kN));
    }
    std::sort(ns.begin(), ns.end());
    std::printf("%-7s %-10s %6.3f ns/elem\n", isa.name, c.name, ns[ns.size() / 2]);
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, VectorMathTest, ::testing::ValuesIn(SupportedIsas()),
                         [](const ::testing::TestParamInfo<const VectorMathIsa*>& i) {
                           return std::string(i.param->name);
                         });

TEST(VectorMathChoice, ActiveIsSupported) {
  bool found = false;
  for (const VectorMathIsa* isa : SupportedIsas()) found = found || isa == &Active();
  EXPECT_TRUE(found);
  EXPECT_STREQ(SupportedIsas().front()->name, "generic");
}

}  // namespace
}  // namespace vmath
}  // namespace loom
