// The NCHWc pooling loops (pool_nchwc.h), written once over an 8-float GCC
// vector type and instantiated by each instruction-set path. A path's file
// includes this header inside its `#pragma GCC target` region, after every
// other header, with its own vector type and tag (internal linkage), so each
// path's instantiations are compiled for that ISA only.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/cpu/nn/pool_nchwc.h"

namespace loom {
namespace nn {
namespace pool_nchwc {

// V: 8 floats (one channel block). P: V itself or a vector of 4 floats, the
// part a max is written over (GCC turns a > b ? a : b over 4-float parts
// into maxps on SSE2, but over a 32-byte vector without AVX into scalars).
template <typename V, typename P, typename Tag>
struct PoolNchwcImpl {
  static_assert(sizeof(V) == kNchwcBlock * sizeof(float), "one vector per channel block");
  static_assert(sizeof(V) % sizeof(P) == 0, "V must hold whole parts");
  static constexpr int64_t kB = kNchwcBlock;

  static V Load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, V v) { std::memcpy(p, &v, sizeof(v)); }
  static V Splat(float x) { return V{} + x; }
  // The NCHW kernel's reduction step (pool_f32_impl.h): maxps' a > b ? a : b.
  static V Max(V a, V b) {
    constexpr int kParts = sizeof(V) / sizeof(P);
    P pa[kParts], pb[kParts];
    std::memcpy(pa, &a, sizeof(a));
    std::memcpy(pb, &b, sizeof(b));
    for (int i = 0; i < kParts; ++i) pa[i] = pa[i] > pb[i] ? pa[i] : pb[i];
    std::memcpy(&a, pa, sizeof(a));
    return a;
  }
  template <bool kMax>
  static V Op(V a, V b) {
    return kMax ? Max(a, b) : a + b;
  }
  template <bool kMax>
  static V Identity() {
    return Splat(kMax ? -std::numeric_limits<float>::infinity() : 0.f);
  }
  template <bool kMax>
  static V Empty() {
    return Splat(kMax ? std::numeric_limits<float>::lowest() : 0.f);
  }

  // One window column: rows x[0], x[stride], ... (KH of them, or nh when KH is 0).
  template <bool kMax, int KH>
  static V Column(const float* x, int64_t row_stride, int64_t nh) {
    const int64_t n = KH ? KH : nh;
    V a = Load(x);
    for (int64_t r = 1; r < n; ++r) a = Op<kMax>(a, Load(x + r * row_stride));
    return a;
  }

  // Interior columns [begin, end) of one output row: every tap inside the
  // input; xr points at the row's first valid input row, column 0.
  template <bool kMax, int KH, int KW>
  static void Interior(const PoolNchwcPlan& p, const float* xr, int64_t nh, V div, int64_t begin, int64_t end,
                       float* yr) {
    const int64_t row_stride = p.in_w * kB, kw = KW ? KW : p.kernel_w, step = p.stride_w * kB;
    const float* x = xr + (begin * p.stride_w - p.pad_left) * kB;
    if (KW == 3 && p.stride_w == 2 && begin < end) {
      // Neighbouring windows share a column: reduce it once.
      V first = Column<kMax, KH>(x, row_stride, nh);
      for (int64_t ow = begin; ow < end; ++ow, x += step) {
        const V last = Column<kMax, KH>(x + 2 * kB, row_stride, nh);
        V acc = Op<kMax>(Op<kMax>(first, Column<kMax, KH>(x + kB, row_stride, nh)), last);
        first = last;
        if (!kMax) acc = acc / div;
        Store(yr + ow * kB, acc);
      }
      return;
    }
    for (int64_t ow = begin; ow < end; ++ow, x += step) {
      V acc = Column<kMax, KH>(x, row_stride, nh);
      for (int64_t k = 1; k < kw; ++k) acc = Op<kMax>(acc, Column<kMax, KH>(x + k * kB, row_stride, nh));
      if (!kMax) acc = acc / div;
      Store(yr + ow * kB, acc);
    }
  }

  // One border column of one output row: taps checked against the column table.
  template <bool kMax>
  static void Border(const PoolNchwcPlan& p, const float* xr, int64_t nh, float row_div, int64_t ow, float* yr) {
    const int64_t lo = p.col_lo[ow], hi = p.col_hi[ow];
    if (lo >= hi) {
      Store(yr + ow * kB, Empty<kMax>());
      return;
    }
    const float* x = xr + (ow * p.stride_w - p.pad_left) * kB;
    V acc = Identity<kMax>();
    for (int64_t k = 0; k < p.kernel_w; ++k) {
      const V t = k >= lo && k < hi ? Column<kMax, 0>(x + k * kB, p.in_w * kB, nh) : Identity<kMax>();
      acc = k == 0 ? t : Op<kMax>(acc, t);
    }
    if (!kMax) acc = acc / Splat(row_div * p.col_div[ow]);
    Store(yr + ow * kB, acc);
  }

