#include "kernels/cpu/nn/gemm_f32.h"

#include <algorithm>
#include <cstring>

namespace loom {
namespace nn {
namespace {

constexpr int kMr = kGemmMr;
constexpr int kNr = kGemmNr;
static_assert(kGemmMc % kMr == 0, "MC must be a multiple of MR");
static_assert(kGemmNc % kNr == 0, "NC must be a multiple of NR");

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// op(A)(i, k) rows [i0, i0+mc) x [k0, k0+kc) into MR-row panels, zero-padded.
void PackABlock(const float* a, int64_t lda, bool trans, int64_t m, int64_t i0, int64_t mc, int64_t k0,
                int64_t kc, float* dst) {
  for (int64_t p = 0; p < mc; p += kMr, dst += kc * kMr) {
    const int64_t rows = std::min<int64_t>(kMr, m - (i0 + p));
    if (trans) {
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* src = a + (k0 + kk) * lda + i0 + p;
        float* d = dst + kk * kMr;
        int r = 0;
        for (; r < rows; ++r) d[r] = src[r];
        for (; r < kMr; ++r) d[r] = 0.f;
      }
    } else {
      for (int r = 0; r < kMr; ++r) {
        if (r < rows) {
          const float* src = a + (i0 + p + r) * lda + k0;
          for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kMr + r] = src[kk];
        } else {
          for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kMr + r] = 0.f;
        }
      }
    }
  }
}

// op(B)(k, n) rows [k0, k0+kc) x [n0, n0+nc) into NR-column panels, zero-padded.
void PackBBlock(const float* b, int64_t ldb, bool trans, int64_t n, int64_t k0, int64_t kc, int64_t n0,
                int64_t nc, float* dst) {
  for (int64_t q = 0; q < nc; q += kNr, dst += kc * kNr) {
    const int64_t cols = std::min<int64_t>(kNr, n - (n0 + q));
    if (!trans) {
      if (cols == kNr) {
        for (int64_t kk = 0; kk < kc; ++kk) {
          const float* src = b + (k0 + kk) * ldb + n0 + q;
          float* d = dst + kk * kNr;
          for (int j = 0; j < kNr; ++j) d[j] = src[j];
        }
      } else {
        for (int64_t kk = 0; kk < kc; ++kk) {
          const float* src = b + (k0 + kk) * ldb + n0 + q;
          float* d = dst + kk * kNr;
          int j = 0;
          for (; j < cols; ++j) d[j] = src[j];
          for (; j < kNr; ++j) d[j] = 0.f;
        }
      }
    } else {
      for (int j = 0; j < kNr; ++j) {
        if (j < cols) {
          const float* src = b + (n0 + q + j) * ldb + k0;
          for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kNr + j] = src[kk];
        } else {
          for (int64_t kk = 0; kk < kc; ++kk) dst[kk * kNr + j] = 0.f;
        }
      }
    }
  }
}

// acc = A_panel(kc x MR)^T * B_panel(kc x NR). The fixed-size inner loops are
// unrolled and vectorized by the compiler; `c` lives in registers.
inline void MicroKernel(int64_t kc, const float* __restrict a, const float* __restrict b,
                        float* __restrict acc) {
  float c[kMr][kNr] = {};
  for (int64_t k = 0; k < kc; ++k) {
    for (int i = 0; i < kMr; ++i)
      for (int j = 0; j < kNr; ++j) c[i][j] += a[i] * b[j];
    a += kMr;
    b += kNr;
  }
  for (int i = 0; i < kMr; ++i)
    for (int j = 0; j < kNr; ++j) acc[i * kNr + j] = c[i][j];
}

