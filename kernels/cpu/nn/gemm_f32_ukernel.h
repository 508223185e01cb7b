// The fp32 GEMM micro-kernel and packers, written once over a small vector
// interface and instantiated by each instruction-set path (gemm_f32_isa.h).
// A path's file (one per path: the templates take their ISA from the target
// region they are parsed in) includes this header inside that region,
// after every other header (its own includes among them), so only these
// templates, instantiated with the path's vector type (internal linkage), are
// compiled for its ISA; the tables must be constexpr (no dynamic
// initialization may run code of the ISA).
//
// A vector interface V derives from VectorOps (below: loads, stores and the
// lane-wise operators) and adds the two multiply-adds of its ISA:
//   MulAdd(a, b, c) = a * b + c                  (fused where the ISA has it)
//   MulAddA<I>(acc, a, b) = acc + a[I] * b       a: the MR values of one K step
//                                                (broadcast or by-lane FMA)
//
// The micro-kernel keeps an MR x (NV * kLanes) tile of C in MR * NV vector
// registers and walks K: per step NV loads of B, MR broadcasts of A and
// MR * NV multiply-adds. Full tiles are finished in registers (alpha, beta,
// the residual, biases and the piecewise-linear activations; Sigmoid and Tanh afterwards
// on the stored row); partial edge tiles go through StoreGemmF32Tile.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {
namespace gemm_f32 {

// What every vector interface shares, written with GCC's vector operators
// (the SIMD types of every ISA are GCC vector types): VT holds kLanes floats.
// Max and Min are lane-wise a > b ? a : b and a < b ? a : b, as written, which
// gives the fused activations the NaN behaviour of ApplyActivation. Derived
// (the path's own interface, internal linkage) keeps each path's
// instantiations apart.
template <typename VT, typename Derived>
struct VectorOps {
  using T = VT;
  static constexpr int kLanes = sizeof(VT) / sizeof(float);
  static T Zero() { return T{}; }
  static T Set1(float x) { return T{} + x; }
  static T Load(const float* p) {
    T v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, T v) { std::memcpy(p, &v, sizeof(v)); }
  static T Add(T a, T b) { return a + b; }
  static T Mul(T a, T b) { return a * b; }
  static T Max(T a, T b) { return a > b ? a : b; }
  static T Min(T a, T b) { return a < b ? a : b; }
};

// f(std::integral_constant<int, 0>()), ..., f(std::integral_constant<int, N - 1>()):
// loops the compiler must unroll (register arrays, lane immediates).
template <typename F, int... I>
inline void UnrollImpl(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>()), ...);
}
template <int N, typename F>
inline void Unroll(F&& f) {
  UnrollImpl(f, std::make_integer_sequence<int, N>());
}

// The piecewise-linear fused activations on vectors (ApplyActivation's
// semantics); Sigmoid, Tanh and Swish are left to ApplyActivation on the stored row.
template <class V>
struct VectorActivation {
  using T = typename V::T;
  explicit VectorActivation(const Activation* act)
      : kind(act ? act->kind : ActivationKind::kNone),
        lo(V::Set1(act ? act->min : 0.f)),
        hi(V::Set1(act ? act->max : 0.f)),
        alpha(V::Set1(act ? act->alpha : 0.f)),
        beta(V::Set1(act ? act->beta : 0.f)) {}

  bool scalar_after_store() const {
    return kind == ActivationKind::kSigmoid || kind == ActivationKind::kTanh || kind == ActivationKind::kSwish;
  }

  T operator()(T v) const {
    const T zero = V::Zero();
    switch (kind) {
      case ActivationKind::kRelu:
        return V::Max(v, zero);
      case ActivationKind::kClip:
        return V::Min(hi, V::Max(lo, v));
      case ActivationKind::kLeakyRelu:
        return V::MulAdd(V::Min(zero, v), alpha, V::Max(zero, v));
      case ActivationKind::kHardSigmoid:
      case ActivationKind::kHardSwish: {
        const T s = V::Min(V::Set1(1.f), V::Max(zero, V::MulAdd(alpha, v, beta)));
        return kind == ActivationKind::kHardSwish ? V::Mul(v, s) : s;
      }
      default:
        return v;
    }
  }

  ActivationKind kind;
  T lo, hi, alpha, beta;
};

