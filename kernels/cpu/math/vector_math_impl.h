// The algorithms of vector_math.h on a vector of floats, written once with
// GCC's vector operators and instantiated by each path's file under its own
// `#pragma GCC target`. V provides:
//   T              a GCC vector of kLanes floats
//   I              a GCC vector of kLanes int32
//   MulAdd(a,b,c)  a * b + c (fused where the ISA has FMA)
//   Any(m)         whether any lane of the comparison mask m is set
//   AnyLess(a,b)   Any(a < b), on AVX-512 without a vector of the mask
// Comparisons yield lane masks and `mask ? a : b` selects lane by lane.
// The polynomial coefficients were fitted for this file (a least-squares fit
// reweighted toward equal ripple over the reduced range, in relative error).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cpu/math/vector_math.h"

namespace loom {
namespace vmath {
namespace impl {

template <class V>
struct Math {
  using T = typename V::T;
  using I = typename V::I;
  static constexpr int kLanes = sizeof(T) / sizeof(float);

  static T Set1(float v) { return T{} + v; }
  static T Load(const float* p) {
    T v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, T v) { std::memcpy(p, &v, sizeof(v)); }
  static I Bits(T v) { return __builtin_bit_cast(I, v); }
  static T FromBits(I v) { return __builtin_bit_cast(T, v); }
  static T Abs(T x) { return FromBits(Bits(x) & 0x7fffffff); }
  static I SignBit(T x) { return Bits(x) & static_cast<int32_t>(0x80000000u); }
  static T OrSign(T v, I sign) { return FromBits(Bits(v) | sign); }
  static T Min(T a, T b) { return a < b ? a : b; }
  static T Max(T a, T b) { return a > b ? a : b; }

  // e^r, r = x - n ln 2 (ln 2 split so n * 0.693359375 is exact), as
  // 1 + r + r^2 P(r) on |r| <= ln(2) / 2. (Horner to the end would save an
  // instruction but round differently: int8 calibration of the zoo's most
  // sensitive model, efficientnet_b0, moves by more than that is worth.)
  static T ExpReduced(T x, T n) {
    T r = V::MulAdd(n, Set1(-0.693359375f), x);
    r = V::MulAdd(n, Set1(2.12194440e-4f), r);
    T p = Set1(0.0013814604608342052f);
    p = V::MulAdd(p, r, Set1(0.008368710987269878f));
    p = V::MulAdd(p, r, Set1(0.04166838899254799f));
    p = V::MulAdd(p, r, Set1(0.1666652113199234f));
    p = V::MulAdd(p, r, Set1(0.4999999403953552f));
    return V::MulAdd(p, r * r, r) + Set1(1.f);
  }

  // exp(x) for |x| <= kExpFastLimit (and NaN, which propagates): n =
  // round(x / ln 2) comes out of one multiply-add whose low mantissa bits are
  // then n + 127, the exponent field of 2^n (normal since |n| <= 126).
  static constexpr float kExpFastLimit = 87.f;
  static T ExpInRange(T x) {
    const T shift = Set1(8388608.f + 127.f);  // 2^23 + 127: rounds x / ln 2 to an integer
    const T t = V::MulAdd(x, Set1(1.44269504088896341f), shift);
    const T n = t - shift;
    const T p = ExpReduced(x, n);
    // The shift drops t's exponent field and moves n + 127 into its place
    // (GCC defines the shift of the signed lanes as the bit operation). A NaN
    // x leaves a NaN p, which the product keeps.
    return p * FromBits(Bits(t) << 23);
  }

  // exp(x) for every float x: clamped where the result is already +inf (x >
  // 88.73) or 0 (x < -103.98), so n stays in [-151, 128], and 2^n applied in
  // two halves (subnormal results).
  static T ExpFullRange(T x) {
    T xc = x < Set1(-105.f) ? Set1(-105.f) : x;
    xc = xc > Set1(89.f) ? Set1(89.f) : xc;
    const T shift = Set1(12582912.f);  // 1.5 * 2^23
    const T n = V::MulAdd(xc, Set1(1.44269504088896341f), shift) - shift;
    const T p = ExpReduced(xc, n);
    const I ni = __builtin_convertvector(n, I);
    const I n1 = ni >> 1, n2 = ni - n1;
    const T y = p * FromBits((n1 + 127) << 23) * FromBits((n2 + 127) << 23);
    return x != x ? x : y;
  }

