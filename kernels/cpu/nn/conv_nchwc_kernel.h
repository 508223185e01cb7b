// The tiles of loom.ConvNchwc and loom.ConvNchwcStem (conv_nchwc.h), written
// once over an 8-float vector interface V (nchwc_vector.h) and instantiated
// by each path's file.
// A path may also instantiate the tiles of 2 and 4 blocks over a 16-float
// "pair" vector (V::kLanes == 16, with LoadPair/StorePair: the low 8 lanes
// from or to one address, the high 8 from or to another): one accumulator
// holds one pixel's 16 output channels of two blocks (kTileOf gives the
// pixels). Bias is read as 16 consecutive channels; residual and output per
// block; weights from W with the blocks of each pair interleaved
// (PairWeights: one 16-float run per input channel and tap), so that one
// load fills a pair vector.
// As with the GEMM micro-kernel (gemm_f32_ukernel.h), a path's file includes
// this header inside its target region after every other header, and every
// function here is a template on V (internal linkage), so no copy compiled
// for one ISA is shared with another path.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/cpu/nn/conv_nchwc.h"
#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace conv_nchwc {

using gemm_f32::VectorActivation;

#define LOOM_NCHWC_INLINE __attribute__((always_inline)) inline

// f(std::integral_constant<int, 0>()), ..., f(std::integral_constant<int, N - 1>()),
// forced inline (with lambdas marked LOOM_NCHWC_LAMBDA) so that the tile's
// accumulators stay in registers.
template <typename F, int... I>
LOOM_NCHWC_INLINE void UnrollImpl(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>()), ...);
}
template <int N, typename F>
LOOM_NCHWC_INLINE void Unroll(F&& f) {
  UnrollImpl(f, std::make_integer_sequence<int, N>());
}
#define LOOM_NCHWC_LAMBDA __attribute__((always_inline))

constexpr int kB = kNchwcBlock;

// V's vectors hold two blocks (only tiles of 2 or 4 blocks use it).
template <class V>
constexpr bool kPairVector = V::kLanes == 2 * kB;
template <class V>
constexpr int kBlocksPerVector = kPairVector<V> ? 2 : 1;
// Floats of W per input channel (and tap) of one accumulator row: a block's 8
// output channels, or with pair vectors (W paired) a pair's 16.
template <class V>
constexpr int kWeightRun = kPairVector<V> ? 2 * kB : kB;
// Accumulator rows of a tile of NB blocks.
template <class V, int NB>
constexpr int kAccRows = NB / kBlocksPerVector<V>;
// Output pixels per register tile of NB blocks: 12 accumulators with 8-float
// vectors (6 pixels x 2 blocks, or 12 pixels of an odd last block); with
// pair vectors 24 of the 32 AVX-512 registers for 8 blocks (6 pixels: one
// broadcast feeds four multiply-adds, the general tiles of long rows), 21
// for 6 (7 pixels: three, rows of 7 to 11), 24 for 4 (12 pixels: two), 16
// for 2 (each multiply-add broadcasts its own input from memory).
template <class V, int NB>
constexpr int TileOf() {
  if (!kPairVector<V>) return NB == 2 ? 6 : 12;
  switch (NB) {
    case 8:
      return 6;
    case 6:
      return 7;
    case 4:
      return 12;
    default:
      return 16;
  }
}
template <class V, int NB>
constexpr int kTileOf = TileOf<V, NB>();

// One vector of V from the blocks at p and, for a pair vector, p + stride
// (and its store).
template <class V>
LOOM_NCHWC_INLINE typename V::T LoadBlocks(const float* p, [[maybe_unused]] int64_t stride) {
  if constexpr (kPairVector<V>) {
    return V::LoadPair(p, p + stride);
  } else {
    return V::Load(p);
  }
}
template <class V>
LOOM_NCHWC_INLINE void StoreBlocks(float* p, [[maybe_unused]] int64_t stride, typename V::T v) {
  if constexpr (kPairVector<V>) {
    V::StorePair(p, p + stride, v);
  } else {
    V::Store(p, v);
  }
}

// The input outside the image: 8 zero channels.
alignas(32) inline constexpr float kZeros[kB] = {};

