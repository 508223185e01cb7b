// The GEMM core's AVX-512 implementation: the AVX2 one's 4 x 16 register tile
// (gemm_s8_avx2.cc) with each row in one zmm register, so a k-pair step is
// one B load, four broadcasts and four vpmaddwd (exact int16 · int16 pair
// sums into int32) over 32 products each: twice the AVX2 work per
// instruction on the same packed panels. Compiled for AVX-512BW with a
// function-level target attribute only (no -march flag), and called only
// when the CPU has AVX-512F and AVX-512BW (gemm_s8.cc).
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

static_assert(kGemmS8Mr == 4 && kGemmS8Nr == 16, "the AVX-512 micro-kernel is 4 x 16");

#define LOOM_AVX512 __attribute__((target("avx512f,avx512bw")))

LOOM_AVX512 inline __m512i BroadcastPair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

LOOM_AVX512 inline __m512i MulAdd(__m512i acc, __m512i a, __m512i b) {
  return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
}

// acc (4 x 16, row-major) = A panel · B panel over kp k-pairs.
LOOM_AVX512 void MicroKernel4x16(int64_t kp, const int16_t* a, const int16_t* b, int32_t* acc) {
  __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0;
  for (int64_t p = 0; p < kp; ++p, a += 2 * kGemmS8Mr, b += 2 * kGemmS8Nr) {
    const __m512i bv = _mm512_loadu_si512(b);
    c0 = MulAdd(c0, BroadcastPair(a), bv);
    c1 = MulAdd(c1, BroadcastPair(a + 2), bv);
    c2 = MulAdd(c2, BroadcastPair(a + 4), bv);
    c3 = MulAdd(c3, BroadcastPair(a + 6), bv);
  }
  _mm512_store_si512(acc, c0);
  _mm512_store_si512(acc + 16, c1);
  _mm512_store_si512(acc + 32, c2);
  _mm512_store_si512(acc + 48, c3);
}

}  // namespace

LOOM_AVX512 void GemmS8Avx512(const GemmS8Block& blk) {
  alignas(64) int32_t acc[kGemmS8Mr * kGemmS8Nr];
  const int64_t a_panel = 2 * kGemmS8Mr * blk.kp, b_panel = 2 * kGemmS8Nr * blk.kp;
  for (int64_t i = 0; i < blk.rows; i += kGemmS8Mr) {
    const int16_t* a = blk.a + (i / kGemmS8Mr) * a_panel;
    const int rows = static_cast<int>(std::min<int64_t>(kGemmS8Mr, blk.rows - i));
    for (int64_t j = 0; j < blk.cols; j += kGemmS8Nr) {
      MicroKernel4x16(blk.kp, a, blk.b + (j / kGemmS8Nr) * b_panel, acc);
      StoreTileAvx512(blk, acc, i, j, rows, static_cast<int>(std::min<int64_t>(kGemmS8Nr, blk.cols - j)));
    }
  }
}

#undef LOOM_AVX512

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
