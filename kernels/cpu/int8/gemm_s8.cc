// The GEMM core's packers, its portable implementation and the run-time
// choice of implementation.
#include "kernels/cpu/int8/gemm_s8.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/int8/gemm_s8_impl.h"

namespace loom {
namespace int8 {
namespace {

constexpr int kMr = kGemmS8Mr;
constexpr int kNr = kGemmS8Nr;

}  // namespace

void PackA(const int8_t* a, int64_t lda, int64_t rows, int64_t k, int16_t* dst) {
  const int64_t panel = APanelSize(k);
  for (int64_t p = 0; p < rows; p += kMr, dst += panel) {
    const int n = static_cast<int>(std::min<int64_t>(kMr, rows - p));
    if (n < kMr || k % 2) std::memset(dst, 0, static_cast<size_t>(panel) * sizeof(int16_t));
    for (int r = 0; r < n; ++r) {
      const int8_t* src = a + (p + r) * lda;
      int16_t* d = dst + 2 * r;
      int64_t kk = 0;
      for (; kk + 1 < k; kk += 2, d += 2 * kMr) {
        d[0] = src[kk];
        d[1] = src[kk + 1];
      }
      if (kk < k) d[0] = src[kk];
    }
  }
}

void PackB(const int8_t* b, int64_t ldb, bool transposed, int64_t k, int64_t cols, int16_t* dst) {
  const int64_t panel = BPanelSize(k);
  for (int64_t q = 0; q < cols; q += kNr, dst += panel) {
    const int n = static_cast<int>(std::min<int64_t>(kNr, cols - q));
    if (transposed) {
      if (n < kNr || k % 2) std::memset(dst, 0, static_cast<size_t>(panel) * sizeof(int16_t));
      for (int j = 0; j < n; ++j) {
        const int8_t* src = b + (q + j) * ldb;
        int16_t* d = dst + 2 * j;
        int64_t kk = 0;
        for (; kk + 1 < k; kk += 2, d += 2 * kNr) {
          d[0] = src[kk];
          d[1] = src[kk + 1];
        }
        if (kk < k) d[0] = src[kk];
      }
      continue;
    }
    int16_t* d = dst;
    for (int64_t kk = 0; kk < k; kk += 2, d += 2 * kNr) {
      const int8_t* r0 = b + kk * ldb + q;
      const int8_t* r1 = kk + 1 < k ? r0 + ldb : nullptr;
      if (n == kNr && r1) {
        for (int j = 0; j < kNr; ++j) {
          d[2 * j] = r0[j];
          d[2 * j + 1] = r1[j];
        }
        continue;
      }
      for (int j = 0; j < kNr; ++j) {
        d[2 * j] = j < n ? r0[j] : 0;
        d[2 * j + 1] = j < n && r1 ? r1[j] : 0;
      }
    }
  }
}

void PackBGather(const int8_t* src, const int32_t* taps, int64_t depth, const int32_t* columns, int64_t cols,
                 int16_t* dst) {
  const int64_t panel = BPanelSize(depth);
#if defined(__x86_64__) || defined(__i386__)
  const bool avx2 = ActiveGemmS8Impl() != GemmS8Impl::kPortable;
#endif
  for (int64_t q = 0; q < cols; q += kNr, dst += panel) {
    const int32_t* col = columns + q;
    const int n = static_cast<int>(std::min<int64_t>(kNr, cols - q));
    const bool contiguous = n == kNr && col[kNr - 1] - col[0] == kNr - 1;
#if defined(__x86_64__) || defined(__i386__)
    if (avx2 && n == kNr && internal::PackBPanelAvx2(src, taps, depth, col, dst)) continue;
#endif
    int16_t* d = dst;
    for (int64_t kk = 0; kk < depth; kk += 2, d += 2 * kNr) {
      const int8_t* s0 = src + taps[kk];
      const int8_t* s1 = kk + 1 < depth ? src + taps[kk + 1] : nullptr;
      if (contiguous && s1) {
        s0 += col[0];
        s1 += col[0];
        for (int j = 0; j < kNr; ++j) {
          d[2 * j] = s0[j];
          d[2 * j + 1] = s1[j];
        }
        continue;
      }
      for (int j = 0; j < kNr; ++j) {
        d[2 * j] = j < n ? s0[col[j]] : 0;
        d[2 * j + 1] = j < n && s1 ? s1[col[j]] : 0;
      }
    }
  }
}

void PackedS8Matrix::PackA(const int8_t* a, int64_t lda, int64_t rows, int64_t k) {
  k_ = k;
  data_.assign(static_cast<size_t>(NumAPanels(rows) * APanelSize(k)), 0);
  int8::PackA(a, lda, rows, k, data_.data());
}

void PackedS8Matrix::PackB(const int8_t* b, int64_t ldb, bool transposed, int64_t k, int64_t cols) {
  k_ = k;
  data_.assign(static_cast<size_t>(NumBPanels(cols) * BPanelSize(k)), 0);
  int8::PackB(b, ldb, transposed, k, cols, data_.data());
}

namespace internal {

void StoreTilePortable(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols) {
  const OutputSteps& steps = *blk.steps;
  for (int r = 0; r < rows; ++r) {
    const int32_t* s = acc + r * kNr;
    int8_t* y = blk.y + (i0 + r) * blk.ldy + j0;
    if (blk.per_row) {
      const int32_t bias = blk.bias[i0 + r];
      const int64_t c = blk.channel0 + i0 + r;
      for (int j = 0; j < cols; ++j) y[j] = static_cast<int8_t>(steps.Lookup(c, WrappingAdd(s[j], bias)));
    } else {
      const int32_t* bias = blk.bias + j0;
      const int64_t c = blk.channel0 + j0;
      for (int j = 0; j < cols; ++j) y[j] = static_cast<int8_t>(steps.Lookup(c + j, WrappingAdd(s[j], bias[j])));
    }
  }
}

namespace {

// acc = A panel · B panel over kp k-pairs, in two halves of 8 columns (32
// accumulators fit a NEON register file). Plain fixed-size loops of int16
// products summed in int32: on aarch64 GCC turns the pair split into a table
// lookup and the products into smull/smlal by lane.
void MicroKernel(int64_t kp, const int16_t* __restrict a, const int16_t* __restrict b, int32_t* __restrict acc) {
  constexpr int kHalf = kNr / 2;
  for (int h = 0; h < kNr; h += kHalf) {
    int32_t c[kMr][kHalf] = {};
    const int16_t* ap = a;
    const int16_t* bp = b + 2 * h;
    for (int64_t p = 0; p < kp; ++p, ap += 2 * kMr, bp += 2 * kNr) {
      int16_t b0[kHalf], b1[kHalf];
      for (int j = 0; j < kHalf; ++j) {
        b0[j] = bp[2 * j];
        b1[j] = bp[2 * j + 1];
      }
      for (int r = 0; r < kMr; ++r) {
        const int32_t a0 = ap[2 * r], a1 = ap[2 * r + 1];
        for (int j = 0; j < kHalf; ++j) c[r][j] += a0 * b0[j] + a1 * b1[j];
      }
    }
    for (int r = 0; r < kMr; ++r)
      for (int j = 0; j < kHalf; ++j) acc[r * kNr + h + j] = c[r][j];
  }
}

}  // namespace

void GemmS8Portable(const GemmS8Block& blk) {
  alignas(64) int32_t acc[kMr * kNr];
  const int64_t a_panel = 2 * kMr * blk.kp, b_panel = 2 * kNr * blk.kp;
  for (int64_t i = 0; i < blk.rows; i += kMr) {
    const int16_t* a = blk.a + (i / kMr) * a_panel;
    const int rows = static_cast<int>(std::min<int64_t>(kMr, blk.rows - i));
    for (int64_t j = 0; j < blk.cols; j += kNr) {
      MicroKernel(blk.kp, a, blk.b + (j / kNr) * b_panel, acc);
      StoreTilePortable(blk, acc, i, j, rows, static_cast<int>(std::min<int64_t>(kNr, blk.cols - j)));
    }
  }
}

}  // namespace internal

namespace {

bool Available(GemmS8Impl impl) {
  switch (impl) {
    case GemmS8Impl::kPortable: return true;
    case GemmS8Impl::kAvx2:
    case GemmS8Impl::kAvx2U8:
#if defined(__x86_64__) || defined(__i386__)
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case GemmS8Impl::kAvx512:
#if defined(__x86_64__) || defined(__i386__)
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
      return false;
#endif
    case GemmS8Impl::kAvx512Vnni:
    case GemmS8Impl::kAvx512VnniU8:
#if defined(__x86_64__) || defined(__i386__)
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vnni");
#else
      return false;
#endif
  }
  return false;
}

// Every implementation, slowest first.
constexpr GemmS8Impl kAllImpls[] = {GemmS8Impl::kPortable, GemmS8Impl::kAvx2,       GemmS8Impl::kAvx2U8,
                                    GemmS8Impl::kAvx512,   GemmS8Impl::kAvx512Vnni, GemmS8Impl::kAvx512VnniU8};

// The selected implementation; -1 until the first use picks the fastest.
std::atomic<int> g_impl{-1};

}  // namespace

std::vector<GemmS8Impl> AvailableGemmS8Impls() {
  std::vector<GemmS8Impl> impls;
  for (GemmS8Impl impl : kAllImpls)
    if (Available(impl)) impls.push_back(impl);
  return impls;
}

bool SetGemmS8Impl(GemmS8Impl impl) {
  if (!Available(impl)) return false;
  g_impl.store(static_cast<int>(impl), std::memory_order_relaxed);
  return true;
}

GemmS8Impl ActiveGemmS8Impl() {
  int impl = g_impl.load(std::memory_order_relaxed);
  if (impl < 0) {
    GemmS8Impl best = GemmS8Impl::kPortable;
    for (GemmS8Impl faster : kAllImpls)
      if (Available(faster)) best = faster;
    const char* env = std::getenv("LOOM_INT8_GEMM");
    for (GemmS8Impl named : kAllImpls)
      if (env && std::strcmp(env, GemmS8ImplName(named)) == 0 && Available(named)) best = named;
    impl = static_cast<int>(best);
    g_impl.store(impl, std::memory_order_relaxed);
  }
  return static_cast<GemmS8Impl>(impl);
}

const char* GemmS8ImplName(GemmS8Impl impl) {
  switch (impl) {
    case GemmS8Impl::kPortable: return "portable";
    case GemmS8Impl::kAvx2: return "avx2";
    case GemmS8Impl::kAvx2U8:
      return "avx2-u8";
    case GemmS8Impl::kAvx512: return "avx512";
    case GemmS8Impl::kAvx512Vnni: return "avx512vnni";
    case GemmS8Impl::kAvx512VnniU8: return "avx512vnni-u8";
  }
  return "?";
}

bool UseInt8Avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return ActiveGemmS8Impl() != GemmS8Impl::kPortable;
#else
  return false;
#endif
}

void RequantizeRow(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias, int64_t n, int8_t* y) {
#if defined(__x86_64__) || defined(__i386__)
  const GemmS8Impl impl = ActiveGemmS8Impl();
  if (impl == GemmS8Impl::kAvx512 || impl == GemmS8Impl::kAvx512Vnni || impl == GemmS8Impl::kAvx512VnniU8) {
    internal::RequantizeRowAvx512(steps, channel, acc, bias, n, y);
    return;
  }
  if (impl != GemmS8Impl::kPortable) {
    internal::RequantizeRowAvx2(steps, channel, acc, bias, n, y);
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<int8_t>(steps.Lookup(channel, internal::WrappingAdd(acc[i], bias)));
}

void GemmS8(const GemmS8Block& block) {
  if (block.rows <= 0 || block.cols <= 0) return;
  switch (ActiveGemmS8Impl()) {
#if defined(__x86_64__) || defined(__i386__)
    case GemmS8Impl::kAvx2:
    case GemmS8Impl::kAvx2U8:
      internal::GemmS8Avx2(block);
      return;
    case GemmS8Impl::kAvx512: internal::GemmS8Avx512(block); return;
    case GemmS8Impl::kAvx512Vnni:
    case GemmS8Impl::kAvx512VnniU8: internal::GemmS8Avx512Vnni(block); return;
#endif
    default: internal::GemmS8Portable(block); return;
  }
}

}  // namespace int8
}  // namespace loom