// Stores an MR x NR accumulator tile (rows x cols valid) at C(row0, col0).
void StoreTile(const GemmF32Params& p, const float* acc, int64_t row0, int64_t col0, int rows, int cols,
               bool first, bool last) {
  const float alpha = p.alpha, beta = p.beta;
  for (int i = 0; i < rows; ++i) {
    float* c = p.c + (row0 + i) * p.ldc + col0;
    const float* s = acc + i * kNr;
    if (first) {
      if (beta == 0.f) {
        for (int j = 0; j < cols; ++j) c[j] = alpha * s[j];
      } else {
        for (int j = 0; j < cols; ++j) c[j] = alpha * s[j] + beta * c[j];
      }
    } else {
      for (int j = 0; j < cols; ++j) c[j] += alpha * s[j];
    }
    if (last) {
      if (p.row_bias) {
        const float rb = p.row_bias[row0 + i];
        for (int j = 0; j < cols; ++j) c[j] += rb;
      }
      if (p.col_bias) {
        const float* cb = p.col_bias + col0;
        for (int j = 0; j < cols; ++j) c[j] += cb[j];
      }
      ApplyActivation(p.act, c, cols);
    }
  }
}

// One task: C rows [ms, me) x columns [ns, ne), the whole K range.
void GemmTask(const GemmF32Params& p, int64_t ms, int64_t me, int64_t ns, int64_t ne, float* pack_a,
              float* pack_b) {
  alignas(64) float acc[kMr * kNr];
  for (int64_t n0 = ns; n0 < ne; n0 += kGemmNc) {
    const int64_t nc = std::min(kGemmNc, ne - n0);
    for (int64_t k0 = 0; k0 < p.k; k0 += kGemmKc) {
      const int64_t kc = std::min(kGemmKc, p.k - k0);
      const bool first = k0 == 0, last = k0 + kc == p.k;
      const float* bp;
      if (p.packed_b) {
        bp = p.packed_b->BlockB(k0, n0);
      } else if (p.pack_b) {
        (*p.pack_b)(k0, kc, n0, nc, pack_b);
        bp = pack_b;
      } else {
        PackBBlock(p.b, p.ldb, p.trans_b, p.n, k0, kc, n0, nc, pack_b);
        bp = pack_b;
      }
      for (int64_t m0 = ms; m0 < me; m0 += kGemmMc) {
        const int64_t mc = std::min(kGemmMc, me - m0);
        const float* ap;
        if (p.packed_a) {
          ap = p.packed_a->BlockA(k0, m0);
        } else {
          PackABlock(p.a, p.lda, p.trans_a, p.m, m0, mc, k0, kc, pack_a);
          ap = pack_a;
        }
        for (int64_t j = 0; j < nc; j += kNr) {
          const int cols = static_cast<int>(std::min<int64_t>(kNr, nc - j));
          const float* bpanel = bp + (j / kNr) * kc * kNr;
          for (int64_t i = 0; i < mc; i += kMr) {
            const int rows = static_cast<int>(std::min<int64_t>(kMr, mc - i));
            MicroKernel(kc, ap + (i / kMr) * kc * kMr, bpanel, acc);
            StoreTile(p, acc, m0 + i, n0 + j, rows, cols, first, last);
          }
        }
      }
    }
  }
}

// K == 0: C = act(beta * C + bias).
void ScaleOnly(const GemmF32Params& p) {
  for (int64_t i = 0; i < p.m; ++i) {
    float* c = p.c + i * p.ldc;
    for (int64_t j = 0; j < p.n; ++j) {
      float v = p.beta == 0.f ? 0.f : p.beta * c[j];
      if (p.row_bias) v += p.row_bias[i];
      if (p.col_bias) v += p.col_bias[j];
      c[j] = v;
    }
    ApplyActivation(p.act, c, p.n);
  }
}

constexpr size_t kPackAFloats = kGemmMc * kGemmKc;
constexpr size_t kPackBFloats = kGemmKc * kGemmNc;
constexpr size_t kThreadFloats = kPackAFloats + kPackBFloats;

}  // namespace

void PackedMatrixF32::PackA(const float* src, int64_t ld, bool trans, int64_t m, int64_t k) {
  rows_ = m;
  cols_ = k;
  padded_ = RoundUp(m, kMr);
  data_.assign(static_cast<size_t>(padded_ * k), 0.f);
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    PackABlock(src, ld, trans, m, 0, padded_, k0, kc, data_.data() + k0 * padded_);
  }
}

