// The AVX2 parts of the int8 Winograd Conv (conv_winograd_s8.h).
// Input transform: 8 tiles along a tile row and a channel pair at once, one
// channel per 128-bit lane: each of the tiles' 4 rows is two 16-byte loads
// (columns 2k.. and 2k + 2..), split by vpshufb into even and odd columns
// and sign-extended to int16, so d[i][j] holds column j of the 8 tiles;
// B^T d B in 16-bit adds; each point's lanes interleaved into channel pairs
// (vpermq, vpshufb) and stored, masked for a shorter run.
// GEMMs: per transform point, a 6-row (or 4-row) x 16-tile register tile (8
// tiles for the last 8 of a block) of vpmaddwd products of a broadcast weight
// channel pair with 8 tiles' channel pairs, summed into int32 (exact: |U · V|
// pair sums stay far below 2^31). Compiled with function-level target
// attributes only, and called only when the CPU has AVX2.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/int8/conv_winograd_s8.h"

namespace loom {
namespace int8 {
namespace internal {

#define LOOM_AVX2 __attribute__((target("avx2")))

namespace {

// Columns j and j + 1 of 8 tiles from 16 bytes at a (lane 0) and b (lane 1):
// even bytes to *even, odd bytes to *odd, as int16.
LOOM_AVX2 inline void LoadColumns(const int8_t* a, const int8_t* b, __m256i* even, __m256i* odd) {
  const __m256i deinterleave = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10,
                                                12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  const __m256i x = _mm256_shuffle_epi8(
      _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a))),
                              _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), 1),
      deinterleave);
  *even = _mm256_srai_epi16(_mm256_unpacklo_epi8(x, x), 8);
  *odd = _mm256_srai_epi16(_mm256_unpackhi_epi8(x, x), 8);
}

}  // namespace

LOOM_AVX2 void WinogradS8InputAvx2(const WinogradS8Tiles& tiles, int16_t* v) {
  const __m256i interleave = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15, 0, 1, 8, 9, 2, 3,
                                              10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int64_t ld = tiles.row_stride, point_stride = tiles.cpairs * tiles.block * 2;
  for (int64_t cp = 0; cp < tiles.cpairs; ++cp) {
    const int8_t* src0 = tiles.padded + 2 * cp * tiles.plane;
    // A missing odd channel reads the even one; the caller zeroes its slots.
    const int8_t* src1 = 2 * cp + 1 < tiles.cin ? src0 + tiles.plane : src0;
    int16_t* vc = v + cp * tiles.block * 2;
    for (int64_t t = 0; t < tiles.count;) {
      const int64_t th = (tiles.t0 + t) / tiles.tiles_w, tw0 = (tiles.t0 + t) % tiles.tiles_w;
      const int64_t run = std::min(tiles.count - t, tiles.tiles_w - tw0);
      for (int64_t k = 0; k < run; k += 8) {
        const int64_t offset = 2 * th * ld + 2 * (tw0 + k);
        __m256i r[4][4];  // B^T d, column j of the 8 tiles in r[i][j]
        {
          __m256i d[4][4];
          for (int i = 0; i < 4; ++i) {
            const int8_t* a = src0 + offset + i * ld;
            const int8_t* b = src1 + offset + i * ld;
            LoadColumns(a, b, &d[i][0], &d[i][1]);
            LoadColumns(a + 2, b + 2, &d[i][2], &d[i][3]);
          }
          for (int j = 0; j < 4; ++j) {
            r[0][j] = _mm256_sub_epi16(d[0][j], d[2][j]);
            r[1][j] = _mm256_add_epi16(d[1][j], d[2][j]);
            r[2][j] = _mm256_sub_epi16(d[2][j], d[1][j]);
            r[3][j] = _mm256_sub_epi16(d[1][j], d[3][j]);
          }
        }
        const int n = static_cast<int>(std::min<int64_t>(8, run - k));
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
        int16_t* dst = vc + 2 * (t + k);
        for (int i = 0; i < 4; ++i) {
          const __m256i out[4] = {_mm256_sub_epi16(r[i][0], r[i][2]), _mm256_add_epi16(r[i][1], r[i][2]),
                                  _mm256_sub_epi16(r[i][2], r[i][1]), _mm256_sub_epi16(r[i][1], r[i][3])};
          for (int j = 0; j < 4; ++j) {
            const __m256i pairs = _mm256_shuffle_epi8(_mm256_permute4x64_epi64(out[j], 0xD8), interleave);
            int* o = reinterpret_cast<int*>(dst + (i * 4 + j) * point_stride);
            if (n == 8) {
              _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), pairs);
            } else {
              _mm256_maskstore_epi32(o, mask, pairs);
            }
          }
        }
      }
      t += run;
    }
  }
}