// acc[r][j] += W_r(ci, :) * x_j[ci] for the 8 input channels of one input
// block: px[j] is pixel j's 8 channels, w the 8 x kWeightRun (ci, co)
// weights of accumulator row 0 for that input block and tap, w_stride floats
// from one block's weights to the next's; W_r the weights of accumulator row
// r's block(s).
template <class V, int NP, int NB>
LOOM_NCHWC_INLINE void Fma8(typename V::T (&acc)[kAccRows<V, NB>][NP], const float* const (&px)[NP], const float* w,
                            int64_t w_stride) {
  using T = typename V::T;
  constexpr int kRows = kAccRows<V, NB>;
  Unroll<kB>([&](auto ci) LOOM_NCHWC_LAMBDA {
    T a[kRows];
    Unroll<kRows>(
        [&](auto r) LOOM_NCHWC_LAMBDA { a[r] = V::Load(w + r * kBlocksPerVector<V> * w_stride + ci * kWeightRun<V>); });
    Unroll<NP>([&](auto j) LOOM_NCHWC_LAMBDA {
      const T xv = V::Set1(px[j][ci]);
      Unroll<kRows>([&](auto r) LOOM_NCHWC_LAMBDA { acc[r][j] = V::MulAdd(a[r], xv, acc[r][j]); });
    });
  });
}

// Stores the tile at y (pixel 0 of block 0; blocks `block_stride` floats
// apart) after adding the bias and the residual (laid out as y) and applying
// f, the activation.
template <class V, int NP, int NB, typename F>
LOOM_NCHWC_INLINE void StoreTileWith(const typename V::T (&acc)[kAccRows<V, NB>][NP], F f, const float* bias,
                                     const float* residual, float* y, int64_t block_stride) {
  using T = typename V::T;
  Unroll<kAccRows<V, NB>>([&](auto row) LOOM_NCHWC_LAMBDA {
    constexpr int b = decltype(row)::value * kBlocksPerVector<V>;  // the row's first block
    const T bv = bias ? V::Load(bias + b * kB) : V::Zero();
    float* out = y + b * block_stride;
    const float* r = residual ? residual + b * block_stride : nullptr;
    Unroll<NP>([&](auto j) LOOM_NCHWC_LAMBDA {
      T v = V::Add(acc[row][j], bv);
      if (r) v = V::Add(v, LoadBlocks<V>(r + j * kB, block_stride));
      StoreBlocks<V>(out + j * kB, block_stride, f(v));
    });
  });
}

// The activations StoreTile applies (function objects: lambdas would not
// take the path's target options). Relu maps NaN to 0 and Clip keeps it, as
// ApplyActivation does; no activation is a Clip to [-inf, inf].
template <class V>
struct ReluActivation {
  LOOM_NCHWC_INLINE typename V::T operator()(typename V::T v) const { return V::Max(v, V::Zero()); }
};
template <class V>
struct ClipActivation {
  typename V::T lo, hi;
  LOOM_NCHWC_INLINE typename V::T operator()(typename V::T v) const { return V::Min(hi, V::Max(lo, v)); }
};
template <class V>
struct AnyActivation {
  const VectorActivation<V>* act;
  LOOM_NCHWC_INLINE typename V::T operator()(typename V::T v) const { return (*act)(v); }
};

// StoreTileWith with the activation chosen once per tile: Relu, Clip and no
// activation (Sigmoid, Tanh and Swish are the caller's) inline, the other
// piecewise-linear ones through VectorActivation. Three copies of the
// epilogue per tile (no activation is the Clip copy's), as each is inlined
// into every tile instantiation.
template <class V, int NP, int NB>
LOOM_NCHWC_INLINE void StoreTile(const typename V::T (&acc)[kAccRows<V, NB>][NP], const VectorActivation<V>& act,
                                 const float* bias, const float* residual, float* y, int64_t block_stride) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  switch (act.kind) {
    case ActivationKind::kRelu:
      return StoreTileWith<V, NP, NB>(acc, ReluActivation<V>(), bias, residual, y, block_stride);
    case ActivationKind::kLeakyRelu:
    case ActivationKind::kHardSigmoid:
    case ActivationKind::kHardSwish:
      return StoreTileWith<V, NP, NB>(acc, AnyActivation<V>{&act}, bias, residual, y, block_stride);
    default: {
      const bool clip = act.kind == ActivationKind::kClip;
      const ClipActivation<V> f{clip ? act.lo : V::Set1(-kInf), clip ? act.hi : V::Set1(kInf)};
      return StoreTileWith<V, NP, NB>(acc, f, bias, residual, y, block_stride);
    }
  }
}