void PackedMatrixF32::PackB(const float* src, int64_t ld, bool trans, int64_t k, int64_t n) {
  rows_ = k;
  cols_ = n;
  padded_ = RoundUp(n, kNr);
  data_.assign(static_cast<size_t>(padded_ * k), 0.f);
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    PackBBlock(src, ld, trans, n, k0, kc, 0, padded_, data_.data() + k0 * padded_);
  }
}

const float* PackedMatrixF32::BlockA(int64_t k0, int64_t row) const {
  const int64_t kc = std::min(kGemmKc, cols_ - k0);
  return data_.data() + k0 * padded_ + (row / kMr) * kc * kMr;
}

const float* PackedMatrixF32::BlockB(int64_t k0, int64_t col) const {
  const int64_t kc = std::min(kGemmKc, rows_ - k0);
  return data_.data() + k0 * padded_ + (col / kNr) * kc * kNr;
}

size_t GemmF32ScratchBytes(int num_threads) {
  return static_cast<size_t>(num_threads < 1 ? 1 : num_threads) * kThreadFloats * sizeof(float);
}

void GemmF32(const GemmF32Params& p, void* scratch, ThreadPool* pool) {
  if (p.m <= 0 || p.n <= 0) return;
  if (p.k <= 0) {
    ScaleOnly(p);
    return;
  }
  // Split C into tm x tn tasks. Column splits cost nothing extra (each task
  // packs only its own B columns; A is packed once or per task, which is
  // cheap next to the task's work), so prefer several column tasks per thread
  // for load balance; split rows only when there are too few columns (each
  // row task repacks its B columns).
  const int threads = pool ? pool->NumThreads() : 1;
  const double flops = 2.0 * p.m * p.n * p.k;
  int64_t tm = 1, tn = 1;
  if (threads > 1 && flops > 2.0e5) {
    tn = std::min<int64_t>((p.n + 63) / 64, 4 * threads);
    if (tn < 2 * threads) tm = std::min<int64_t>((2 * threads + tn - 1) / tn, (p.m + 15) / 16);
    tn = std::max<int64_t>(tn, 1);
    tm = std::max<int64_t>(tm, 1);
  }
  const int64_t m_step = RoundUp((p.m + tm - 1) / tm, kMr);
  const int64_t n_step = RoundUp((p.n + tn - 1) / tn, kNr);
  float* base = static_cast<float*>(scratch);
  ParallelFor(pool, tm * tn, 1, [&](int64_t begin, int64_t end, int thread) {
    float* pack_a = base + static_cast<size_t>(thread) * kThreadFloats;
    float* pack_b = pack_a + kPackAFloats;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t ms = (t / tn) * m_step, ns = (t % tn) * n_step;
      if (ms >= p.m || ns >= p.n) continue;
      GemmTask(p, ms, std::min(p.m, ms + m_step), ns, std::min(p.n, ns + n_step), pack_a, pack_b);
    }
  });
}

void GemmF64(const GemmF64Params& p, ThreadPool* pool) {
  if (p.m <= 0 || p.n <= 0) return;
  ParallelFor(pool, p.m, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, p.n * (p.k + 1))),
              [&](int64_t begin, int64_t end, int) {
                for (int64_t i = begin; i < end; ++i) {
                  double* c = p.c + i * p.ldc;
                  for (int64_t j = 0; j < p.n; ++j) c[j] = p.beta == 0.0 ? 0.0 : p.beta * c[j];
                  for (int64_t kk = 0; kk < p.k; ++kk) {
                    const double av = p.alpha * (p.trans_a ? p.a[kk * p.lda + i] : p.a[i * p.lda + kk]);
                    if (p.trans_b) {
                      for (int64_t j = 0; j < p.n; ++j) c[j] += av * p.b[j * p.ldb + kk];
                    } else {
                      const double* brow = p.b + kk * p.ldb;
                      for (int64_t j = 0; j < p.n; ++j) c[j] += av * brow[j];
                    }
                  }
                  for (int64_t j = 0; j < p.n; ++j) {
                    if (p.row_bias) c[j] += p.row_bias[i];
                    if (p.col_bias) c[j] += p.col_bias[j];
                  }
                  ApplyActivation(p.act, c, p.n);
                }
              });
}

}  // namespace nn
}  // namespace loom