  // Dilations 1: the column-first order.
  template <bool kMax, int KH, int KW>
  static void ColumnOrderRows(const PoolNchwcPlan& p, const float* x, float* y, int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t plane = t / p.out_h, oh = t % p.out_h;
      float* yr = y + t * p.OutRow();
      const int64_t lo = p.row_lo[oh], hi = p.row_hi[oh], nh = hi - lo;
      if (nh <= 0) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) Store(yr + ow * kB, Empty<kMax>());
        continue;
      }
      const float* xr = x + plane * p.InPlane() + (oh * p.stride_h - p.pad_top + lo) * p.in_w * kB;
      const float row_div = p.row_div[oh];
      for (int64_t ow = 0; ow < p.interior_lo; ++ow) Border<kMax>(p, xr, nh, row_div, ow, yr);
      const V div = Splat(row_div * static_cast<float>(p.kernel_w));
      if (KH && nh == KH) {
        Interior<kMax, KH, KW>(p, xr, nh, div, p.interior_lo, p.interior_hi, yr);
      } else {
        Interior<kMax, 0, KW>(p, xr, nh, div, p.interior_lo, p.interior_hi, yr);
      }
      for (int64_t ow = p.interior_hi; ow < p.out_w; ++ow) Border<kMax>(p, xr, nh, row_div, ow, yr);
    }
  }

  // Dilations > 1: the valid taps row by row, as the NCHW kernel's generic loop.
  template <bool kMax>
  static void RowOrderRows(const PoolNchwcPlan& p, const float* x, float* y, int64_t begin, int64_t end) {
    const int64_t row_stride = p.dilation_h * p.in_w * kB, tap_step = p.dilation_w * kB;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t plane = t / p.out_h, oh = t % p.out_h;
      float* yr = y + t * p.OutRow();
      const int64_t rlo = p.row_lo[oh], rhi = p.row_hi[oh];
      const float* xp = x + plane * p.InPlane() + (oh * p.stride_h - p.pad_top) * p.in_w * kB;
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const int64_t clo = p.col_lo[ow], chi = p.col_hi[ow];
        if (rlo >= rhi || clo >= chi) {
          Store(yr + ow * kB, Empty<kMax>());
          continue;
        }
        const float* xw = xp + (ow * p.stride_w - p.pad_left) * kB;
        V acc = kMax ? Load(xw + rlo * row_stride + clo * tap_step) : V{};
        for (int64_t i = rlo; i < rhi; ++i)
          for (int64_t j = kMax && i == rlo ? clo + 1 : clo; j < chi; ++j) {
            const V v = Load(xw + i * row_stride + j * tap_step);
            acc = kMax ? Op<true>(v, acc) : acc + v;  // max: a later tap wins only when greater
          }
        if (!kMax) acc = acc / Splat(p.row_div[oh] * p.col_div[ow]);
        Store(yr + ow * kB, acc);
      }
    }
  }

  template <bool kMax>
  static void RowsOf(const PoolNchwcPlan& p, const float* x, float* y, int64_t begin, int64_t end) {
    if (!p.column_order) {
      RowOrderRows<kMax>(p, x, y, begin, end);
    } else if (p.kernel_h == 3 && p.kernel_w == 3) {
      ColumnOrderRows<kMax, 3, 3>(p, x, y, begin, end);
    } else if (p.kernel_h == 2 && p.kernel_w == 2) {
      ColumnOrderRows<kMax, 2, 2>(p, x, y, begin, end);
    } else {
      ColumnOrderRows<kMax, 0, 0>(p, x, y, begin, end);
    }
  }

  static void Rows(const PoolNchwcPlan& p, const float* x, float* y, int64_t begin, int64_t end) {
    if (p.max) {
      RowsOf<true>(p, x, y, begin, end);
    } else {
      RowsOf<false>(p, x, y, begin, end);
    }
  }

  static constexpr PoolNchwcIsa MakeIsa(const char* name) { return PoolNchwcIsa{name, &Rows}; }
};

}  // namespace pool_nchwc
}  // namespace nn
}  // namespace loom