template <class V, int NP, int NB>
LOOM_NCHWC_INLINE void ZeroTile(typename V::T (&acc)[kAccRows<V, NB>][NP]) {
  Unroll<kAccRows<V, NB>>(
      [&](auto b) LOOM_NCHWC_LAMBDA { Unroll<NP>([&](auto j) LOOM_NCHWC_LAMBDA { acc[b][j] = V::Zero(); }); });
}

// Splits [begin, end) into ceil(len / kMax) tiles of nearly equal widths
// (so no tile is much narrower than the others) and calls f(start, width).
template <int kMax, typename F>
inline void ForEachTile(int64_t begin, int64_t end, F&& f) {
  const int64_t len = end - begin;
  if (len <= 0) return;
  const int64_t tiles = (len + kMax - 1) / kMax, base = len / tiles, extra = len % tiles;
  for (int64_t t = 0, p = begin; t < tiles; ++t) {
    const int width = static_cast<int>(base + (t < extra ? 1 : 0));
    f(p, width);
    p += width;
  }
}

// f(std::integral_constant<int, width>()) for a width of 1 to N.
template <int N, typename F>
inline void WithWidth(int width, F&& f) {
  if constexpr (N > 1) {
    if (width < N) return WithWidth<N - 1>(width, f);
  }
  f(std::integral_constant<int, N>());
}

// Pointwise: NP pixels from flattened pixel p. A function of its own per
// tile shape (accumulators stay in registers).
template <class V, int NP, int NB>
__attribute__((noinline)) void PointwiseTile(const ConvNchwcGeometry& g, const VectorActivation<V>& act,
                                             const ConvNchwcWork& wk, int64_t p) {
  typename V::T acc[kAccRows<V, NB>][NP];
  ZeroTile<V, NP, NB>(acc);
  const int64_t plane = g.in_h * g.in_w * kB, w_stride = g.in_blocks * kB * kB;
  const float* x = wk.x + p * kB;
  const float* w = wk.w;
  for (int64_t ib = 0; ib < g.in_blocks; ++ib, x += plane, w += kB * kWeightRun<V>) {
    const float* px[NP];
    Unroll<NP>([&](auto j) LOOM_NCHWC_LAMBDA { px[j] = x + j * kB; });
    Fma8<V, NP, NB>(acc, px, w, w_stride);
  }
  StoreTile<V, NP, NB>(acc, act, wk.bias, wk.residual ? wk.residual + p * kB : nullptr, wk.y + p * kB,
                       g.out_h * g.out_w * kB);
}

template <class V, int NB>
void PointwiseBlocks(const ConvNchwcGeometry& g, const VectorActivation<V>& act, const ConvNchwcWork& wk) {
  ForEachTile<kTileOf<V, NB>>(wk.begin, wk.end, [&](int64_t p, int width) {
    WithWidth<kTileOf<V, NB>>(width, [&](auto np) { PointwiseTile<V, decltype(np)::value, NB>(g, act, wk, p); });
  });
}

// The work's blocks [first, first + blocks).
inline ConvNchwcWork SubWork(const ConvNchwcGeometry& g, ConvNchwcWork wk, int first, int blocks) {
  const int64_t out_plane = g.out_h * g.out_w * kB;
  wk.w += first * g.in_channels * g.kernel_h * g.kernel_w * kB;  // both layouts
  if (wk.bias) wk.bias += first * kB;
  if (wk.residual) wk.residual += first * out_plane;
  wk.y += first * out_plane;
  wk.blocks = blocks;
  return wk;
}

