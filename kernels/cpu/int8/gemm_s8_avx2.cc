// The GEMM core's AVX2 implementation: a 4 x 16 register tile of int32
// accumulators (8 ymm registers), each k-pair step one broadcast of an A
// row's int16 pair times two B vectors of 8 column pairs through vpmaddwd
// (exact int16 · int16 pair sums into int32); and the epilogue shared with
// the AVX-512 implementation, eight table lookups (output_steps.h) at once
// with gathers. Compiled for AVX2 with function-level target attributes only
// (no -march flag), and called only when the CPU has AVX2 (gemm_s8.cc).
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

static_assert(kGemmS8Mr == 4 && kGemmS8Nr == 16, "the AVX2 micro-kernel is 4 x 16");

#define LOOM_AVX2 __attribute__((target("avx2")))

LOOM_AVX2 inline __m256i BroadcastPair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm256_set1_epi32(v);
}

LOOM_AVX2 inline __m256i MulAdd(__m256i acc, __m256i a, __m256i b) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}

// The output channels' tables of eight lanes: broadcast (one channel) or
// eight consecutive channels.
struct LaneSteps {
  __m256 scale, offset;
  __m256i first, top, base;  // base: the lane's table start in bounds()
};

LOOM_AVX2 inline LaneSteps OneChannel(const OutputSteps& s, int64_t c) {
  LaneSteps l;
  l.scale = _mm256_set1_ps(s.scale()[c]);
  l.offset = _mm256_set1_ps(s.offset()[c]);
  l.first = _mm256_set1_epi32(s.first()[c]);
  l.top = _mm256_set1_epi32(s.top()[c]);
  l.base = _mm256_set1_epi32(static_cast<int32_t>(c * OutputSteps::kStride));
  return l;
}

// Channels c0 + lane for lanes < n; further lanes repeat the last channel.
LOOM_AVX2 inline LaneSteps EightChannels(const OutputSteps& s, int64_t c0, int n) {
  alignas(32) float scale[8], offset[8];
  alignas(32) int32_t first[8], top[8], base[8];
  for (int lane = 0; lane < 8; ++lane) {
    const int64_t c = c0 + (lane < n ? lane : n - 1);
    scale[lane] = s.scale()[c];
    offset[lane] = s.offset()[c];
    first[lane] = s.first()[c];
    top[lane] = s.top()[c];
    base[lane] = static_cast<int32_t>(c * OutputSteps::kStride);
  }
  LaneSteps l;
  l.scale = _mm256_load_ps(scale);
  l.offset = _mm256_load_ps(offset);
  l.first = _mm256_load_si256(reinterpret_cast<const __m256i*>(first));
  l.top = _mm256_load_si256(reinterpret_cast<const __m256i*>(top));
  l.base = _mm256_load_si256(reinterpret_cast<const __m256i*>(base));
  return l;
}

// OutputSteps::Lookup of eight accumulators: the estimated index, then steps
// down / up (gathering each lane's upper[i - 1] and upper[i]) until every
// lane's accumulator lies in its interval.
LOOM_AVX2 inline __m256i Lookup8(const OutputSteps& s, const LaneSteps& l, __m256i acc) {
  __m256 e = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), l.scale), l.offset);
  e = _mm256_min_ps(_mm256_max_ps(e, _mm256_setzero_ps()), _mm256_set1_ps(255.f));
  __m256i i = _mm256_min_epi32(_mm256_cvtps_epi32(e), l.top);
  const __m256i zero = _mm256_setzero_si256();
  for (;;) {
    const __m256i at = _mm256_add_epi32(l.base, i);
    const __m256i lower = _mm256_i32gather_epi32(s.bounds(), at, 4);      // upper[i - 1]
    const __m256i upper = _mm256_i32gather_epi32(s.bounds() + 1, at, 4);  // upper[i]
    const __m256i down = _mm256_andnot_si256(_mm256_cmpgt_epi32(acc, lower), _mm256_cmpgt_epi32(i, zero));
    const __m256i up = _mm256_cmpgt_epi32(acc, upper);
    const __m256i move = _mm256_or_si256(down, up);
    if (_mm256_testz_si256(move, move)) break;
    i = _mm256_add_epi32(_mm256_sub_epi32(i, up), down);  // the masks are -1: up adds 1, down subtracts 1
  }
  return _mm256_add_epi32(i, l.first);
}

// Stores the low n (<= 8) int8 values of eight int32 lanes (all in int8 range).
LOOM_AVX2 inline void Store8(__m256i v, int n, int8_t* y) {
  const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i b = _mm_packs_epi16(w, w);
  if (n == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y), b);
  } else {
    alignas(16) int8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), b);
    std::memcpy(y, tmp, static_cast<size_t>(n));
  }
}

