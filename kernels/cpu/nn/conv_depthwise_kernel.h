// The row kernels of the fp32 depthwise convolution (conv_depthwise.h),
// written once over the vector interface of gemm_f32_ukernel.h and
// instantiated by each instruction-set path. As with the GEMM micro-kernel,
// a path's file includes this header inside its target region after every
// other header, and every function here is a template on the path's vector
// interface V (internal linkage), so no copy compiled for one ISA is shared
// with another path.
//
// Only the register blocks the row loop can reach are instantiated: blocks
// of several rows are taken for rows of one vector (4 rows) or two (2 rows)
// only, so each (kernel size, strides) row kernel has 6 blocks. The row
// stride stays a template parameter: at stride 1 the blocks of several rows
// share input rows, which the compiler then loads once.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/nn/conv_depthwise.h"
#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace depthwise_f32 {

// Integer vectors of N bytes (shuffle masks).
template <int N>
struct IntVector;
template <>
struct IntVector<16> {
  typedef int T __attribute__((vector_size(16)));
};
template <>
struct IntVector<32> {
  typedef int T __attribute__((vector_size(32)));
};
template <>
struct IntVector<64> {
  typedef int T __attribute__((vector_size(64)));
};

// Even and odd lanes of the 2 * kLanes floats at p.
template <class V>
inline void Deinterleave(const float* p, float* even, float* odd) {
  using T = typename V::T;
  constexpr int kL = V::kLanes;
  using IntT = typename IntVector<sizeof(T)>::T;
  const T a = V::Load(p), b = V::Load(p + kL);
  IntT even_idx;
  if constexpr (kL == 4) {
    even_idx = IntT{0, 2, 4, 6};
  } else if constexpr (kL == 8) {
    even_idx = IntT{0, 2, 4, 6, 8, 10, 12, 14};
  } else {
    static_assert(kL == 16, "4, 8 or 16 lanes");
    even_idx = IntT{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
  }
  const IntT odd_idx = even_idx + 1;
  V::Store(even, __builtin_shuffle(a, b, even_idx));
  V::Store(odd, __builtin_shuffle(a, b, odd_idx));
}

// Copies input row ih into ring slot `dst`: a padded row (stride 1) or its
// even and odd halves (stride 2, through the staging row).
template <class V, int S>
inline void FillRow(const DepthwiseF32Geometry& g, const DepthwiseF32Layout& l, const float* x, int64_t ih, float* dst,
                    float* staging) {
  const float* src = x + ih * g.in_w;
  if (S == 1) {
    std::memcpy(dst + g.pad_left, src, static_cast<size_t>(g.in_w) * sizeof(float));
    return;
  }
  std::memcpy(staging + g.pad_left, src, static_cast<size_t>(g.in_w) * sizeof(float));
  for (int64_t j = 0; j < l.half; j += V::kLanes) Deinterleave<V>(staging + 2 * j, dst + j, dst + l.half + j);
}

// R output rows x U vectors starting at output column x0. win[j] is the
// slot of input row (first row of the block) + j, for j < (R - 1) * SH + K.
// `res` (null or laid out as y) is added before the activation.
template <class V, int K, int SH, int SW, int R, int U>
inline void Block(const float* const* win, int64_t half, const float* w, typename V::T bias,
                  const gemm_f32::VectorActivation<V>& act, int64_t x0, int64_t ow, float* y, const float* res,
                  int64_t ldy) {
  using T = typename V::T;
  constexpr int kL = V::kLanes;
  T acc[R][U];
  gemm_f32::Unroll<R>([&](auto r) { gemm_f32::Unroll<U>([&](auto u) { acc[r][u] = bias; }); });
  for (int kh = 0; kh < K; ++kh) {
    gemm_f32::Unroll<K>([&](auto kw) {
      const T wv = V::Set1(w[kh * K + kw]);
      // Stride 2: tap kw reads the even half (kw even) or odd half at x0 + kw / 2.
      const int64_t off = SW == 1 ? x0 + kw : (kw % 2 == 0 ? 0 : half) + x0 + kw / 2;
      gemm_f32::Unroll<R>([&](auto r) {
        const float* row = win[r * SH + kh] + off;
        gemm_f32::Unroll<U>([&](auto u) { acc[r][u] = V::MulAdd(wv, V::Load(row + u * kL), acc[r][u]); });
      });
    });
  }
  gemm_f32::Unroll<R>([&](auto r) {
    float* out = y + r * ldy + x0;
    gemm_f32::Unroll<U>([&](auto u) {
      const int64_t rem = ow - x0 - u * kL;
      T v = acc[r][u];
      if (res && rem > 0) {
        const float* rp = res + r * ldy + x0 + u * kL;
        if (rem >= kL) {
          v = V::Add(v, V::Load(rp));
        } else {
          alignas(64) float part[kL] = {};
          std::memcpy(part, rp, static_cast<size_t>(rem) * sizeof(float));
          v = V::Add(v, V::Load(part));
        }
      }
      v = act(v);
      if (rem >= kL) {
        V::Store(out + u * kL, v);
      } else if (rem > 0) {
        alignas(64) float buf[kL];
        V::Store(buf, v);
        std::memcpy(out + u * kL, buf, static_cast<size_t>(rem) * sizeof(float));
      }
    });
  });
}

// All columns of R output rows. R > 1 only for rows of one vector (R = 4)
// or of two (R = 2), so those take a single block.
template <class V, int K, int SH, int SW, int R>
inline void Rows(const float* const* win, int64_t half, const float* w, typename V::T bias,
                 const gemm_f32::VectorActivation<V>& act, int64_t ow, float* y, const float* res, int64_t ldy) {
  constexpr int kL = V::kLanes;
  if constexpr (R > 1) {
    static_assert(R == 2 || R == 4, "blocks of 4 rows of 1 vector or 2 rows of 2");
    Block<V, K, SH, SW, R, R == 4 ? 1 : 2>(win, half, w, bias, act, 0, ow, y, res, ldy);
  } else {
    const int64_t nv = (ow + kL - 1) / kL;
    int64_t v = 0;
    for (; v + 4 <= nv; v += 4) Block<V, K, SH, SW, 1, 4>(win, half, w, bias, act, v * kL, ow, y, res, ldy);
    switch (nv - v) {
      case 3:
        Block<V, K, SH, SW, 1, 3>(win, half, w, bias, act, v * kL, ow, y, res, ldy);
        break;
      case 2:
        Block<V, K, SH, SW, 1, 2>(win, half, w, bias, act, v * kL, ow, y, res, ldy);
        break;
      case 1:
        Block<V, K, SH, SW, 1, 1>(win, half, w, bias, act, v * kL, ow, y, res, ldy);
        break;
      default:
        break;
    }
  }
}

// DepthwiseF32RowsFn for one kernel size and pair of strides. Scratch:
// l.ring slots, then a zero slot, then (stride 2) the staging row.
template <class V, int K, int SH, int SW>
void PlaneRows(const DepthwiseF32Geometry& g, const DepthwiseF32Layout& l, const Activation& activation, const float* x,
               const float* w, float bias, const float* residual, float* y, int64_t oh0, int64_t oh1, float* scratch) {
  using T = typename V::T;
  constexpr int kL = V::kLanes;
  constexpr int kMaxRows = 4;
  constexpr int kWindow = (kMaxRows - 1) * SH + K;
  const float* zero = scratch + l.ring * l.slot;
  float* staging = scratch + (l.ring + 1) * l.slot;
  const gemm_f32::VectorActivation<V> act(activation.none() ? nullptr : &activation);
  const bool scalar_act = act.scalar_after_store();
  const T bv = V::Set1(bias);
  const int64_t nv = (g.out_w + kL - 1) / kL;
  const int rows_per_block = nv == 1 ? 4 : nv == 2 ? 2 : 1;  // Rows' (R, U) blocks rely on it
  int64_t next = -1;  // next input row to copy into the ring (-1: none yet)
  for (int64_t oh = oh0; oh < oh1;) {
    const int r_n = static_cast<int>(oh1 - oh >= rows_per_block ? rows_per_block : 1);
    const int64_t first = oh * SH - g.pad_top;  // input row of tap 0 of row oh
    const int64_t last = first + (r_n - 1) * SH + K - 1;
    const int64_t lo = first < 0 ? 0 : first;
    if (next < lo) next = lo;
    for (; next <= last && next < g.in_h; ++next)
      FillRow<V, SW>(g, l, x, next, scratch + (next % l.ring) * l.slot, staging);
    const float* win[kWindow];
    for (int j = 0; j < (r_n - 1) * SH + K; ++j) {
      const int64_t ih = first + j;
      win[j] = ih >= 0 && ih < g.in_h ? scratch + (ih % l.ring) * l.slot : zero;
    }
    float* out = y + oh * g.out_w;
    const float* res = residual ? residual + oh * g.out_w : nullptr;
    if (r_n == 4) {
      Rows<V, K, SH, SW, 4>(win, l.half, w, bv, act, g.out_w, out, res, g.out_w);
    } else if (r_n == 2) {
      Rows<V, K, SH, SW, 2>(win, l.half, w, bv, act, g.out_w, out, res, g.out_w);
    } else {
      Rows<V, K, SH, SW, 1>(win, l.half, w, bv, act, g.out_w, out, res, g.out_w);
    }
    if (scalar_act) ApplyActivation(activation, out, r_n * g.out_w);
    oh += r_n;
  }
}

template <class V>
void PlaneRowsAny(const DepthwiseF32Geometry& g, const DepthwiseF32Layout& l, const Activation& act, const float* x,
                  const float* w, float bias, const float* residual, float* y, int64_t oh0, int64_t oh1,
                  float* scratch) {
  const int key = g.kernel * 100 + g.stride_h * 10 + g.stride_w;
  switch (key) {
#define LOOM_DW_CASE(K, SH, SW)                                                     \
  case K * 100 + SH * 10 + SW:                                                      \
    PlaneRows<V, K, SH, SW>(g, l, act, x, w, bias, residual, y, oh0, oh1, scratch); \
    return;
    LOOM_DW_CASE(3, 1, 1)
    LOOM_DW_CASE(3, 2, 2)
    LOOM_DW_CASE(5, 1, 1)
    LOOM_DW_CASE(5, 2, 2)
#undef LOOM_DW_CASE
    default:
      return;
  }
}

}  // namespace depthwise_f32
}  // namespace nn
}  // namespace loom
