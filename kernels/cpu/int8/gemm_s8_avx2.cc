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