// Finishes a full MR x NR tile held in registers (see GemmF32Tile).
template <class V, int MR, int NV>
inline void StoreFullTile(const typename V::T (&acc)[MR][NV], const GemmF32Tile& t) {
  using T = typename V::T;
  constexpr int kL = V::kLanes;
  // The common cases without per-vector decisions: a plain store (first K
  // block, no alpha/beta) or an accumulation (later blocks), with nothing to
  // finish.
  if (t.alpha == 1.f && (!t.first || t.beta == 0.f) &&
      (!t.last || (!t.row_bias && !t.col_bias && !t.residual && !t.act))) {
    if (t.first) {
      Unroll<MR>([&](auto i) { Unroll<NV>([&](auto j) { V::Store(t.c + i * t.ldc + j * kL, acc[i][j]); }); });
    } else {
      Unroll<MR>([&](auto i) {
        Unroll<NV>([&](auto j) {
          float* c = t.c + i * t.ldc + j * kL;
          V::Store(c, V::Add(acc[i][j], V::Load(c)));
        });
      });
    }
    return;
  }
  const T alpha = V::Set1(t.alpha), beta = V::Set1(t.beta);
  const bool scale = t.alpha != 1.f, accumulate = !t.first, blend = t.first && t.beta != 0.f;
  const bool finish = t.last;
  const VectorActivation<V> act(finish ? t.act : nullptr);
  T col_bias[NV];
  Unroll<NV>([&](auto j) { col_bias[j] = finish && t.col_bias ? V::Load(t.col_bias + j * kL) : V::Zero(); });
  const bool add_col_bias = finish && t.col_bias;
  Unroll<MR>([&](auto i) {
    float* c = t.c + i * t.ldc;
    const float* r = t.residual ? t.residual + i * t.ldc : nullptr;
    const T row_bias = V::Set1(finish && t.row_bias ? t.row_bias[i] : 0.f);
    Unroll<NV>([&](auto j) {
      T v = scale ? V::Mul(acc[i][j], alpha) : acc[i][j];
      if (accumulate) {
        v = V::Add(v, V::Load(c + j * kL));
      } else if (blend) {
        v = V::MulAdd(beta, V::Load(c + j * kL), v);
      }
      if (finish) {
        if (t.residual) v = V::Add(v, V::Load(r + j * kL));
        if (t.row_bias) v = V::Add(v, row_bias);
        if (add_col_bias) v = V::Add(v, col_bias[j]);
        v = act(v);
      }
      V::Store(c + j * kL, v);
    });
    if (act.scalar_after_store()) ApplyActivation(*t.act, c, NV * kL);
  });
}

// The tile of the first R rows of an MR-row A panel. A function of its own
// per R: inlined into one dispatcher, GCC kept the 6 x 16 AVX2 tile's
// accumulators in memory as well as in registers (a store per FMA).
template <class V, int R, int MR, int NV>
__attribute__((noinline)) void MicroKernelRows(int64_t kc, const float* a, const float* b, const GemmF32Tile& tile) {
  using T = typename V::T;
  constexpr int kL = V::kLanes, kNr = NV * kL;
  T acc[R][NV];
  Unroll<R>([&](auto i) { Unroll<NV>([&](auto j) { acc[i][j] = V::Zero(); }); });
  for (int64_t k = 0; k < kc; ++k, a += MR, b += kNr) {
    T bv[NV];
    Unroll<NV>([&](auto j) { bv[j] = V::Load(b + j * kL); });
    Unroll<R>([&](auto i) {
      Unroll<NV>([&](auto j) { acc[i][j] = V::template MulAddA<decltype(i)::value>(acc[i][j], a, bv[j]); });
    });
  }
  if (tile.rows == R && tile.cols == kNr) {
    StoreFullTile<V, R, NV>(acc, tile);
    return;
  }
  alignas(64) float buf[R * kNr];
  Unroll<R>([&](auto i) { Unroll<NV>([&](auto j) { V::Store(buf + i * kNr + j * kL, acc[i][j]); }); });
  StoreGemmF32Tile(tile, buf, kNr);
}

// A tile with few valid rows (the last row panel of M) runs a shorter
// kernel: 2/3 or 1/3 of MR rows, rounded down.
template <class V, int MR, int NV>
void MicroKernel(int64_t kc, const float* a, const float* b, const GemmF32Tile& tile) {
  constexpr int kR2 = MR * 2 / 3 > 0 ? MR * 2 / 3 : 1, kR1 = MR / 3 > 0 ? MR / 3 : 1;
  if (tile.rows > kR2) {
    MicroKernelRows<V, MR, MR, NV>(kc, a, b, tile);
  } else if (tile.rows > kR1) {
    MicroKernelRows<V, kR2, MR, NV>(kc, a, b, tile);
  } else {
    MicroKernelRows<V, kR1, MR, NV>(kc, a, b, tile);
  }
}

