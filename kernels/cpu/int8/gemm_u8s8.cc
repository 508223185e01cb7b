// The quad-panel packers of the u8 · s8 GEMM core, its portable block product
// (the reference for the layout) and the dispatch to the AVX-512 VNNI one.
#include "kernels/cpu/int8/gemm_u8s8.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/cpu/int8/gemm_s8_impl.h"

namespace loom {
namespace int8 {
namespace {

constexpr int kMr = kGemmS8Mr;
constexpr int kNr = kGemmS8Nr;

#if defined(__SSE2__)
// Four rows of sixteen bytes interleaved into 64 bytes of k-quads (column j's
// four bytes at 4j), plus 128.
inline void InterleaveQuads(__m128i a, __m128i b, __m128i c, __m128i e, uint8_t* d) {
  const __m128i bias = _mm_set1_epi8(static_cast<char>(0x80));
  a = _mm_xor_si128(a, bias);
  b = _mm_xor_si128(b, bias);
  c = _mm_xor_si128(c, bias);
  e = _mm_xor_si128(e, bias);
  const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
  const __m128i ce_lo = _mm_unpacklo_epi8(c, e), ce_hi = _mm_unpackhi_epi8(c, e);
  __m128i* out = reinterpret_cast<__m128i*>(d);
  _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(ab_lo, ce_lo));
  _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(ab_lo, ce_lo));
  _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(ab_hi, ce_hi));
  _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(ab_hi, ce_hi));
}

// The bytes p[0], p[2], ..., p[30] (reads p[0, 31) only).
inline __m128i EvenBytes(const int8_t* p) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));       // p[0, 16)
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 15));  // p[15, 31)
  const __m128i even = _mm_and_si128(lo, _mm_set1_epi16(0xff));                  // p[0], p[2], ..., p[14]
  const __m128i odd = _mm_srli_epi16(hi, 8);                                     // p[16], p[18], ..., p[30]
  return _mm_packus_epi16(even, odd);
}

// A full panel's 16 columns as runs of a constant step (1 or 2) that every
// increment reaches or passes (Conv output rows at stride 1 or 2, split
// where a panel crosses into the next row): lane j of run r reads
// row[offset_r + step · j], and the run's mask selects its lanes. Every read
// stays inside [col[0], col[15]] (+ 0 or 1 byte for step 2, within the
// addressed span too): lanes before a run are at least step apart.
struct PanelRuns {
  int step = 0;  // 0: the panel has no such form
  int count = 0;
  int32_t offset[kNr];
  __m128i mask[kNr];
};

inline void FindRuns(const int32_t* col, PanelRuns* runs) {
  int32_t step = col[1] - col[0];
  for (int j = 2; j < kNr; ++j) step = std::min(step, col[j] - col[j - 1]);
  runs->step = 0;
  if (step != 1 && step != 2) return;
  alignas(16) int8_t lanes[kNr];
  runs->count = 0;
  for (int j = 0; j < kNr;) {
    int end = j + 1;
    while (end < kNr && col[end] - col[end - 1] == step) ++end;
    for (int l = 0; l < kNr; ++l) lanes[l] = l >= j && l < end ? -1 : 0;
    runs->offset[runs->count] = col[j] - step * j;
    runs->mask[runs->count] = _mm_load_si128(reinterpret_cast<const __m128i*>(lanes));
    ++runs->count;
    j = end;
  }
  runs->step = step;
}

// The 16 bytes of one tap row at a panel's columns.
inline __m128i GatherRow(const int8_t* row, const PanelRuns& runs) {
  if (runs.count == 1)
    return runs.step == 1 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + runs.offset[0]))
                          : EvenBytes(row + runs.offset[0]);
  __m128i v = _mm_setzero_si128();
  for (int r = 0; r < runs.count; ++r) {
    const __m128i part = runs.step == 1 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + runs.offset[r]))
                                        : EvenBytes(row + runs.offset[r]);
    v = _mm_or_si128(v, _mm_and_si128(part, runs.mask[r]));
  }
  return v;
}
#endif

}  // namespace

namespace internal {

void StoreU8S8Tile(const GemmU8S8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols,
                   void (*store)(const GemmS8Block&, const int32_t*, int64_t, int64_t, int, int)) {
  int32_t bias[kMaxStoreRows];
  for (int r = 0; r < rows; ++r) bias[r] = WrappingSub(blk.bias[i0 + r], blk.offset[i0 + r]);
  GemmS8Block st;
  st.rows = rows;
  st.cols = cols;
  st.y = blk.y + i0 * blk.ldy;
  st.ldy = blk.ldy;
  st.bias = bias;
  st.steps = blk.steps;
  st.channel0 = blk.channel0 + i0;
  st.per_row = true;
  store(st, acc, 0, j0, rows, cols);
}

}  // namespace internal

void PackAQuads(const int8_t* a, int64_t lda, int64_t rows, int64_t k, int8_t* dst) {
  const int64_t panel = QuadAPanelSize(k);
  for (int64_t p = 0; p < rows; p += kMr, dst += panel) {
    std::memset(dst, 0, static_cast<size_t>(panel));
    const int n = static_cast<int>(std::min<int64_t>(kMr, rows - p));
    for (int r = 0; r < n; ++r) {
      const int8_t* src = a + (p + r) * lda;
      for (int64_t kk = 0; kk < k; ++kk) dst[(kk / 4) * 4 * kMr + 4 * r + kk % 4] = src[kk];
    }
  }
}

