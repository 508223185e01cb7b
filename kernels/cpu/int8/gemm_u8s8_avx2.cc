// The u8 · s8 GEMM core (gemm_u8s8.h) on AVX2, for split weights: a 6 x 16
// register tile of int32 accumulators (12 ymm registers), each k-quad step
// two B vectors of 8 column quads, then per row one broadcast of its four
// weights, vpmaddubsw (u8 · s8 products summed in pairs into int16, exact on
// split weights), vpmaddwd by ones (the two pairs into an int32) and vpaddd:
// 64 products in 6 instructions where the int16 k-pair kernel of
// gemm_s8_avx2.cc needs 8. The sparse remainder entries of a tile's rows go
// into the tile the same way (one broadcast, the B quad row of the entry's
// k-quad) after each slice of kChunk k-quads, then the AVX2 requantizing
// store with the bias minus the weight offset. A last B panel of 5 to 8
// columns takes one B vector per step, half the work; one of at most 4 (a 7x7
// output plane's 49th column) runs with the operands' roles swapped
// (NarrowPanel), at a sixteenth of the work per column. Compiled with
// function-level target attributes only, and called only when the CPU has
// AVX2.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/int8/gemm_s8_impl.h"
#include "kernels/cpu/int8/gemm_u8s8.h"

namespace loom {
namespace int8 {
namespace internal {
namespace {

static_assert(kGemmS8Mr == 4 && kGemmS8Nr == 16, "the u8 · s8 micro-kernel reads 4 x 16 quad panels");

#define LOOM_AVX2 __attribute__((target("avx2")))

constexpr int kTile = 6;
// k-quads per pass of the micro-kernel (a 16 KB slice of a B panel), after
// which the remainder entries of the slice are added while it is in L1.
constexpr int64_t kChunk = 256;

LOOM_AVX2 inline __m256i BroadcastQuad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm256_set1_epi32(v);
}

alignas(32) const int16_t kOnes[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

// acc + Σ of each column quad of b times the quad of weights w. The ones
// vector is read from memory at each use (an empty asm hides that the address
// is constant, so the load is neither hoisted nor shared): a memory operand of
// vpmaddwd, leaving its register to the 6 x 16 tile.
LOOM_AVX2 inline __m256i QuadMulAdd(__m256i acc, __m256i b, __m256i w) {
  const int16_t* ones = kOnes;
  asm("" : "+r"(ones));
  return _mm256_add_epi32(
      acc, _mm256_madd_epi16(_mm256_maddubs_epi16(b, w), _mm256_load_si256(reinterpret_cast<const __m256i*>(ones))));
}

// acc (R x 16, row-major; its first 8 · V columns) (+)= rows · B panel over
// kq k-quads, where row r's k-quads start at a[r] + off (its place in its A
// panel) and are 4 · kGemmS8Mr bytes apart; `add` keeps acc's values. V = 1
// serves a last panel of at most 8 columns at half the work.
template <int R, int V>
LOOM_AVX2 inline void MicroKernel(int64_t kq, const int8_t* const* a, int64_t off, const uint8_t* b, bool add,
                                  int32_t* acc) {
  __m256i c[R][V];
  __m256i* out = reinterpret_cast<__m256i*>(acc);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) c[r][v] = add ? _mm256_load_si256(out + 2 * r + v) : _mm256_setzero_si256();
  for (int64_t p = 0; p < kq; ++p, off += 4 * kGemmS8Mr, b += 4 * kGemmS8Nr) {
    __m256i x[V];
    for (int v = 0; v < V; ++v) x[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32 * v));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256i w = BroadcastQuad(a[r] + off);
      for (int v = 0; v < V; ++v) c[r][v] = QuadMulAdd(c[r][v], x[v], w);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) _mm256_store_si256(out + 2 * r + v, c[r][v]);
}

// The micro-kernel for a tile of `size` rows (6, 4 or 2) and `cols` columns.
LOOM_AVX2 inline void RunMicroKernel(int size, int64_t cols, int64_t kq, const int8_t* const* a, int64_t off,
                                     const uint8_t* b, bool add, int32_t* acc) {
  if (cols > 8) {
    if (size == kTile) return MicroKernel<kTile, 2>(kq, a, off, b, add, acc);
    if (size == 4) return MicroKernel<4, 2>(kq, a, off, b, add, acc);
    return MicroKernel<2, 2>(kq, a, off, b, add, acc);
  }
  if (size == kTile) return MicroKernel<kTile, 1>(kq, a, off, b, add, acc);
  if (size == 4) return MicroKernel<4, 1>(kq, a, off, b, add, acc);
  return MicroKernel<2, 1>(kq, a, off, b, add, acc);
}

// Adds the remainder entries [*next, end) of k-quads below `quad_end` times
// the B panel b to their row's accumulators acc (16 int32), advancing *next.
LOOM_AVX2 inline void AddRemainder(const QuadRemainder* entries, int64_t* next, int64_t end, int64_t quad_end,
                                   const uint8_t* b, int32_t* acc) {
  int64_t e = *next;
  if (e == end || entries[e].quad >= quad_end) return;
  __m256i* out = reinterpret_cast<__m256i*>(acc);
  __m256i c0 = _mm256_load_si256(out), c1 = _mm256_load_si256(out + 1);
  for (; e < end && entries[e].quad < quad_end; ++e) {
    const QuadRemainder& entry = entries[e];
    const __m256i w = _mm256_set1_epi32(entry.bytes);
    const uint8_t* q = b + static_cast<int64_t>(entry.quad) * 4 * kGemmS8Nr;
    c0 = QuadMulAdd(c0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)), w);
    c1 = QuadMulAdd(c1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32)), w);
  }
  _mm256_store_si256(out, c0);
  _mm256_store_si256(out + 1, c1);
  *next = e;
}

