// The row kernels of the NCHW8c depthwise convolution (conv_nchwc_depthwise.h),
// written once over an 8-float vector interface V (the operations of
// gemm_f32::VectorOps plus MulAdd) and instantiated by each instruction-set
// path. As with the GEMM micro-kernel, a path's file includes this header
// inside its target region after every other header, and every function here
// is a template on V (internal linkage), so no copy compiled for one ISA is
// shared with another.
//
// One output row of one 8-channel block: the kernel rows that fall outside
// the input are skipped (per row, not per tap); the columns run Block, a tile
// of U consecutive pixels with the taps unrolled for a kernel width KW and
// column stride SW known at compile time: per kernel row the KW weight
// vectors stay in registers and each input pixel is loaded once and fed to
// every accumulator that uses it (U * KW multiply-adds for
// (U - 1) * SW + KW + KW loads). A row is blocks of U, then at most one
// block each of U / 2, U / 4, ..., 1; a block that reaches past the interior
// columns (every tap inside the input row) reads a zero pixel for the columns
// outside. Windows without such a compile-time form (other widths, column
// dilation) run CheckedPixel on every pixel.
//
// A path may also give a 16-float pair vector V2 (two consecutive pixels of
// the block, as they lie in memory; with Broadcast8, the 8 weights in both
// halves): column-stride-1 rows then run their interior columns as PairBlock,
// 8 pairs of pixels a tile, then at most one tile each of 4, 2 and 1 pairs,
// and only the edges and a last odd pixel as Block. Planes small enough are
// copied with their padding first, so that every column is interior
// (PlaneRows).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/nn/conv_nchwc_depthwise.h"
#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace depthwise_nchwc {

constexpr int kB = kNchwcBlock;

// The fused activations applied in registers, one type each so the store
// has no per-vector dispatch: Clip (also no activation: bounds -inf, +inf)
// and Relu. The others store the sum and run ApplyActivation over the
// finished row.
template <class V>
struct EpiClip {
  explicit EpiClip(const Activation& a) : lo(V::Set1(a.min)), hi(V::Set1(a.max)) {}
  typename V::T operator()(typename V::T v) const { return V::Min(hi, V::Max(lo, v)); }
  typename V::T lo, hi;
};
template <class V>
struct EpiRelu {
  typename V::T operator()(typename V::T v) const { return V::Max(v, V::Zero()); }
};

// What every pixel of one output row shares.
struct RowArgs {
  const float* x;        // the input plane (H x W x 8)
  const float* w;        // the block's weights (KH x KW x 8)
  const float* res;      // the residual row (OW x 8) or null
  float* y;              // the output row (OW x 8)
  int64_t ih0;           // input row of kernel row 0
  int64_t kh_lo, kh_hi;  // kernel rows inside the input
};

template <class V, class Epi>
inline void StorePixel(const RowArgs& r, int64_t ow, typename V::T v, const Epi& epi) {
  if (r.res) v = V::Add(v, V::Load(r.res + ow * kB));
  V::Store(r.y + ow * kB, epi(v));
}

// Output pixel ow of any window, every tap checked against the input row.
// Two accumulators (even and odd taps) halve the chain of dependent
// multiply-adds.
template <class V, class Epi>
inline void CheckedPixel(const DepthwiseNchwcGeometry& g, const RowArgs& r, typename V::T bias, int64_t ow,
                         const Epi& epi) {
  using T = typename V::T;
  const int64_t iw0 = ow * g.stride_w - g.pad_left, dw = g.dilation_w;
  const int64_t kw_lo = iw0 < 0 ? (-iw0 + dw - 1) / dw : 0;
  const int64_t kw_hi = iw0 > g.in_w - 1 ? 0 : std::min<int64_t>(g.kernel_w, (g.in_w - 1 - iw0) / dw + 1);
  T acc0 = bias, acc1 = V::Zero();
  for (int64_t kh = r.kh_lo; kh < r.kh_hi; ++kh) {
    const float* row = r.x + ((r.ih0 + kh * g.dilation_h) * g.in_w + iw0) * kB;
    const float* wk = r.w + kh * g.kernel_w * kB;
    int64_t kw = kw_lo;
    for (; kw + 1 < kw_hi; kw += 2) {
      acc0 = V::MulAdd(V::Load(row + kw * dw * kB), V::Load(wk + kw * kB), acc0);
      acc1 = V::MulAdd(V::Load(row + (kw + 1) * dw * kB), V::Load(wk + (kw + 1) * kB), acc1);
    }
    if (kw < kw_hi) acc0 = V::MulAdd(V::Load(row + kw * dw * kB), V::Load(wk + kw * kB), acc0);
  }
  StorePixel<V>(r, ow, V::Add(acc0, acc1), epi);
}