// f(std::integral_constant<int, NB>(), v, act, work) over the work's blocks:
// NB 8 or 4 (a pair-vector V2 only) or 2 with v a V2 value naming the vector
// type, 1 with a V1 value (3 blocks: 2 then 1; 5 to 7: 4 then the rest); act
// the activation as a VectorActivation of it: the body of a ConvNchwcFn.
template <class V2, class V1, typename F>
void WithBlocks(const ConvNchwcGeometry& g, const Activation& activation, const ConvNchwcWork& wk, F&& f) {
  const Activation* a = activation.none() ? nullptr : &activation;
  if constexpr (kPairVector<V2>) {
    if (wk.blocks == 8) return f(std::integral_constant<int, 8>(), V2(), VectorActivation<V2>(a), wk);
    if (wk.blocks == 6) return f(std::integral_constant<int, 6>(), V2(), VectorActivation<V2>(a), wk);
    if (wk.blocks > 4) {
      WithBlocks<V2, V1>(g, activation, SubWork(g, wk, 0, 4), f);
      return WithBlocks<V2, V1>(g, activation, SubWork(g, wk, 4, wk.blocks - 4), f);
    }
    if (wk.blocks == 4) return f(std::integral_constant<int, 4>(), V2(), VectorActivation<V2>(a), wk);
    if (wk.blocks == 3) {
      f(std::integral_constant<int, 2>(), V2(), VectorActivation<V2>(a), SubWork(g, wk, 0, 2));
      return f(std::integral_constant<int, 1>(), V1(), VectorActivation<V1>(a), SubWork(g, wk, 2, 1));
    }
  }
  if (wk.blocks == 2) return f(std::integral_constant<int, 2>(), V2(), VectorActivation<V2>(a), wk);
  f(std::integral_constant<int, 1>(), V1(), VectorActivation<V1>(a), wk);
}

// ConvNchwcFn of the pointwise case: pairs (or, with a pair vector, fours)
// of blocks on V, single blocks on V1.
template <class V, class V1 = V>
void Pointwise(const ConvNchwcGeometry& g, const Activation& activation, const ConvNchwcWork& wk) {
  WithBlocks<V, V1>(g, activation, wk, [&](auto nb, auto v, const auto& act, const ConvNchwcWork& w) {
    PointwiseBlocks<decltype(v), decltype(nb)::value>(g, act, w);
  });
}

// General: NP pixels of output row oh from column ow0. kStrideW 1 or 2: the
// column stride, and every pixel's window inside the input columns (fixed
// offsets from one pointer, no checks); kStrideW 0: any column stride, every
// input pixel checked (a zero vector outside; the NP pointers may not all
// stay in registers). Rows outside the input are skipped for the whole tile.
template <class V, int NP, int NB, int kStrideW>
__attribute__((noinline)) void GeneralTile(const ConvNchwcGeometry& g, const VectorActivation<V>& act,
                                           const ConvNchwcWork& wk, int64_t oh, int64_t ow0) {
  typename V::T acc[kAccRows<V, NB>][NP];
  ZeroTile<V, NP, NB>(acc);
  const int64_t sw = kStrideW ? kStrideW : g.stride_w, kh_n = g.kernel_h, kw_n = g.kernel_w;
  const int64_t dh = g.dilation_h, dw = g.dilation_w, in_h = g.in_h, in_w = g.in_w;
  const int64_t plane = in_h * in_w * kB, row_stride = in_w * kB, taps = kh_n * kw_n * kB * kB;
  const int64_t ih0 = oh * g.stride_h - g.pad_top, iw0 = ow0 * sw - g.pad_left;
  int64_t kh0 = 0, kh1 = kh_n;
  while (kh0 < kh1 && ih0 + kh0 * dh < 0) ++kh0;
  while (kh1 > kh0 && ih0 + (kh1 - 1) * dh >= in_h) --kh1;
  const int64_t w_stride = g.in_blocks * taps;
  constexpr int kWb = kBlocksPerVector<V>;  // W's offsets within a pair scale by 2
  for (int64_t ib = 0; ib < g.in_blocks; ++ib) {
    const float* xb = wk.x + ib * plane;
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* row = xb + (ih0 + kh * dh) * row_stride;
      const int64_t wo = (ib * taps + kh * kw_n * kB * kB) * kWb;
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        const int64_t iw = iw0 + kw * dw;
        const float* px[NP];
        Unroll<NP>([&](auto j) LOOM_NCHWC_LAMBDA {
          const int64_t c = iw + j * sw;
          px[j] = kStrideW || (c >= 0 && c < in_w) ? row + c * kB : kZeros;
        });
        Fma8<V, NP, NB>(acc, px, wk.w + wo + kw * kB * kWeightRun<V>, w_stride);
      }
    }
  }
  const int64_t out = (oh * g.out_w + ow0) * kB;
  StoreTile<V, NP, NB>(acc, act, wk.bias, wk.residual ? wk.residual + out : nullptr, wk.y + out,
                       g.out_h * g.out_w * kB);
}