  // The full range only for vectors that need it (rare in networks): a lane
  // with |x| > kExpFastLimit or NaN, whose magnitude bits compare greater.
  static T Exp(T x) {
    const I too_large = (Bits(x) & 0x7fffffff) > Bits(Set1(kExpFastLimit));
    return __builtin_expect(V::Any(too_large), 0) ? ExpFullRange(x) : ExpInRange(x);
  }

  // 1 / (1 + exp(-x)) from the one exponential e = exp(-|x|) <= 1 (no
  // overflow): 1 / (1 + e) for x >= 0, e / (1 + e) below, where subnormal
  // results for x < -87 come from the full-range exp.
  static T SigmoidAnyRange(T x) {
    const T z = FromBits(Bits(x) | static_cast<int32_t>(0x80000000u));  // -|x|
    const T e = __builtin_expect(V::Any(z < Set1(-kExpFastLimit)), 0) ? ExpFullRange(z) : ExpInRange(z);
    const T num = Bits(x) < I{} ? e : Set1(1.f);
    return num / (Set1(1.f) + e);
  }

  // num / (1 + exp(-x)) with exp(-x) in the fast range, where no lane has
  // x < -kExpFastLimit: x > kExpFastLimit reads exp(-kExpFastLimit), with
  // which 1 + e rounds to 1 as it does for every e below it; a NaN x passes
  // the select and the exponential keeps it. One division, no select on
  // the sign: the common path of Sigmoid, Silu and Swish.
  static T OverOnePlusExpNeg(T num, T x) {
    const T m = -x;
    return num / (Set1(1.f) + ExpInRange(m < Set1(-kExpFastLimit) ? Set1(-kExpFastLimit) : m));
  }
  static bool AnyBelowFastRange(T x) { return __builtin_expect(V::AnyLess(x, Set1(-kExpFastLimit)), 0); }

  // x * sigmoid(s).
  static T TimesSigmoid(T x, T s) { return AnyBelowFastRange(s) ? x * SigmoidAnyRange(s) : OverOnePlusExpNeg(x, s); }

  static T Sigmoid(T x) { return AnyBelowFastRange(x) ? SigmoidAnyRange(x) : OverOnePlusExpNeg(Set1(1.f), x); }
  static T Swish(T x, T alpha) { return TimesSigmoid(x, alpha * x); }
  static T Silu(T x) { return TimesSigmoid(x, x); }

  static T Tanh(T x) {
    const T a = Abs(x);
    // |x| < 0.625: |x| + |x|^3 P(x^2).
    const T x2 = a * a;
    T p = Set1(0.002142968587577343f);
    p = V::MulAdd(p, x2, Set1(-0.008177406154572964f));
    p = V::MulAdd(p, x2, Set1(0.021700706332921982f));
    p = V::MulAdd(p, x2, Set1(-0.05394676327705383f));
    p = V::MulAdd(p, x2, Set1(0.1333320587873459f));
    p = V::MulAdd(p, x2, Set1(-0.3333333134651184f));
    const T small = V::MulAdd(p * x2, a, a);
    // Otherwise (1 - e) / (1 + e), e = exp(-2|x|) <= 0.29.
    const T e = Exp(Set1(-2.f) * a);
    const T large = (Set1(1.f) - e) / (Set1(1.f) + e);
    return OrSign(a < Set1(0.625f) ? small : large, SignBit(x));
  }

  // erf(a) / a = P(a^2) for |a| < kErfSmall.
  static constexpr float kErfSmall = 0.921875f;
  static T ErfSmallOverX(T x2) {
    T p = Set1(8.370424620807171e-05f);
    p = V::MulAdd(p, x2, Set1(-0.000814279424957931f));
    p = V::MulAdd(p, x2, Set1(0.0052010416984558105f));
    p = V::MulAdd(p, x2, Set1(-0.026859402656555176f));
    p = V::MulAdd(p, x2, Set1(0.11283695697784424f));
    p = V::MulAdd(p, x2, Set1(-0.37612634897232056f));
    return V::MulAdd(p, x2, Set1(1.128379225730896f));
  }

