#include "kernels/cpu/nn/gemm_f32.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/aligned_block.h"

namespace loom {
namespace nn {
namespace {

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// The path of a call; packed operands carry the path they were packed for.
const GemmF32Isa& IsaOf(const GemmF32Params& p) {
  const GemmF32Isa& isa = p.isa ? *p.isa : ActiveGemmF32Isa();
  for (const PackedMatrixF32* packed : {p.packed_a, p.packed_b}) {
    if (packed && packed->isa() != &isa) {
      std::fprintf(stderr, "GemmF32: operand packed for %s, called for %s\n", packed->isa()->name, isa.name);
      std::abort();
    }
  }
  return isa;
}

// One task: C rows [ms, me) x columns [ns, ne), the whole K range, in A
// blocks of at most mc_max rows (a multiple of MR).
void GemmTask(const GemmF32Params& p, const GemmF32Isa& isa, int64_t ms, int64_t me, int64_t ns, int64_t ne,
              int64_t mc_max, float* pack_a, float* pack_b) {
  const int mr = isa.mr, nr = isa.nr;
  const int64_t nc_max = kGemmNc / nr * nr;
  GemmF32Tile tile;
  tile.ldc = p.ldc;
  tile.alpha = p.alpha;
  tile.beta = p.beta;
  // Sigmoid, Tanh and Swish run through the vector math functions over whole
  // rows of a finished block (still in cache), not row by row per register
  // tile: one call per nc columns instead of one per 16 (ApplyActivation on
  // the same values, so the results are the same).
  const bool act_after_block = p.act.kind == ActivationKind::kSigmoid || p.act.kind == ActivationKind::kTanh ||
                               p.act.kind == ActivationKind::kSwish;
  tile.act = p.act.none() || act_after_block ? nullptr : &p.act;
  for (int64_t n0 = ns; n0 < ne; n0 += nc_max) {
    const int64_t nc = std::min(nc_max, ne - n0);
    for (int64_t k0 = 0; k0 < p.k; k0 += kGemmKc) {
      const int64_t kc = std::min(kGemmKc, p.k - k0);
      tile.first = k0 == 0;
      tile.last = k0 + kc == p.k;
      const float* bp = pack_b;
      if (p.packed_b) {
        bp = p.packed_b->BlockB(k0, n0);
      } else if (p.b_k_offset) {
        isa.gather_b(p.b, p.b_k_offset, p.b_n_offset, p.n, k0, kc, n0, nc, pack_b);
      } else {
        isa.pack_b(p.b, p.ldb, p.trans_b, p.n, k0, kc, n0, nc, pack_b);
      }
      for (int64_t m0 = ms; m0 < me; m0 += mc_max) {
        const int64_t mc = std::min(mc_max, me - m0);
        const float* ap = pack_a;
        if (p.packed_a) {
          ap = p.packed_a->BlockA(k0, m0);
        } else {
          isa.pack_a(p.a, p.lda, p.trans_a, p.m, m0, RoundUp(mc, mr), k0, kc, pack_a);
        }
        for (int64_t j = 0; j < nc; j += nr) {
          tile.cols = static_cast<int>(std::min<int64_t>(nr, nc - j));
          tile.col_bias = p.col_bias ? p.col_bias + n0 + j : nullptr;
          const float* bpanel = bp + (j / nr) * kc * nr;
          for (int64_t i = 0; i < mc; i += mr) {
            tile.rows = static_cast<int>(std::min<int64_t>(mr, mc - i));
            tile.c = p.c + (m0 + i) * p.ldc + n0 + j;
            tile.row_bias = p.row_bias ? p.row_bias + m0 + i : nullptr;
            tile.residual = p.residual ? p.residual + (m0 + i) * p.ldc + n0 + j : nullptr;
            isa.micro_kernel(kc, ap + (i / mr) * kc * mr, bpanel, tile);
          }
        }
        if (tile.last && act_after_block)
          for (int64_t r = m0; r < m0 + mc; ++r) ApplyActivation(p.act, p.c + r * p.ldc + n0, nc);
      }
    }
  }
}

// K == 0: C = act(beta * C + residual + bias).
void ScaleOnly(const GemmF32Params& p) {
  for (int64_t i = 0; i < p.m; ++i) {
    float* c = p.c + i * p.ldc;
    for (int64_t j = 0; j < p.n; ++j) {
      float v = p.beta == 0.f ? 0.f : p.beta * c[j];
      if (p.residual) v += p.residual[i * p.ldc + j];
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

// With B packed ahead of time a task's pack_b slice is free, so its A block
// may run past kPackAFloats: up to kGemmMcWide rows (rounded up to the
// largest MR) in one block.
static_assert((kGemmMcWide + 16) * kGemmKc <= kThreadFloats, "a wide A block fits one thread's scratch");

// The A block rows of a task over `rows` rows of C: all of them when they
// fit a wide block and A's block need not fit pack_a (B packed ahead of
// time: one pass over B, each panel read once while A stays in L2);
// otherwise kGemmMc.
int64_t BlockRows(const GemmF32Params& p, const GemmF32Isa& isa, int64_t rows) {
  if (p.packed_b && rows <= kGemmMcWide) return RoundUp(rows, isa.mr);
  return kGemmMc / isa.mr * isa.mr;
}

// Small-M products with B packed ahead of time on several threads (a
// transformer's token rows times a weight): A is packed once into the
// shared scratch, in parallel, then threads split C's columns, each reading
// only its own part of B (row tasks would each read all of B). Returns
// false, doing nothing, when A is not small or does not fit the scratch.
bool RunSharedA(const GemmF32Params& p, const GemmF32Isa& isa, float* scratch, ThreadPool* pool) {
  const int threads = pool->NumThreads();
  const int64_t mr = isa.mr, nr = isa.nr, padded = RoundUp(p.m, mr);
  if (padded > kGemmMcWide || static_cast<size_t>(padded * p.k) > threads * kThreadFloats) return false;
  // Pack: tasks of (K block, half of the row panels).
  const int64_t k_blocks = (p.k + kGemmKc - 1) / kGemmKc;
  const int64_t row_step = RoundUp((padded + 1) / 2, mr);
  ParallelFor(pool, k_blocks * 2, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t k0 = (t / 2) * kGemmKc, kc = std::min(kGemmKc, p.k - k0);
      const int64_t i0 = (t % 2) * row_step, rows = std::min(row_step, padded - i0);
      if (rows > 0) isa.pack_a(p.a, p.lda, p.trans_a, p.m, i0, rows, k0, kc, scratch + k0 * padded + i0 * kc);
    }
  });
  const PackedMatrixF32 packed_a = PackedMatrixF32::ViewA(scratch, p.m, p.k, isa);
  GemmF32Params q = p;
  q.a = nullptr;
  q.packed_a = &packed_a;
  // Column tasks: a few per thread for balance (each reads all of the
  // packed A, which stays in cache).
  const int64_t panels = (p.n + nr - 1) / nr;
  const int64_t tn = std::min<int64_t>(panels, 4 * threads);
  const int64_t n_step = (panels + tn - 1) / tn * nr;
  ParallelFor(pool, tn, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t ns = t * n_step;
      if (ns < p.n) GemmTask(q, isa, 0, p.m, ns, std::min(p.n, ns + n_step), padded, nullptr, nullptr);
    }
  });
  return true;
}

// Uninitialized storage for `floats` values.
std::shared_ptr<float> AllocateFloats(size_t floats) {
  std::shared_ptr<void> block = AllocateAlignedBlock(floats * sizeof(float));
  return std::shared_ptr<float>(block, static_cast<float*>(block.get()));
}

}  // namespace

void PackedMatrixF32::PackA(const float* src, int64_t ld, bool trans, int64_t m, int64_t k, const GemmF32Isa& isa) {
  isa_ = &isa;
  rows_ = m;
  cols_ = k;
  padded_ = RoundUp(m, isa.mr);
  data_ = AllocateFloats(FloatsA(m, k, isa));
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    isa.pack_a(src, ld, trans, m, 0, padded_, k0, kc, data_.get() + k0 * padded_);
  }
}