// V is a pair vector (16 lanes: two pixels of one block).
template <class V>
constexpr bool kPairs = V::kLanes == 2 * kB;
// Pairs of pixels per PairBlock: 8 accumulators, up to 7 weights and the
// input in the 32 AVX-512 registers.
constexpr int kPairTile = 8;

// The zero pixel an edge block reads for an input column outside the row.
alignas(64) inline constexpr float kZeroPixel[kB] = {};

// U output pixels from ow0 (kernel width KW, column stride SW, column
// dilation 1). kEdge: some input columns lie outside the row and read as
// zeros. Blocks and PairBlocks are inlined into the row loop: a call per
// block of a short row (7 or 14 pixels) cost up to a sixth of a layer.
template <class V, int KW, int SW, int U, bool kEdge, class Epi>
__attribute__((always_inline)) inline void Block(const DepthwiseNchwcGeometry& g, const RowArgs& r, typename V::T bias,
                                                 int64_t ow0, const Epi& epi) {
  using T = typename V::T;
  const int64_t col0 = ow0 * SW - g.pad_left;
  T acc[U];
  gemm_f32::Unroll<U>([&](auto u) { acc[u] = bias; });
  for (int64_t kh = r.kh_lo; kh < r.kh_hi; ++kh) {
    const float* row = r.x + (r.ih0 + kh * g.dilation_h) * g.in_w * kB;
    const float* wk = r.w + kh * KW * kB;
    T wv[KW];
    gemm_f32::Unroll<KW>([&](auto kw) { wv[kw] = V::Load(wk + kw * kB); });
    // Input column col0 + j feeds output pixel u through tap kw = j - u * SW.
    gemm_f32::Unroll<(U - 1) * SW + KW>([&](auto j) {
      const int64_t col = col0 + j;
      T xv;
      if constexpr (kEdge) {
        xv = V::Load(col >= 0 && col < g.in_w ? row + col * kB : kZeroPixel);
      } else {
        xv = V::Load(row + col * kB);
      }
      gemm_f32::Unroll<KW>([&](auto kw) {
        constexpr int d = decltype(j)::value - decltype(kw)::value;
        if constexpr (d >= 0 && d % SW == 0 && d / SW < U) acc[d / SW] = V::MulAdd(xv, wv[kw], acc[d / SW]);
      });
    });
  }
  gemm_f32::Unroll<U>([&](auto u) { StorePixel<V>(r, ow0 + u, acc[u], epi); });
}

// 2U output pixels from ow0 (kernel width KW, column stride 1, column
// dilation 1, every tap inside the input row) on pair vectors: tap kw of pair
// u reads the 16 floats of input columns ow0 + 2u + kw and the one after, so
// input column j (from the first) feeds pair u through tap kw = j - 2u.
template <class V2, int KW, int U, class Epi>
__attribute__((always_inline)) inline void PairBlock(const DepthwiseNchwcGeometry& g, const RowArgs& r,
                                                     typename V2::T bias, int64_t ow0, const Epi& epi) {
  using T = typename V2::T;
  const int64_t col0 = ow0 - g.pad_left;
  T acc[U];
  gemm_f32::Unroll<U>([&](auto u) { acc[u] = bias; });
  for (int64_t kh = r.kh_lo; kh < r.kh_hi; ++kh) {
    const float* row = r.x + ((r.ih0 + kh * g.dilation_h) * g.in_w + col0) * kB;
    const float* wk = r.w + kh * KW * kB;
    T wv[KW];
    gemm_f32::Unroll<KW>([&](auto kw) { wv[kw] = V2::Broadcast8(wk + kw * kB); });
    gemm_f32::Unroll<2 * (U - 1) + KW>([&](auto j) {
      const T xv = V2::Load(row + j * kB);
      gemm_f32::Unroll<KW>([&](auto kw) {
        constexpr int d = decltype(j)::value - decltype(kw)::value;
        if constexpr (d >= 0 && d % 2 == 0 && d / 2 < U) acc[d / 2] = V2::MulAdd(xv, wv[kw], acc[d / 2]);
      });
    });
  }
  gemm_f32::Unroll<U>([&](auto u) {
    const int64_t at = (ow0 + 2 * u) * kB;
    T v = acc[u];
    if (r.res) v = V2::Add(v, V2::Load(r.res + at));
    V2::Store(r.y + at, epi(v));
  });
}