  // erfc(c |z|) for c |z| >= kErfSmall (z not NaN; c^2 exact): exp(-c^2 z^2) g(a),
  // g a polynomial in a - 2.5, a = c |z|, fitted on [kErfSmall, 4] in relative
  // error (beyond 4, where erf rounds to 1, g(4) is used: erfc keeps an
  // absolute error < 2e-9, and it is 0 from a = 10.5 on). z^2 is h^2 + d, h
  // = |z| rounded to 12 bits (h^2 exact) and d = (|z| - h)(|z| + h) small, so
  // the rounding of neither z^2 nor c z reaches the exponential.
  static T ErfcLarge(T z, float c, float c2) {
    const T az = Min(Abs(z), Set1(10.5f / c));
    const T s = Min(az * Set1(c), Set1(4.f)) - Set1(2.5f);
    T g = Set1(-4.5715049168393307e-07f);
    g = V::MulAdd(g, s, Set1(1.7144437833849224e-06f));
    g = V::MulAdd(g, s, Set1(-3.5873404158337507e-06f));
    g = V::MulAdd(g, s, Set1(1.4131512216408737e-05f));
    g = V::MulAdd(g, s, Set1(-5.9808793594129384e-05f));
    g = V::MulAdd(g, s, Set1(0.00021336987265385687f));
    g = V::MulAdd(g, s, Set1(-0.0007329518557526171f));
    g = V::MulAdd(g, s, Set1(0.0024656986352056265f));
    g = V::MulAdd(g, s, Set1(-0.008001740090548992f));
    g = V::MulAdd(g, s, Set1(0.024938272312283516f));
    g = V::MulAdd(g, s, Set1(-0.07434733211994171f));
    g = V::MulAdd(g, s, Set1(0.21080635488033295f));
    const T h = FromBits(Bits(az) & static_cast<int32_t>(0xfffff000u));
    const T d = (az - h) * (az + h) * Set1(c2);
    // exp(-d) = 1 - d + d^2/2 - d^3/6 (d < 2^-7).
    T ed = V::MulAdd(d, Set1(-1.f / 6.f), Set1(0.5f));
    ed = V::MulAdd(ed, d, Set1(-1.f));
    ed = V::MulAdd(ed, d, Set1(1.f));
    return Exp(-(h * h * Set1(c2))) * ed * g;
  }

  static T Erf(T x) {
    const T a = Abs(x);
    const T small = a * ErfSmallOverX(a * a);
    const T large = Set1(1.f) - ErfcLarge(x, 1.f, 1.f);
    return x != x ? x : OrSign(a < Set1(kErfSmall) ? small : large, SignBit(x));
  }

  // x Phi(x) = x (1 + erf(t)) / 2, t = x / sqrt(2); for t <= -kErfSmall,
  // 1 + erf(t) is erfc(|t|) computed directly (no cancellation).
  static T Gelu(T x) {
    const T t = x * Set1(0.70710678118654752f);
    const T a = Abs(t);
    const T small = V::MulAdd(t, ErfSmallOverX(t * t), Set1(1.f));
    const T ec = ErfcLarge(x, 0.70710678118654752f, 0.5f);
    const T large = t < T{} ? ec : Set1(2.f) - ec;
    return Set1(0.5f) * x * (a < Set1(kErfSmall) ? small : large);
  }

  // x (1 + tanh(u)) / 2 = x sigmoid(2u), u = sqrt(2 / pi) (x + 0.044715 x^3).
  static T GeluTanh(T x) {
    const T u2 = Set1(2.f * 0.79788456080286536f) * V::MulAdd(Set1(0.044715f) * x * x, x, x);
    return TimesSigmoid(x, u2);
  }
};

// y[i] = F(x[i]) over whole vectors; the tail goes through a padded copy.
template <class M, class F>
inline void Map(const float* x, float* y, int64_t n, const F& f) {
  constexpr int kL = M::kLanes;
  int64_t i = 0;
  for (; i + 2 * kL <= n; i += 2 * kL) {
    const typename M::T a = f(M::Load(x + i)), b = f(M::Load(x + i + kL));
    M::Store(y + i, a);
    M::Store(y + i + kL, b);
  }
  for (; i + kL <= n; i += kL) M::Store(y + i, f(M::Load(x + i)));
  if (i < n) {
    float buf[kL] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(float));
    M::Store(buf, f(M::Load(buf)));
    std::memcpy(y + i, buf, (n - i) * sizeof(float));
  }
}

template <class V>
struct Arrays {
  using M = Math<V>;
  using T = typename M::T;
  static constexpr int kL = M::kLanes;