// acc (4 x 16, row-major) = A panel · B panel over kp k-pairs.
LOOM_AVX2 void MicroKernel4x16(int64_t kp, const int16_t* a, const int16_t* b, int32_t* acc) {
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00;
  __m256i c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  for (int64_t p = 0; p < kp; ++p, a += 2 * kGemmS8Mr, b += 2 * kGemmS8Nr) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 16));
    __m256i ar = BroadcastPair(a);
    c00 = MulAdd(c00, ar, b0);
    c01 = MulAdd(c01, ar, b1);
    ar = BroadcastPair(a + 2);
    c10 = MulAdd(c10, ar, b0);
    c11 = MulAdd(c11, ar, b1);
    ar = BroadcastPair(a + 4);
    c20 = MulAdd(c20, ar, b0);
    c21 = MulAdd(c21, ar, b1);
    ar = BroadcastPair(a + 6);
    c30 = MulAdd(c30, ar, b0);
    c31 = MulAdd(c31, ar, b1);
  }
  __m256i* out = reinterpret_cast<__m256i*>(acc);
  _mm256_store_si256(out + 0, c00);
  _mm256_store_si256(out + 1, c01);
  _mm256_store_si256(out + 2, c10);
  _mm256_store_si256(out + 3, c11);
  _mm256_store_si256(out + 4, c20);
  _mm256_store_si256(out + 5, c21);
  _mm256_store_si256(out + 6, c30);
  _mm256_store_si256(out + 7, c31);
}

}  // namespace

LOOM_AVX2 void StoreTileAvx2(const GemmS8Block& blk, const int32_t* acc, int64_t i0, int64_t j0, int rows, int cols) {
  const OutputSteps& steps = *blk.steps;
  if (blk.per_row) {
    for (int r = 0; r < rows; ++r) {
      const LaneSteps l = OneChannel(steps, blk.channel0 + i0 + r);
      const __m256i bias = _mm256_set1_epi32(blk.bias[i0 + r]);
      int8_t* y = blk.y + (i0 + r) * blk.ldy + j0;
      for (int h = 0; h < cols; h += 8) {
        const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + r * kGemmS8Nr + h));
        Store8(Lookup8(steps, l, _mm256_add_epi32(a, bias)), std::min(8, cols - h), y + h);
      }
    }
    return;
  }
  for (int h = 0; h < cols; h += 8) {
    const int n = std::min(8, cols - h);
    const LaneSteps l = EightChannels(steps, blk.channel0 + j0 + h, n);
    alignas(32) int32_t b[8] = {};
    std::memcpy(b, blk.bias + j0 + h, static_cast<size_t>(n) * sizeof(int32_t));
    const __m256i bias = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
    for (int r = 0; r < rows; ++r) {
      const __m256i a = _mm256_load_si256(reinterpret_cast<const __m256i*>(acc + r * kGemmS8Nr + h));
      Store8(Lookup8(steps, l, _mm256_add_epi32(a, bias)), n, blk.y + (i0 + r) * blk.ldy + j0 + h);
    }
  }
}

LOOM_AVX2 void RequantizeRowAvx2(const OutputSteps& steps, int64_t channel, const int32_t* acc, int32_t bias, int64_t n,
                                 int8_t* y) {
  const LaneSteps l = OneChannel(steps, channel);
  const __m256i b = _mm256_set1_epi32(bias);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i));
    Store8(Lookup8(steps, l, _mm256_add_epi32(a, b)), 8, y + i);
  }
  for (; i < n; ++i) y[i] = static_cast<int8_t>(steps.Lookup(channel, WrappingAdd(acc[i], bias)));
}

LOOM_AVX2 void GemmS8Avx2(const GemmS8Block& blk) {
  alignas(64) int32_t acc[kGemmS8Mr * kGemmS8Nr];
  const int64_t a_panel = 2 * kGemmS8Mr * blk.kp, b_panel = 2 * kGemmS8Nr * blk.kp;
  for (int64_t i = 0; i < blk.rows; i += kGemmS8Mr) {
    const int16_t* a = blk.a + (i / kGemmS8Mr) * a_panel;
    const int rows = static_cast<int>(std::min<int64_t>(kGemmS8Mr, blk.rows - i));
    for (int64_t j = 0; j < blk.cols; j += kGemmS8Nr) {
      MicroKernel4x16(blk.kp, a, blk.b + (j / kGemmS8Nr) * b_panel, acc);
      StoreTileAvx2(blk, acc, i, j, rows, static_cast<int>(std::min<int64_t>(kGemmS8Nr, blk.cols - j)));
    }
  }
}

#undef LOOM_AVX2

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