// Output pixels [begin, end) in blocks of U, the rest in at most one block
// each of U / 2, U / 4, ..., 1 (independent, so they overlap in the core as
// one block would). Blocks outside the interior columns of g are edge blocks.
template <class V, int KW, int SW, int U, class Epi>
inline void Span(const DepthwiseNchwcGeometry& g, const RowArgs& r, typename V::T bias, int64_t begin, int64_t end,
                 const Epi& epi) {
  for (; begin + U <= end; begin += U) {
    if (begin >= g.interior_begin && begin + U <= g.interior_end) {
      Block<V, KW, SW, U, false>(g, r, bias, begin, epi);
    } else {
      Block<V, KW, SW, U, true>(g, r, bias, begin, epi);
    }
  }
  if constexpr (U > 1) Span<V, KW, SW, U / 2>(g, r, bias, begin, end, epi);
}

// Interior output pixels from begin (stride 1) as PairBlocks of U pairs,
// then at most one each of U / 2, ..., 1 pairs, up to end; returns the first
// pixel left (at most one before end).
template <class V2, int KW, int U, class Epi>
inline int64_t PairSpan(const DepthwiseNchwcGeometry& g, const RowArgs& r, typename V2::T bias, int64_t begin,
                        int64_t end, const Epi& epi) {
  for (; begin + 2 * U <= end; begin += 2 * U) PairBlock<V2, KW, U>(g, r, bias, begin, epi);
  if constexpr (U > 1) return PairSpan<V2, KW, U / 2>(g, r, bias, begin, end, epi);
  return begin;
}

// Output floats a fused Sigmoid, Tanh or Swish waits for: rows are finished
// in groups of about this size (still in L1) and the activation runs over
// each group, so narrow rows do not each pay the array function's tail.
constexpr int64_t kActivationFloats = 2048;

// The output rows [oh0, oh1) of one plane (see PlaneRows). The geometry and
// the activations are copies: the output stores could alias the caller's,
// which would be reloaded after every store.
template <class V, int U, int KW, int SW, class V2, class Epi, class Epi2>
void Rows(const DepthwiseNchwcGeometry g, const DepthwiseNchwcPlane& p, const Activation& act, const Epi epi,
          const Epi2 epi2, int64_t oh0, int64_t oh1) {
  using T = typename V::T;
  const T bias = p.bias ? V::Load(p.bias) : V::Zero();
  [[maybe_unused]] typename V2::T bias2{};
  if constexpr (kPairs<V2>) bias2 = p.bias ? V2::Broadcast8(p.bias) : V2::Zero();
  const bool row_activation =
      act.kind != ActivationKind::kNone && act.kind != ActivationKind::kRelu && act.kind != ActivationKind::kClip;
  const int64_t row_floats = g.out_w * kB;
  int64_t act_row = oh0;  // the first row the activation has yet to run over
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    RowArgs r;
    r.x = p.x;
    r.w = p.w;
    r.res = p.residual ? p.residual + oh * row_floats : nullptr;
    r.y = p.y + oh * row_floats;
    r.ih0 = oh * g.stride_h - g.pad_top;
    r.kh_lo = r.ih0 < 0 ? (-r.ih0 + g.dilation_h - 1) / g.dilation_h : 0;
    r.kh_hi = r.ih0 > g.in_h - 1 ? 0 : std::min<int64_t>(g.kernel_h, (g.in_h - 1 - r.ih0) / g.dilation_h + 1);
    if constexpr (KW > 0 && SW == 1 && kPairs<V2>) {
      Span<V, KW, SW, U>(g, r, bias, 0, g.interior_begin, epi);
      const int64_t ow = PairSpan<V2, KW, kPairTile>(g, r, bias2, g.interior_begin, g.interior_end, epi2);
      Span<V, KW, SW, U>(g, r, bias, ow, g.out_w, epi);
    } else if constexpr (KW > 0) {
      Span<V, KW, SW, U>(g, r, bias, 0, g.out_w, epi);
    } else {
      for (int64_t ow = 0; ow < g.out_w; ++ow) CheckedPixel<V>(g, r, bias, ow, epi);
    }
    if (row_activation && ((oh + 1 - act_row) * row_floats >= kActivationFloats || oh + 1 == oh1)) {
      ApplyActivation(act, p.y + act_row * row_floats, (oh + 1 - act_row) * row_floats);
      act_row = oh + 1;
    }
  }
}

// Input floats of the padded copy PlaneRows may make on the stack (32 KB:
// a 28 x 28 plane under a 5 x 5 window).
constexpr int64_t kPaddedFloats = 8192;