  // The functions as functors (lambdas would not inherit the target pragma).
  struct ExpF {
    T operator()(T v) const { return M::Exp(v); }
  };
  struct SigmoidF {
    T operator()(T v) const { return M::Sigmoid(v); }
  };
  struct TanhF {
    T operator()(T v) const { return M::Tanh(v); }
  };
  struct ErfF {
    T operator()(T v) const { return M::Erf(v); }
  };
  struct GeluF {
    T operator()(T v) const { return M::Gelu(v); }
  };
  struct GeluTanhF {
    T operator()(T v) const { return M::GeluTanh(v); }
  };
  struct SwishF {
    T alpha;
    T operator()(T v) const { return M::Swish(v, alpha); }
  };
  struct SiluF {
    T operator()(T v) const { return M::Silu(v); }
  };
  struct ScaleAddF {
    T s, b;
    T operator()(T v) const { return V::MulAdd(v, s, b); }
  };

  static void Exp(const float* x, float* y, int64_t n) { Map<M>(x, y, n, ExpF()); }
  static void Sigmoid(const float* x, float* y, int64_t n) { Map<M>(x, y, n, SigmoidF()); }
  static void Tanh(const float* x, float* y, int64_t n) { Map<M>(x, y, n, TanhF()); }
  static void Erf(const float* x, float* y, int64_t n) { Map<M>(x, y, n, ErfF()); }
  static void Gelu(const float* x, float* y, int64_t n) { Map<M>(x, y, n, GeluF()); }
  static void GeluTanh(const float* x, float* y, int64_t n) { Map<M>(x, y, n, GeluTanhF()); }
  static void Swish(const float* x, float* y, int64_t n, float alpha) {
    if (alpha == 1.f) return Map<M>(x, y, n, SiluF());
    Map<M>(x, y, n, SwishF{M::Set1(alpha)});
  }
  static void ScaleAdd(const float* x, float* y, int64_t n, float s, float b) {
    Map<M>(x, y, n, ScaleAddF{M::Set1(s), M::Set1(b)});
  }

  static float HorizontalMax(T v) {
    float l[kL];
    M::Store(l, v);
    float m = l[0];
    for (int j = 1; j < kL; ++j) m = l[j] > m ? l[j] : m;
    return m;
  }
  static float HorizontalSum(T v) {
    float l[kL];
    M::Store(l, v);
    float s = 0.f;
    for (int j = 0; j < kL; ++j) s += l[j];
    return s;
  }

  static float Max(const float* x, int64_t n) {
    int64_t i = 0;
    float m = x[0];
    if (n >= kL) {
      T a = M::Load(x), b = a;
      for (i = kL; i + 2 * kL <= n; i += 2 * kL) {
        a = M::Max(a, M::Load(x + i));
        b = M::Max(b, M::Load(x + i + kL));
      }
      for (; i + kL <= n; i += kL) a = M::Max(a, M::Load(x + i));
      m = HorizontalMax(M::Max(a, b));
    }
    for (; i < n; ++i) m = x[i] > m ? x[i] : m;
    return m;
  }

  static float ExpShiftSum(const float* x, float* y, int64_t n, float shift) {
    const T sh = M::Set1(shift);
    T s0{}, s1{};
    int64_t i = 0;
    for (; i + 2 * kL <= n; i += 2 * kL) {
      const T a = M::Exp(M::Load(x + i) - sh), b = M::Exp(M::Load(x + i + kL) - sh);
      if (y) {
        M::Store(y + i, a);
        M::Store(y + i + kL, b);
      }
      s0 += a;
      s1 += b;
    }
    for (; i + kL <= n; i += kL) {
      const T a = M::Exp(M::Load(x + i) - sh);
      if (y) M::Store(y + i, a);
      s0 += a;
    }
    float sum = HorizontalSum(s0 + s1);
    if (i < n) {
      float buf[kL];
      for (int j = 0; j < kL; ++j) buf[j] = i + j < n ? x[i + j] : shift;
      M::Store(buf, M::Exp(M::Load(buf) - sh));
      for (int64_t j = 0; i + j < n; ++j) {
        if (y) y[i + j] = buf[j];
        sum += buf[j];
      }
    }
    return sum;
  }

  static constexpr VectorMathIsa Table(const char* name) {
    return {name, kL, &Exp, &Sigmoid, &Tanh, &Erf, &Gelu, &GeluTanh, &Swish, &Max, &ExpShiftSum, &ScaleAdd};
  }
};

}  // namespace impl
}  // namespace vmath
}  // namespace loom