void PackedMatrixF32::PackB(const float* src, int64_t ld, bool trans, int64_t k, int64_t n, const GemmF32Isa& isa) {
  AllocateB(k, n, isa);
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    isa.pack_b(src, ld, trans, n, k0, kc, 0, padded_, data_.get() + k0 * padded_);
  }
}

void PackedMatrixF32::SetShapeB(int64_t k, int64_t n, const GemmF32Isa& isa) {
  isa_ = &isa;
  rows_ = k;
  cols_ = n;
  padded_ = RoundUp(n, isa.nr);
}

void PackedMatrixF32::AllocateB(int64_t k, int64_t n, const GemmF32Isa& isa) {
  SetShapeB(k, n, isa);
  data_ = AllocateFloats(static_cast<size_t>(padded_ * k));
}

namespace {

// Floats from one AllocateManyB matrix to the next: each start stays 64-byte aligned.
size_t ManyBStride(int64_t k, int64_t n, const GemmF32Isa& isa) {
  return static_cast<size_t>(RoundUp(RoundUp(n, isa.nr) * k, 16));
}

// The packing scheme's version: bump it when a packer's layout changes, so
// that derived constants stored by older builders are no longer used.
constexpr int kLayoutVersion = 1;

std::string LayoutKey(const char* role, const GemmF32Isa& isa, std::initializer_list<int64_t> dims) {
  std::string key = std::string("gemm_f32.") + role + " v" + std::to_string(kLayoutVersion) + " " + isa.name + " mr" +
                    std::to_string(isa.mr) + " nr" + std::to_string(isa.nr) + " kc" + std::to_string(kGemmKc);
  for (int64_t d : dims) key += " " + std::to_string(d);
  return key;
}

}  // namespace

std::vector<PackedMatrixF32> PackedMatrixF32::AllocateManyB(size_t count, int64_t k, int64_t n, const GemmF32Isa& isa) {
  if (count == 0) return {};
  const std::shared_ptr<float> block = AllocateFloats(FloatsManyB(count, k, n, isa));
  std::vector<PackedMatrixF32> out = ViewManyB(block.get(), count, k, n, isa);
  for (size_t i = 0; i < count; ++i) out[i].data_ = std::shared_ptr<float>(block, out[i].data_.get());
  return out;
}