// A last B panel of at most 4 columns (49 = 3 · 16 + 1 for a 7x7 output
// plane): the operands swap roles. Each k-quad step loads 8 rows' quads of A
// (two A panels) as one vector, broadcasts each column's B quad and
// accumulates acc[c][v] = rows 8v.. of column c, so a column costs 1/16 of a
// full panel. Rows [i, i + 8 · V) of the block; A panels past its rows read
// as zeros.
template <int V, int NC>
LOOM_AVX2 void NarrowRows(const GemmU8S8Block& blk, int64_t i, const uint8_t* b, int32_t* tile) {
  const int64_t a_panel = 4 * kGemmS8Mr * blk.kq, panels = (blk.rows + kGemmS8Mr - 1) / kGemmS8Mr;
  const int8_t* pa[2 * V];
  bool present[2 * V];
  for (int h = 0; h < 2 * V; ++h) {
    const int64_t panel = i / kGemmS8Mr + h;
    present[h] = panel < panels;
    pa[h] = blk.a + (present[h] ? panel : 0) * a_panel;
  }
  __m256i c[NC][V];
  for (int n = 0; n < NC; ++n)
    for (int v = 0; v < V; ++v) c[n][v] = _mm256_setzero_si256();
  for (int64_t q = 0; q < blk.kq; ++q) {
    __m256i w[V];
    for (int v = 0; v < V; ++v) {
      const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa[2 * v] + q * 4 * kGemmS8Mr));
      const __m128i hi = present[2 * v + 1]
                             ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa[2 * v + 1] + q * 4 * kGemmS8Mr))
                             : _mm_setzero_si128();
      w[v] = _mm256_inserti128_si256(_mm256_castsi128_si256(present[2 * v] ? lo : _mm_setzero_si128()), hi, 1);
    }
    const uint8_t* bq = b + q * 4 * kGemmS8Nr;
    for (int n = 0; n < NC; ++n) {
      const __m256i x = BroadcastQuad(reinterpret_cast<const int8_t*>(bq + 4 * n));
      for (int v = 0; v < V; ++v) c[n][v] = QuadMulAdd(c[n][v], x, w[v]);
    }
  }
  alignas(32) int32_t lanes[8];
  for (int n = 0; n < NC; ++n)
    for (int v = 0; v < V; ++v) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), c[n][v]);
      for (int l = 0; l < 8; ++l) tile[(8 * v + l) * kGemmS8Nr + n] = lanes[l];
    }
}