void SplitQuadWeights(int8_t* panels, int64_t rows, int64_t k, std::vector<int64_t>* row_begin,
                      std::vector<QuadRemainder>* entries) {
  const int64_t kq = KQuads(k), panel = QuadAPanelSize(k);
  row_begin->assign(1, 0);
  entries->clear();
  for (int64_t r = 0; r < rows; ++r) {
    int8_t* row = panels + (r / kMr) * panel + 4 * (r % kMr);
    for (int64_t q = 0; q < kq; ++q) {
      int8_t* w = row + q * 4 * kMr;
      int8_t rest[4] = {};
      bool split = false;
      for (int e = 0; e < 4; e += 2) {
        if (std::abs(int{w[e]}) + std::abs(int{w[e + 1]}) <= 128) continue;
        for (int i = e; i < e + 2; ++i) {
          const int8_t keep = static_cast<int8_t>(w[i] / 2);
          rest[i] = static_cast<int8_t>(w[i] - keep);
          w[i] = keep;
        }
        split = true;
      }
      if (!split) continue;
      QuadRemainder entry;
      entry.quad = static_cast<int32_t>(q);
      std::memcpy(&entry.bytes, rest, sizeof(rest));
      entries->push_back(entry);
    }
    row_begin->push_back(static_cast<int64_t>(entries->size()));
  }
}

void WeightOffsets(const int8_t* a, int64_t lda, int64_t rows, int64_t k, int32_t* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t sum = 0;
    for (int64_t kk = 0; kk < k; ++kk) sum += static_cast<uint32_t>(static_cast<int32_t>(a[r * lda + kk]));
    dst[r] = static_cast<int32_t>(sum * 128u);
  }
}

void PackBGatherU8(const int8_t* src, const int32_t* taps, int64_t depth, const int32_t* columns, int64_t cols,
                   uint8_t* dst) {
  const int64_t panel = QuadBPanelSize(depth);
  for (int64_t q = 0; q < cols; q += kNr, dst += panel) {
    const int32_t* col = columns + q;
    const int n = static_cast<int>(std::min<int64_t>(kNr, cols - q));
    uint8_t* d = dst;
    int64_t kq = 0;
#if defined(__SSE2__)
    PanelRuns runs;
    if (n == kNr) FindRuns(col, &runs);
    if (runs.step) {
      for (; kq < depth / 4; ++kq, d += 4 * kNr) {
        const int32_t* t = taps + 4 * kq;
        InterleaveQuads(GatherRow(src + t[0], runs), GatherRow(src + t[1], runs), GatherRow(src + t[2], runs),
                        GatherRow(src + t[3], runs), d);
      }
    }
#endif
    for (; kq < KQuads(depth); ++kq, d += 4 * kNr) {
      for (int e = 0; e < 4; ++e) {
        const int64_t kk = 4 * kq + e;
        if (kk >= depth) {
          for (int j = 0; j < kNr; ++j) d[4 * j + e] = 0;
          continue;
        }
        const int8_t* s = src + taps[kk];
        for (int j = 0; j < kNr; ++j) d[4 * j + e] = j < n ? static_cast<uint8_t>(s[col[j]] ^ 0x80) : 0;
      }
    }
  }
}

void GemmU8S8Portable(const GemmU8S8Block& blk) {
  alignas(64) int32_t acc[kMr * kNr];
  const int64_t a_panel = 4 * kMr * blk.kq, b_panel = 4 * kNr * blk.kq;
  for (int64_t i = 0; i < blk.rows; i += kMr) {
    const int8_t* a = blk.a + (i / kMr) * a_panel;
    const int rows = static_cast<int>(std::min<int64_t>(kMr, blk.rows - i));
    for (int64_t j = 0; j < blk.cols; j += kNr) {
      const uint8_t* b = blk.b + (j / kNr) * b_panel;
      for (int r = 0; r < kMr; ++r) {
        for (int c = 0; c < kNr; ++c) {
          uint32_t sum = 0;
          for (int64_t p = 0; p < blk.kq; ++p)
            for (int e = 0; e < 4; ++e)
              sum += static_cast<uint32_t>(int32_t{a[p * 4 * kMr + 4 * r + e]} * int32_t{b[p * 4 * kNr + 4 * c + e]});
          if (blk.row_begin && r < rows) {
            for (int64_t e = blk.row_begin[i + r]; e < blk.row_begin[i + r + 1]; ++e) {
              const QuadRemainder& entry = blk.remainder[e];
              int8_t w[4];
              std::memcpy(w, &entry.bytes, sizeof(w));
              for (int x = 0; x < 4; ++x)
                sum += static_cast<uint32_t>(int32_t{w[x]} * int32_t{b[entry.quad * 4 * kNr + 4 * c + x]});
            }
          }
          acc[r * kNr + c] = static_cast<int32_t>(sum);
        }
      }
      internal::StoreU8S8Tile(blk, acc, i, j, rows, static_cast<int>(std::min<int64_t>(kNr, blk.cols - j)),
                              internal::StoreTilePortable);
    }
  }
}

bool GemmU8S8Available() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vnni");
  }();
  return available;
#else
  return false;
#endif
}

bool GemmU8S8SplitAvailable() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return available;
#else
  return false;
#endif
}

void GemmU8S8(const GemmU8S8Block& block) {
  if (block.rows <= 0 || block.cols <= 0) return;
#if defined(__x86_64__) || defined(__i386__)
  if (block.row_begin) {
    if (GemmU8S8SplitAvailable()) {
      internal::GemmU8S8Avx2(block);
      return;
    }
  } else if (GemmU8S8Available()) {
    internal::GemmU8S8Avx512Vnni(block);
    return;
  }
#endif
  GemmU8S8Portable(block);
}

}  // namespace int8
}  // namespace loom