// GemmF32PackAFn for MR. The packers take V, unused, so that each path's
// instantiations are its own (internal linkage), never merged with another
// path's copy compiled for a different ISA.
template <class V, int MR>
void PackA(const float* a, int64_t lda, bool trans, int64_t m, int64_t i0, int64_t mc, int64_t k0, int64_t kc,
           float* dst) {
  for (int64_t p = 0; p < mc; p += MR, dst += kc * MR) {
    const int64_t rows = m - (i0 + p);  // valid rows of this panel (may be <= 0 or > MR)
    if (trans) {
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* src = a + (k0 + kk) * lda + i0 + p;
        float* d = dst + kk * MR;
        for (int r = 0; r < MR; ++r) d[r] = r < rows ? src[r] : 0.f;
      }
    } else if (rows >= MR) {
      // A full panel: the MR rows read side by side, the panel written in
      // order.
      const float* src = a + (i0 + p) * lda + k0;
      for (int64_t kk = 0; kk < kc; ++kk) Unroll<MR>([&](auto r) { dst[kk * MR + r] = src[r * lda + kk]; });
    } else {
      for (int r = 0; r < MR; ++r) {
        const float* src = a + (i0 + p + r) * lda + k0;
        for (int64_t kk = 0; kk < kc; ++kk) dst[kk * MR + r] = r < rows ? src[kk] : 0.f;
      }
    }
  }
}

// dst[kk * NR + j] = row(kk)[j] for kk < kc, j < width; zeros for j >= width.
template <int NR, typename Row>
inline void CopyRows(int64_t kc, int64_t width, Row row, float* dst) {
  for (int64_t kk = 0; kk < kc; ++kk, dst += NR) {
    const float* s = row(kk);
    if (width >= NR) {
      for (int j = 0; j < NR; ++j) dst[j] = s[j];
    } else {
      for (int j = 0; j < NR; ++j) dst[j] = j < width ? s[j] : 0.f;
    }
  }
}

// GemmF32PackBFn for NR.
template <class V, int NR>
void PackB(const float* b, int64_t ldb, bool trans, int64_t n, int64_t k0, int64_t kc, int64_t n0, int64_t nc,
           float* dst) {
  for (int64_t q = 0; q < nc; q += NR, dst += kc * NR) {
    const int64_t cols = n - (n0 + q);  // valid columns of this panel
    if (!trans) {
      CopyRows<NR>(
          kc, cols, [&](int64_t kk) { return b + (k0 + kk) * ldb + n0 + q; }, dst);
    } else {
      for (int j = 0; j < NR; ++j) {
        const float* src = b + (n0 + q + j) * ldb + k0;
        for (int64_t kk = 0; kk < kc; ++kk) dst[kk * NR + j] = j < cols ? src[kk] : 0.f;
      }
    }
  }
}

// Copies the runs of one gathered row: run r is columns [run[r], run[r + 1])
// at offsets cols[run[r]] + kStep * i.
template <int kStep>
inline void CopyRuns(const float* s, const int32_t* cols, const int* run, int runs, float* d) {
  for (int r = 0; r < runs; ++r) {
    const float* src = s + cols[run[r]];
    float* out = d + run[r];
    const int n = run[r + 1] - run[r];
    for (int i = 0; i < n; ++i) out[i] = src[kStep * i];
  }
}

// GemmF32GatherBFn for NR. A panel's columns split into runs of offsets a
// step apart (an output row of a convolution of stride `step`): one run of
// step 1 is a row copy; a few runs of step 1 or 2 are copied run by run;
// anything else element by element.
template <class V, int NR>
void GatherB(const float* b, const int32_t* k_offset, const int32_t* n_offset, int64_t n_end, int64_t k0, int64_t kc,
             int64_t n0, int64_t nc, float* dst) {
  for (int64_t q = 0; q < nc; q += NR, dst += kc * NR) {
    const int32_t* cols = n_offset + n0 + q;
    const int width = static_cast<int>(n_end - (n0 + q) < NR ? n_end - (n0 + q) : NR);
    const int step = width > 1 ? cols[1] - cols[0] : 1;
    int run[NR + 1], runs = 0;
    for (int j = 0; j < width; ++j)
      if (j == 0 || cols[j] != cols[j - 1] + step) run[runs++] = j;
    run[runs] = width;
    if (runs == 1 && step == 1) {
      CopyRows<NR>(
          kc, width, [&](int64_t kk) { return b + k_offset[k0 + kk] + cols[0]; }, dst);
      continue;
    }
    const bool few = runs <= NR / 4;
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float* s = b + k_offset[k0 + kk];
      float* d = dst + kk * NR;
      if (few && step == 1) {
        CopyRuns<1>(s, cols, run, runs, d);
      } else if (few && step == 2) {
        CopyRuns<2>(s, cols, run, runs, d);
      } else {
        for (int j = 0; j < width; ++j) d[j] = s[cols[j]];
      }
      for (int j = width; j < NR; ++j) d[j] = 0.f;
    }
  }
}

// The table of a path whose vector interface is V and tile MR x (NV * kLanes).
template <class V, int MR, int NV>
constexpr GemmF32Isa MakeGemmF32Isa(const char* name) {
  constexpr int kNr = NV * V::kLanes;
  return {name, MR, kNr, &MicroKernel<V, MR, NV>, &PackA<V, MR>, &PackB<V, kNr>, &GatherB<V, kNr>};
}

}  // namespace gemm_f32
}  // namespace nn
}  // namespace loom