LOOM_AVX2 void WinogradS8OutputAvx2(const int32_t* m, int64_t point_stride, int64_t stride, int64_t count,
                                    int32_t* acc) {
  for (int64_t t = 0; t < count; t += 8) {
    __m256i s[4][2];  // A^T M
    for (int j = 0; j < 4; ++j) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + j * point_stride + t));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + (4 + j) * point_stride + t));
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + (8 + j) * point_stride + t));
      const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + (12 + j) * point_stride + t));
      s[j][0] = _mm256_add_epi32(_mm256_add_epi32(a, b), c);
      s[j][1] = _mm256_sub_epi32(_mm256_sub_epi32(b, c), d);
    }
    for (int i = 0; i < 2; ++i) {
      const __m256i y0 = _mm256_add_epi32(_mm256_add_epi32(s[0][i], s[1][i]), s[2][i]);
      const __m256i y1 = _mm256_sub_epi32(_mm256_sub_epi32(s[1][i], s[2][i]), s[3][i]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 2 * i * stride + t), _mm256_srai_epi32(y0, 2));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + (2 * i + 1) * stride + t), _mm256_srai_epi32(y1, 2));
    }
  }
}

namespace {

// Rows [r0, r0 + R) (the last one repeated past `rows`) times 8 · V tiles
// from t0 of point p's M (V's and M's rows `stride` tiles apart).
template <int R, int V>
LOOM_AVX2 inline void GemmTile(const int32_t* const* ur, int64_t cpairs, int64_t r0, int64_t rows, const int16_t* vp,
                               int64_t stride, int64_t t0, int32_t* mp) {
  __m256i acc[R][V];
  for (int k = 0; k < R; ++k)
    for (int v = 0; v < V; ++v) acc[k][v] = _mm256_setzero_si256();
  const int16_t* vc = vp + t0 * 2;
  for (int64_t c = 0; c < cpairs; ++c, vc += stride * 2) {
    __m256i x[V];
    for (int v = 0; v < V; ++v) x[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(vc + 16 * v));
    for (int k = 0; k < R; ++k) {
      int32_t pair;
      std::memcpy(&pair, ur[k] + c, sizeof(pair));
      const __m256i w = _mm256_set1_epi32(pair);
      for (int v = 0; v < V; ++v) acc[k][v] = _mm256_add_epi32(acc[k][v], _mm256_madd_epi16(w, x[v]));
    }
  }
  for (int k = 0; k < R && r0 + k < rows; ++k)
    for (int v = 0; v < V; ++v)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(mp + (r0 + k) * stride + t0 + 8 * v), acc[k][v]);
}

// Rows [r0, r0 + R) of point p's M over its first `count` tiles (a multiple
// of 8): 16 tiles at a time, the last 8 at half the work.
template <int R>
LOOM_AVX2 inline void GemmRows(const int16_t* up, int64_t cpairs, int64_t r0, int64_t rows, const int16_t* vp,
                               int64_t stride, int64_t count, int32_t* mp) {
  const int32_t* ur[R];
  for (int k = 0; k < R; ++k) {
    const int64_t r = r0 + k < rows ? r0 + k : rows - 1;
    ur[k] = reinterpret_cast<const int32_t*>(up + r * cpairs * 2);
  }
  int64_t t0 = 0;
  for (; count - t0 >= 16; t0 += 16) GemmTile<R, 2>(ur, cpairs, r0, rows, vp, stride, t0, mp);
  if (t0 < count) GemmTile<R, 1>(ur, cpairs, r0, rows, vp, stride, t0, mp);
}

}  // namespace

LOOM_AVX2 void WinogradS8GemmAvx2(const int16_t* u, int64_t cout, int64_t cpairs, int64_t m0, int64_t rows,
                                  const int16_t* v, int64_t stride, int64_t count, int32_t* m) {
  for (int p = 0; p < 16; ++p) {
    const int16_t* up = u + (p * cout + m0) * cpairs * 2;
    const int16_t* vp = v + p * cpairs * stride * 2;
    int32_t* mp = m + p * kWinogradS8Rows * stride;
    int64_t r0 = 0;
    for (; rows - r0 > 4; r0 += 6) GemmRows<6>(up, cpairs, r0, rows, vp, stride, count, mp);
    for (; r0 < rows; r0 += 4) GemmRows<4>(up, cpairs, r0, rows, vp, stride, count, mp);
  }
}

#undef LOOM_AVX2

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
