// The fp32 pooling reductions (pool_f32_isa.h), written once over a GCC
// vector type and instantiated by each instruction-set path. A path's file
// includes this header inside its `#pragma GCC target` region, after every
// other header, with its own vector type: the templates (internal linkage
// through the path's types) are then compiled for that ISA only. Max is
// written `a > b ? a : b`, which is what maxps computes, so NaN-free input
// gives the same bits as the generic kernel's comparisons.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/cpu/nn/pool_f32_isa.h"

namespace loom {
namespace nn {
namespace pool_f32 {

// VF: kLanes floats; VI: kLanes 32-bit ints (the shuffle masks); Tag: a type
// of the path's file (internal linkage), so each path's instantiations stay apart.
template <typename VF, typename VI, typename Tag>
struct PoolImpl {
  static constexpr int kLanes = sizeof(VF) / sizeof(float);
  static_assert(sizeof(VI) == sizeof(VF), "mask type must match");
  static_assert(kPool2dF32Align % kLanes == 0, "phase_len must hold whole vectors");

  static VF Load(const float* p) {
    VF v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, VF v) { std::memcpy(p, &v, sizeof(v)); }
  static VF Set1(float x) { return VF{} + x; }
  static VF Max(VF a, VF b) { return a > b ? a : b; }
  static float Max(float a, float b) { return a > b ? a : b; }

  template <int... I>
  static VI EvenMask(std::integer_sequence<int, I...>) {
    return VI{2 * I...};
  }
  template <int... I>
  static VI OddMask(std::integer_sequence<int, I...>) {
    return VI{(2 * I + 1)...};
  }

  // out = dst[j] for j in [0, n): the vertical reduction of rows [lo, hi).
  template <bool kMax>
  static void Vertical(const float* in, int64_t in_w, int64_t lo, int64_t hi, int64_t n, float* dst) {
    const float* first = in + lo * in_w;
    int64_t j = 0;
    for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
      VF a = Load(first + j), b = Load(first + j + kLanes);
      for (int64_t r = lo + 1; r < hi; ++r) {
        const float* row = in + r * in_w + j;
        a = kMax ? Max(a, Load(row)) : a + Load(row);
        b = kMax ? Max(b, Load(row + kLanes)) : b + Load(row + kLanes);
      }
      Store(dst + j, a);
      Store(dst + j + kLanes, b);
    }
    for (; j + kLanes <= n; j += kLanes) {
      VF a = Load(first + j);
      for (int64_t r = lo + 1; r < hi; ++r) a = kMax ? Max(a, Load(in + r * in_w + j)) : a + Load(in + r * in_w + j);
      Store(dst + j, a);
    }
    for (; j < n; ++j) {
      float a = first[j];
      for (int64_t r = lo + 1; r < hi; ++r) a = kMax ? Max(a, in[r * in_w + j]) : a + in[r * in_w + j];
      dst[j] = a;
    }
  }

  template <bool kMax>
  static void Plane(const Pool2dF32Plan& p, const float* in, float* out, float* scratch) {
    const int64_t s = p.stride_w, len = p.phase_len, line_len = s * len;
    float* line = scratch;
    float* phase = scratch + line_len;
    const float ident = kMax ? -std::numeric_limits<float>::infinity() : 0.f;
    const float empty = kMax ? std::numeric_limits<float>::lowest() : 0.f;
    // The padding columns keep the identity; each row rewrites [pad_left, pad_left + line_cols).
    for (int64_t i = 0; i < line_len; ++i) line[i] = ident;
    const float* src = s == 1 ? line : phase;
    const int64_t* taps = p.tap_offset.data();
    const int64_t kw = p.kernel_w, ow_n = p.out_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      float* orow = out + oh * ow_n;
      const int64_t lo = p.row_lo[oh], hi = p.row_hi[oh];
      if (lo >= hi) {
        for (int64_t o = 0; o < ow_n; ++o) orow[o] = empty;
        continue;
      }
      Vertical<kMax>(in, p.in_w, lo, hi, p.line_cols, line + p.pad_left);
      if (s == 2) {
        const VI even = EvenMask(std::make_integer_sequence<int, kLanes>());
        const VI odd = OddMask(std::make_integer_sequence<int, kLanes>());
        for (int64_t i = 0; i < len; i += kLanes) {
          const VF a = Load(line + 2 * i), b = Load(line + 2 * i + kLanes);
          Store(phase + i, __builtin_shuffle(a, b, even));
          Store(phase + len + i, __builtin_shuffle(a, b, odd));
        }
      } else if (s > 2) {
        for (int64_t r = 0; r < s; ++r)
          for (int64_t i = 0; i < len; ++i) phase[r * len + i] = line[i * s + r];
      }
      const VF row_count = Set1(p.row_count[oh]);
      for (int64_t o = 0; o < ow_n; o += kLanes) {
        VF acc = Load(src + o);
        for (int64_t k = 1; k < kw; ++k) {
          const VF t = Load(src + taps[k] + o);
          acc = kMax ? Max(acc, t) : acc + t;
        }
        if (!kMax) acc = acc / (row_count * Load(p.col_count.data() + o));
        if (o + kLanes <= ow_n) {
          Store(orow + o, acc);
        } else {
          float tail[kLanes];
          Store(tail, acc);
          for (int64_t i = 0; o + i < ow_n; ++i) orow[o + i] = tail[i];
        }
      }
      for (int64_t o : p.empty_cols) orow[o] = empty;
    }
  }

  static void Pool2d(const Pool2dF32Plan& p, const float* in, float* out, float* scratch) {
    if (p.max) {
      Plane<true>(p, in, out, scratch);
    } else {
      Plane<false>(p, in, out, scratch);
    }
  }

  static float Sum(const float* x, int64_t n) {
    VF a = VF{}, b = VF{}, c = VF{}, d = VF{};
    int64_t i = 0;
    for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
      a += Load(x + i);
      b += Load(x + i + kLanes);
      c += Load(x + i + 2 * kLanes);
      d += Load(x + i + 3 * kLanes);
    }
    for (; i + kLanes <= n; i += kLanes) a += Load(x + i);
    a = (a + b) + (c + d);
    float sum = 0.f;
    for (int l = 0; l < kLanes; ++l) sum += a[l];
    for (; i < n; ++i) sum += x[i];
    return sum;
  }

  static float MaxOf(const float* x, int64_t n) {
    float best = x[0];
    int64_t i = 0;
    if (n >= kLanes) {
      VF a = Load(x), b = a, c = a, d = a;
      for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
        a = Max(a, Load(x + i));
        b = Max(b, Load(x + i + kLanes));
        c = Max(c, Load(x + i + 2 * kLanes));
        d = Max(d, Load(x + i + 3 * kLanes));
      }
      for (; i + kLanes <= n; i += kLanes) a = Max(a, Load(x + i));
      a = Max(Max(a, b), Max(c, d));
      for (int l = 0; l < kLanes; ++l) best = Max(a[l], best);
    }
    for (; i < n; ++i) best = Max(x[i], best);
    return best;
  }

  static constexpr PoolF32Isa MakeIsa(const char* name) { return PoolF32Isa{name, &Pool2d, &Sum, &MaxOf}; }
};

}  // namespace pool_f32
}  // namespace nn
}  // namespace loom