template <class V, int NB>
void GeneralRows(const ConvNchwcGeometry& g, const VectorActivation<V>& act, const ConvNchwcWork& wk) {
  for (int64_t oh = wk.begin; oh < wk.end; ++oh) {
    ForEachTile<kTileOf<V, NB>>(0, g.out_w, [&](int64_t ow, int width) {
      const bool interior = ow >= g.interior_begin && ow + width <= g.interior_end;
      WithWidth<kTileOf<V, NB>>(width, [&](auto np) {
        constexpr int kNp = decltype(np)::value;
        if (interior && g.stride_w == 1) {
          GeneralTile<V, kNp, NB, 1>(g, act, wk, oh, ow);
        } else if (interior && g.stride_w == 2) {
          GeneralTile<V, kNp, NB, 2>(g, act, wk, oh, ow);
        } else {
          GeneralTile<V, kNp, NB, 0>(g, act, wk, oh, ow);
        }
      });
    });
  }
}

// ConvNchwcFn of the general case: blocks on V and V1 as for Pointwise.
template <class V, class V1 = V>
void General(const ConvNchwcGeometry& g, const Activation& activation, const ConvNchwcWork& wk) {
  WithBlocks<V, V1>(g, activation, wk, [&](auto nb, auto v, const auto& act, const ConvNchwcWork& w) {
    GeneralRows<decltype(v), decltype(nb)::value>(g, act, w);
  });
}

// Stem (loom.ConvNchwcStem): NP pixels of output row oh from column ow0, X
// in NCHW. Per input channel and tap, one scalar of X per pixel is
// broadcast against the 8 output channels of each block. kStrideW is the
// column stride when it is 2 (constant offsets: the usual stem), else 0
// (g.stride_w); kChecked: a column outside the input reads 0 (else every
// pixel's window lies inside the input columns). Rows outside the input are
// skipped for the whole tile. The stem runs once per network and has many
// tile variants (blocks x column strides x checked x widths), so its
// epilogue is the one copy that applies any activation (StoreTile inlines
// three per tile): a third of the ConvNchwc paths' compile time was the
// stem's.
template <class V, int NP, int NB, int kStrideW, bool kChecked>
__attribute__((noinline)) void StemTile(const ConvNchwcGeometry& g, const VectorActivation<V>& act,
                                        const ConvNchwcWork& wk, int64_t oh, int64_t ow0) {
  using T = typename V::T;
  T acc[kAccRows<V, NB>][NP];
  ZeroTile<V, NP, NB>(acc);
  const int64_t sw = kStrideW ? kStrideW : g.stride_w, kh_n = g.kernel_h, kw_n = g.kernel_w;
  const int64_t dh = g.dilation_h, dw = g.dilation_w, in_h = g.in_h, in_w = g.in_w;
  const int64_t ih0 = oh * g.stride_h - g.pad_top, iw0 = ow0 * sw - g.pad_left;
  int64_t kh0 = 0, kh1 = kh_n;
  while (kh0 < kh1 && ih0 + kh0 * dh < 0) ++kh0;
  while (kh1 > kh0 && ih0 + (kh1 - 1) * dh >= in_h) --kh1;
  constexpr int kRows = kAccRows<V, NB>;
  const int64_t w_stride = g.in_channels * kh_n * kw_n * kB;
  for (int64_t ci = 0; ci < g.in_channels; ++ci) {
    const float* xc = wk.x + ci * in_h * in_w;
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* row = xc + (ih0 + kh * dh) * in_w;
      const int64_t wo = (ci * kh_n + kh) * kw_n * kWeightRun<V>;
      for (int64_t kw = 0; kw < kw_n; ++kw) {
        const int64_t iw = iw0 + kw * dw;
        T a[kRows];
        Unroll<kRows>([&](auto r) LOOM_NCHWC_LAMBDA {
          a[r] = V::Load(wk.w + r * kBlocksPerVector<V> * w_stride + wo + kw * kWeightRun<V>);
        });
        Unroll<NP>([&](auto j) LOOM_NCHWC_LAMBDA {
          const int64_t c = iw + j * sw;
          const T xv = V::Set1(!kChecked || (c >= 0 && c < in_w) ? row[c] : 0.f);
          Unroll<kRows>([&](auto r) LOOM_NCHWC_LAMBDA { acc[r][j] = V::MulAdd(a[r], xv, acc[r][j]); });
        });
      }
    }
  }
  const int64_t out = (oh * g.out_w + ow0) * kB;
  StoreTileWith<V, NP, NB>(acc, AnyActivation<V>{&act}, wk.bias, wk.residual ? wk.residual + out : nullptr, wk.y + out,
                           g.out_h * g.out_w * kB);
}

