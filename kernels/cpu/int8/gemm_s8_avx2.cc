// The GEMM core's AVX2 implementation: a 6 x 16 register tile of int32
// accumulators (12 ymm registers), each k-pair step one broadcast of an A
// row's int16 pair times two B vectors of 8 column pairs through vpmaddwd
// (exact int16 · int16 pair sums into int32), the epilogue of
// store_tile_avx2.cc; and the vector packing of PackBGather's B panels.
// Compiled for AVX2 with function-level target attributes only (no -march
// flag), and called only when the CPU has AVX2 (gemm_s8.cc).
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/gemm_s8_impl.h"

namespace loom {
namespace int8 {
namespace internal {
namespace {

static_assert(kGemmS8Nr == 16, "the AVX2 micro-kernel is two ymm registers wide");

#define LOOM_AVX2 __attribute__((target("avx2")))

LOOM_AVX2 inline __m256i BroadcastPair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm256_set1_epi32(v);
}

LOOM_AVX2 inline __m256i MulAdd(__m256i acc, __m256i a, __m256i b) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}

// acc (R x 16, row-major) = rows · B panel over kp k-pairs, where row r's
// k-pairs start at a[r] (its place in its A panel) and are 2 · kGemmS8Mr
// int16 apart. Each k-pair step: two B vectors, R broadcasts, 2R vpmaddwd.
template <int R>
LOOM_AVX2 inline void MicroKernel(int64_t kp, const int16_t* const* a, const int16_t* b, int32_t* acc) {
  __m256i c[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) c[r][0] = c[r][1] = _mm256_setzero_si256();
  for (int64_t p = 0, off = 0; p < kp; ++p, off += 2 * kGemmS8Mr, b += 2 * kGemmS8Nr) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 16));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i ar = BroadcastPair(a[r] + off);
      c[r][0] = MulAdd(c[r][0], ar, b0);
      c[r][1] = MulAdd(c[r][1], ar, b1);
    }
  }
  __m256i* out = reinterpret_cast<__m256i*>(acc);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm256_store_si256(out + 2 * r, c[r][0]);
    _mm256_store_si256(out + 2 * r + 1, c[r][1]);
  }
}

// Two B panel rows (k, k + 1) of 16 int8 each as 16 int16 k-pairs.
LOOM_AVX2 inline void StorePairs(__m128i r0, __m128i r1, int16_t* dst) {
  __m256i* d = reinterpret_cast<__m256i*>(dst);
  _mm256_storeu_si256(d, _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(r0, r1)));
  _mm256_storeu_si256(d + 1, _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(r0, r1)));
}

// A panel row: p[0, 16) (consecutive columns), or the bytes `shuffle` picks
// from the windows p[0, 16) and p[span - 15, span + 1).
template <bool kConsecutive>
LOOM_AVX2 inline __m128i LoadRow(const int8_t* p, int span, __m128i pick0, __m128i pick1) {
  const __m128i w0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (kConsecutive) return w0;
  const __m128i w1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + span - 15));
  return _mm_or_si128(_mm_shuffle_epi8(w0, pick0), _mm_shuffle_epi8(w1, pick1));
}

template <bool kConsecutive>
LOOM_AVX2 void PackBPanelRows(const int8_t* src, const int32_t* taps, int64_t depth, int span, const int8_t* shuffle,
                              int16_t* dst) {
  __m128i pick0 = _mm_setzero_si128(), pick1 = pick0;  // consecutive columns need no shuffle (it is null)
  if constexpr (!kConsecutive) {
    pick0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(shuffle));
    pick1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(shuffle + 16));
  }
  int64_t kk = 0;
  for (; kk + 1 < depth; kk += 2, dst += 2 * kGemmS8Nr)
    StorePairs(LoadRow<kConsecutive>(src + taps[kk], span, pick0, pick1),
               LoadRow<kConsecutive>(src + taps[kk + 1], span, pick0, pick1), dst);
  if (kk < depth)  // the odd last k: its pair partner is zero
    StorePairs(LoadRow<kConsecutive>(src + taps[kk], span, pick0, pick1), _mm_setzero_si128(), dst);
}

}  // namespace

LOOM_AVX2 bool PackBPanelAvx2(const int8_t* src, const int32_t* taps, int64_t depth, const int32_t* columns,
                              int16_t* dst) {
  static_assert(kGemmS8Nr == 16, "a B panel row is 16 bytes");
  const int32_t span = columns[kGemmS8Nr - 1] - columns[0];
  if (span == kGemmS8Nr - 1) {
    PackBPanelRows<true>(src + columns[0], taps, depth, span, nullptr, dst);
    return true;
  }
  if (span < kGemmS8Nr || span >= 2 * kGemmS8Nr) return false;
  alignas(16) int8_t shuffle[2 * kGemmS8Nr];  // pick0, pick1 (-128: a zero byte)
  for (int j = 0; j < kGemmS8Nr; ++j) {
    const int32_t at = columns[j] - columns[0];
    if (at < 0 || at > span) return false;
    shuffle[j] = at < 16 ? static_cast<int8_t>(at) : -128;
    shuffle[kGemmS8Nr + j] = at < 16 ? -128 : static_cast<int8_t>(at - (span - 15));
  }
  PackBPanelRows<false>(src + columns[0], taps, depth, span, shuffle, dst);
  return true;
}

// Tiles of 6 rows (12 accumulators, 2 B vectors and a broadcast: 15 of the
// 16 ymm registers), which may straddle two A panels; the last rows in a
// tile of 4 or 2. A tile's rows past the block repeat its last row (their
// results are not stored). The tile order is ForEachTile's.
LOOM_AVX2 void GemmS8Avx2(const GemmS8Block& blk) {
  constexpr int kTile = 6;
  alignas(64) int32_t acc[kTile * kGemmS8Nr];
  const int64_t a_panel = 2 * kGemmS8Mr * blk.kp, b_panel = 2 * kGemmS8Nr * blk.kp;
  ForEachTile(blk.rows, blk.cols, b_panel * static_cast<int64_t>(sizeof(int16_t)), [&](int64_t i, int64_t j, int size) {
    const int16_t* a[kTile];
    TileRowPointers(blk.a, a_panel, 2, blk.rows, i, size, a);
    const int16_t* b = blk.b + (j / kGemmS8Nr) * b_panel;
    if (size == kTile) {
      MicroKernel<kTile>(blk.kp, a, b, acc);
    } else if (size == 4) {
      MicroKernel<4>(blk.kp, a, b, acc);
    } else {
      MicroKernel<2>(blk.kp, a, b, acc);
    }
    const int rows = static_cast<int>(std::min<int64_t>(size, blk.rows - i));
    StoreTileAvx2(blk, acc, i, j, rows, static_cast<int>(std::min<int64_t>(kGemmS8Nr, blk.cols - j)));
    return rows;
  });
}

#undef LOOM_AVX2

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