// The narrow last panel (columns j.. of `cols` <= 4) of the whole block:
// groups of up to 16 rows, their remainder entries, stores of up to 8 rows.
LOOM_AVX2 void NarrowPanel(const GemmU8S8Block& blk, int64_t j, int64_t cols, const uint8_t* b) {
  alignas(64) int32_t tile[16 * kGemmS8Nr];
  for (int64_t i = 0; i < blk.rows; i += 16) {
    const int rows = static_cast<int>(std::min<int64_t>(16, blk.rows - i));
    using RowsFn = void (*)(const GemmU8S8Block&, int64_t, const uint8_t*, int32_t*);
    static constexpr RowsFn kNarrowRows[4][2] = {{NarrowRows<1, 1>, NarrowRows<2, 1>},
                                                 {NarrowRows<1, 2>, NarrowRows<2, 2>},
                                                 {NarrowRows<1, 3>, NarrowRows<2, 3>},
                                                 {NarrowRows<1, 4>, NarrowRows<2, 4>}};
    kNarrowRows[cols - 1][rows > 8 ? 1 : 0](blk, i, b, tile);
    for (int r = 0; r < rows; ++r) {
      int64_t next = blk.row_begin[i + r];
      AddRemainder(blk.remainder, &next, blk.row_begin[i + r + 1], blk.kq, b, tile + r * kGemmS8Nr);
    }
    for (int r0 = 0; r0 < rows; r0 += kMaxStoreRows)
      StoreU8S8Tile(blk, tile + r0 * kGemmS8Nr, i + r0, j, std::min(kMaxStoreRows, rows - r0), static_cast<int>(cols),
                    StoreTileAvx2);
  }
}

}  // namespace

// Tiles of 6 rows (12 accumulators, 2 B vectors, a broadcast and the
// vpmaddubsw result: the 16 ymm registers), which may straddle two A panels;
// the last rows in a tile of 4 or 2 whose rows past the block repeat its last
// row (not stored). The tile order is ForEachTile's.
LOOM_AVX2 void GemmU8S8Avx2(const GemmU8S8Block& blk) {
  alignas(64) int32_t acc[kTile * kGemmS8Nr];
  const int64_t a_panel = 4 * kGemmS8Mr * blk.kq, b_panel = 4 * kGemmS8Nr * blk.kq;
  const int64_t narrow = blk.cols % kGemmS8Nr <= 4 ? blk.cols % kGemmS8Nr : 0;  // the last panel's, if narrow
  if (narrow > 0) {
    const int64_t j = blk.cols - narrow;
    NarrowPanel(blk, j, narrow, blk.b + (j / kGemmS8Nr) * b_panel);
  }
  ForEachTile(blk.rows, blk.cols - narrow, b_panel, [&](int64_t i, int64_t j, int size) {
    const int8_t* a[kTile];
    TileRowPointers(blk.a, a_panel, 4, blk.rows, i, size, a);
    const uint8_t* b = blk.b + (j / kGemmS8Nr) * b_panel;
    const int rows = static_cast<int>(std::min<int64_t>(size, blk.rows - i));
    const int64_t cols = std::min<int64_t>(kGemmS8Nr, blk.cols - j);
    int64_t next[kTile];
    for (int r = 0; r < rows; ++r) next[r] = blk.row_begin[i + r];
    for (int64_t q0 = 0; q0 == 0 || q0 < blk.kq; q0 += kChunk) {  // once at least (kq may be 0)
      const int64_t quads = std::min(kChunk, blk.kq - q0);
      const uint8_t* bq = b + q0 * 4 * kGemmS8Nr;
      RunMicroKernel(size, cols, quads, a, q0 * 4 * kGemmS8Mr, bq, q0 > 0, acc);
      for (int r = 0; r < rows; ++r)
        AddRemainder(blk.remainder, &next[r], blk.row_begin[i + r + 1], q0 + quads, b, acc + r * kGemmS8Nr);
    }
    StoreU8S8Tile(blk, acc, i, j, rows, static_cast<int>(cols), StoreTileAvx2);
    return rows;
  });
}

#undef LOOM_AVX2

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