// Splits [begin, end) into tiles of kMax pixels, then of 8, 4, 2 and 1 (the
// binary digits of the rest) and calls f(start, std::integral_constant<int,
// width>()): five tile widths instead of every width up to kMax, as the stem
// has many tile variants (blocks x column strides x checked) and runs once
// per network.
template <int kMax, typename F>
inline void ForEachBinaryTile(int64_t begin, int64_t end, F&& f) {
  int64_t p = begin;
  for (; end - p >= kMax; p += kMax) f(p, std::integral_constant<int, kMax>());
  Unroll<4>([&](auto k) LOOM_NCHWC_LAMBDA {
    constexpr int kWidth = 8 >> decltype(k)::value;
    if constexpr (kWidth < kMax) {
      if (end - p >= kWidth) {
        f(p, std::integral_constant<int, kWidth>());
        p += kWidth;
      }
    }
  });
}

// The columns outside [interior_begin, interior_end) on checked tiles, the
// interior on unchecked ones.
template <class V, int NB, int kStrideW>
void StemRows(const ConvNchwcGeometry& g, const VectorActivation<V>& act, const ConvNchwcWork& wk) {
  const int64_t ib = g.interior_begin, ie = g.interior_end;
  for (int64_t oh = wk.begin; oh < wk.end; ++oh) {
    auto checked = [&](int64_t ow, auto np) {
      StemTile<V, decltype(np)::value, NB, kStrideW, true>(g, act, wk, oh, ow);
    };
    ForEachBinaryTile<kTileOf<V, NB>>(0, ib, checked);
    ForEachBinaryTile<kTileOf<V, NB>>(ib, ie, [&](int64_t ow, auto np) {
      StemTile<V, decltype(np)::value, NB, kStrideW, false>(g, act, wk, oh, ow);
    });
    ForEachBinaryTile<kTileOf<V, NB>>(ie, g.out_w, checked);
  }
}

// ConvNchwcFn of loom.ConvNchwcStem: blocks on V and V1 as for Pointwise.
template <class V, class V1 = V>
void Stem(const ConvNchwcGeometry& g, const Activation& activation, const ConvNchwcWork& wk) {
  WithBlocks<V, V1>(g, activation, wk, [&](auto nb, auto v, const auto& act, const ConvNchwcWork& w) {
    using W = decltype(v);
    constexpr int kNb = decltype(nb)::value;
    if (g.stride_w == 2) return StemRows<W, kNb, 2>(g, act, w);
    StemRows<W, kNb, 0>(g, act, w);
  });
}

}  // namespace conv_nchwc
}  // namespace nn
}  // namespace loom

#undef LOOM_NCHWC_LAMBDA
#undef LOOM_NCHWC_INLINE