std::string PackedMatrixF32::LayoutKeyA(int64_t m, int64_t k, const GemmF32Isa& isa) {
  return LayoutKey("a", isa, {m, k});
}

std::string PackedMatrixF32::LayoutKeyManyB(size_t count, int64_t k, int64_t n, const GemmF32Isa& isa) {
  return LayoutKey("b", isa, {static_cast<int64_t>(count), k, n});
}

size_t PackedMatrixF32::FloatsA(int64_t m, int64_t k, const GemmF32Isa& isa) {
  return static_cast<size_t>(RoundUp(m, isa.mr) * k);
}

size_t PackedMatrixF32::FloatsManyB(size_t count, int64_t k, int64_t n, const GemmF32Isa& isa) {
  return ManyBStride(k, n, isa) * count;
}

size_t PackedMatrixF32::FloatsB(int64_t k, int64_t n, const GemmF32Isa& isa) {
  return static_cast<size_t>(RoundUp(n, isa.nr) * k);
}

PackedMatrixF32 PackedMatrixF32::ViewA(const float* data, int64_t m, int64_t k, const GemmF32Isa& isa) {
  PackedMatrixF32 out;
  out.isa_ = &isa;
  out.rows_ = m;
  out.cols_ = k;
  out.padded_ = RoundUp(m, isa.mr);
  out.data_ = std::shared_ptr<float>(std::shared_ptr<float>(), const_cast<float*>(data));  // not owned
  return out;
}

std::vector<PackedMatrixF32> PackedMatrixF32::ViewManyB(const float* data, size_t count, int64_t k, int64_t n,
                                                        const GemmF32Isa& isa) {
  std::vector<PackedMatrixF32> out(count);
  const size_t stride = ManyBStride(k, n, isa);
  for (size_t i = 0; i < count; ++i) {
    out[i].SetShapeB(k, n, isa);
    out[i].data_ = std::shared_ptr<float>(std::shared_ptr<float>(), const_cast<float*>(data) + i * stride);
  }
  return out;
}

const float* PackedMatrixF32::BlockA(int64_t k0, int64_t row) const {
  const int64_t kc = std::min(kGemmKc, cols_ - k0);
  return data_.get() + k0 * padded_ + (row / isa_->mr) * kc * isa_->mr;
}

const float* PackedMatrixF32::BlockB(int64_t k0, int64_t col) const {
  const int64_t kc = std::min(kGemmKc, rows_ - k0);
  return data_.get() + k0 * padded_ + (col / isa_->nr) * kc * isa_->nr;
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
  const GemmF32Isa& isa = IsaOf(p);
  // Split C into tm x tn tasks. With B packed ahead of time and A packed on
  // the fly (MatMul and Gemm with constant weights), split rows, one task
  // per thread: row tasks share B and each packs only its own rows of A,
  // where every column task would pack all of A. Otherwise column splits
  // cost little (each task packs only its own B columns; A is packed ahead of
  // time or per task), so prefer several column tasks per thread for load
  // balance; split rows only when there are too few columns (each row task
  // repacks its B columns).
  const int threads = pool ? pool->NumThreads() : 1;
  const double flops = 2.0 * p.m * p.n * p.k;
  const int64_t row_panels = (p.m + isa.mr - 1) / isa.mr;
  float* base = static_cast<float*>(scratch);
  if (threads > 1 && flops > 2.0e5 && p.packed_b && !p.packed_a && RunSharedA(p, isa, base, pool)) return;
  int64_t tm = 1, tn = 1;
  if (threads > 1 && flops > 2.0e5 && p.packed_b && !p.packed_a && row_panels >= 2 * threads) {
    tm = threads;
  } else if (threads > 1 && flops > 2.0e5) {
    tn = std::min<int64_t>((p.n + 63) / 64, 4 * threads);
    if (tn < 2 * threads) tm = std::min<int64_t>((2 * threads + tn - 1) / tn, (p.m + 15) / 16);
    tn = std::max<int64_t>(tn, 1);
    tm = std::max<int64_t>(tm, 1);
  }
  const int64_t m_step = RoundUp((p.m + tm - 1) / tm, isa.mr);
  const int64_t n_step = RoundUp((p.n + tn - 1) / tn, isa.nr);
  ParallelFor(pool, tm * tn, 1, [&](int64_t begin, int64_t end, int thread) {
    float* pack_a = base + static_cast<size_t>(thread) * kThreadFloats;
    float* pack_b = pack_a + kPackAFloats;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t ms = (t / tn) * m_step, ns = (t % tn) * n_step;
      if (ms >= p.m || ns >= p.n) continue;
      const int64_t me = std::min(p.m, ms + m_step);
      GemmTask(p, isa, ms, me, ns, std::min(p.n, ns + n_step), BlockRows(p, isa, me - ms), pack_a, pack_b);
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