// Copies the input that output rows [oh0, oh0 + rows) read into buf, a plane
// of `rows` x `cols` pixels with zeros where the windows leave the input:
// buf pixel (i, j) is input pixel (oh0 * stride_h - pad_top + i, j - pad_left).
inline void CopyPadded(const DepthwiseNchwcGeometry& g, const float* x, int64_t oh0, int64_t rows, int64_t cols,
                       float* buf) {
  const int64_t left = std::min(g.pad_left, cols);
  const int64_t mid = std::max<int64_t>(0, std::min(g.in_w, cols - g.pad_left));
  const int64_t ih0 = oh0 * g.stride_h - g.pad_top;
  for (int64_t i = 0; i < rows; ++i, buf += cols * kB) {
    const int64_t ih = ih0 + i;
    if (ih < 0 || ih >= g.in_h) {
      std::memset(buf, 0, cols * kB * sizeof(float));
      continue;
    }
    std::memset(buf, 0, left * kB * sizeof(float));
    std::memcpy(buf + left * kB, x + ih * g.in_w * kB, mid * kB * sizeof(float));
    std::memset(buf + (left + mid) * kB, 0, (cols - left - mid) * kB * sizeof(float));
  }
}

// DepthwiseNchwcRowsFn body for one compile-time window (KW > 0) or the
// checked form of every window (KW == 0), with the activation `epi` applied
// in registers. A compile-time window of column stride 1 whose rows have
// edge columns and whose input fits kPaddedFloats runs on a zero-padded copy
// of that input, where every column is interior and runs in pairs: small
// planes (14 x 14, 7 x 7) are mostly edges. With column stride 2 the copy
// measured slower (its input is four times its output).
template <class V, int U, int KW, int SW, class V2, class Epi, class Epi2>
void PlaneRows(const DepthwiseNchwcGeometry& g, const DepthwiseNchwcPlane& p, const Activation& act, const Epi& epi,
               const Epi2& epi2, int64_t oh0, int64_t oh1) {
  if constexpr (KW > 0 && SW == 1) {
    const int64_t rows = (oh1 - oh0 - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
    const int64_t cols = g.out_w - 1 + KW;
    if ((g.interior_begin > 0 || g.interior_end < g.out_w) && rows * cols * kB <= kPaddedFloats) {
      alignas(64) float buf[kPaddedFloats];
      CopyPadded(g, p.x, oh0, rows, cols, buf);
      DepthwiseNchwcGeometry padded = g;
      padded.in_h = rows;
      padded.in_w = cols;
      padded.pad_top = oh0 * g.stride_h;  // output row oh reads from buf row (oh - oh0) * stride_h
      padded.pad_left = 0;
      padded.interior_begin = 0;
      padded.interior_end = g.out_w;
      DepthwiseNchwcPlane from_buf = p;
      from_buf.x = buf;
      return Rows<V, U, KW, SW, V2>(padded, from_buf, act, epi, epi2, oh0, oh1);
    }
  }
  Rows<V, U, KW, SW, V2>(g, p, act, epi, epi2, oh0, oh1);
}

// PlaneRows for the window and activation of `g` and `act`.
template <class V, int U, int KW, int SW, class V2>
void PlaneRowsWindow(const DepthwiseNchwcGeometry& g, const DepthwiseNchwcPlane& p, const Activation& act, int64_t oh0,
                     int64_t oh1) {
  if (act.kind == ActivationKind::kRelu)
    return PlaneRows<V, U, KW, SW, V2>(g, p, act, EpiRelu<V>(), EpiRelu<V2>(), oh0, oh1);
  const Activation clip = act.kind == ActivationKind::kClip ? act : Activation();
  return PlaneRows<V, U, KW, SW, V2>(g, p, act, EpiClip<V>(clip), EpiClip<V2>(clip), oh0, oh1);
}

// DepthwiseNchwcRowsFn of a path with U-pixel blocks: kernel widths 3, 5
// and 7 with column stride 1 or 2 and column dilation 1 unrolled, anything
// else checked; with a pair vector V2 (else V2 = V), the stride-1 interiors
// in pairs.
template <class V, int U, class V2 = V>
void PlaneRowsAny(const DepthwiseNchwcGeometry& g, const DepthwiseNchwcPlane& p, const Activation& act, int64_t oh0,
                  int64_t oh1) {
  const int64_t key = g.dilation_w == 1 && (g.stride_w == 1 || g.stride_w == 2) ? g.kernel_w * 10 + g.stride_w : 0;
  switch (key) {
#define LOOM_DW_NCHWC_CASE(KW, SW) \
  case KW * 10 + SW:               \
    return PlaneRowsWindow<V, U, KW, SW, V2>(g, p, act, oh0, oh1);
    LOOM_DW_NCHWC_CASE(3, 1)
    LOOM_DW_NCHWC_CASE(3, 2)
    LOOM_DW_NCHWC_CASE(5, 1)
    LOOM_DW_NCHWC_CASE(5, 2)
    LOOM_DW_NCHWC_CASE(7, 1)
    LOOM_DW_NCHWC_CASE(7, 2)
#undef LOOM_DW_NCHWC_CASE
    default:
      return PlaneRowsWindow<V, U, 0, 1, V2>(g, p, act, oh0, oh1);
  }
}

}  // namespace depthwise_nchwc
}  // namespace nn
}  // namespace loom
