// The GEMM core's AVX-512 VNNI implementation: vpdpwssd (exact, not
// saturating, int16 · int16 pair sums added into int32) on the same packed
// k-pair panels as the other implementations, with a register tile of up to
// two A panels x three B panels (8 rows x 48 columns, 24 zmm accumulators),
// so a k-pair step is three B loads, eight broadcasts and 24 multiply-adds
// over 32 products each, six times the work per load of the 4 x 16 AVX-512BW
// tile. Each finished 4 x 16 sub-tile goes through the shared requantizing
// store. Compiled with a function-level target attribute only (no -march
// flag), and called only when the CPU has AVX-512F, AVX-512BW and
// AVX512_VNNI (gemm_s8.cc).
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

static_assert(kGemmS8Mr == 4 && kGemmS8Nr == 16, "the AVX-512 VNNI micro-kernel reads 4 x 16 panels");

#define LOOM_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

LOOM_AVX512_VNNI inline __m512i BroadcastPair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// acc[pa][pb] (4 x 16 row-major sub-tiles) = A panels pa < MA (consecutive,
// a_stride apart) · B panels pb < NB (b_stride apart) over kp k-pairs.
template <int MA, int NB>
LOOM_AVX512_VNNI void MicroKernel(int64_t kp, const int16_t* a, int64_t a_stride, const int16_t* b, int64_t b_stride,
                                  int32_t* acc) {
  __m512i c[MA * 4][NB];
  for (int r = 0; r < MA * 4; ++r)
    for (int q = 0; q < NB; ++q) c[r][q] = _mm512_setzero_si512();
  const int16_t* a1 = a + (MA > 1 ? a_stride : 0);
  const int16_t* b1 = b + (NB > 1 ? b_stride : 0);
  const int16_t* b2 = b + (NB > 2 ? 2 * b_stride : 0);
  for (int64_t p = 0; p < kp; ++p) {
    __m512i bv[NB];
    bv[0] = _mm512_loadu_si512(b);
    if (NB > 1) bv[1] = _mm512_loadu_si512(b1);
    if (NB > 2) bv[2] = _mm512_loadu_si512(b2);
    for (int r = 0; r < 4; ++r) {
      const __m512i av = BroadcastPair(a + 2 * r);
      for (int q = 0; q < NB; ++q) c[r][q] = _mm512_dpwssd_epi32(c[r][q], av, bv[q]);
    }
    if (MA > 1) {
      for (int r = 0; r < 4; ++r) {
        const __m512i av = BroadcastPair(a1 + 2 * r);
        for (int q = 0; q < NB; ++q) c[4 + r][q] = _mm512_dpwssd_epi32(c[4 + r][q], av, bv[q]);
      }
    }
    a += 2 * kGemmS8Mr;
    a1 += 2 * kGemmS8Mr;
    b += 2 * kGemmS8Nr;
    b1 += 2 * kGemmS8Nr;
    b2 += 2 * kGemmS8Nr;
  }
  for (int pa = 0; pa < MA; ++pa)
    for (int q = 0; q < NB; ++q)
      for (int r = 0; r < 4; ++r)
        _mm512_store_si512(acc + (pa * NB + q) * kGemmS8Mr * kGemmS8Nr + r * kGemmS8Nr, c[pa * 4 + r][q]);
}

using MicroKernelFn = void (*)(int64_t, const int16_t*, int64_t, const int16_t*, int64_t, int32_t*);

constexpr int kMaxA = 2, kMaxB = 3;

}  // namespace

LOOM_AVX512_VNNI void GemmS8Avx512Vnni(const GemmS8Block& blk) {
  static constexpr MicroKernelFn kKernels[kMaxA][kMaxB] = {
      {MicroKernel<1, 1>, MicroKernel<1, 2>, MicroKernel<1, 3>},
      {MicroKernel<2, 1>, MicroKernel<2, 2>, MicroKernel<2, 3>},
  };
  alignas(64) int32_t acc[kMaxA * kMaxB * kGemmS8Mr * kGemmS8Nr];
  const int64_t a_panel = 2 * kGemmS8Mr * blk.kp, b_panel = 2 * kGemmS8Nr * blk.kp;
  const int64_t a_panels = NumAPanels(blk.rows), b_panels = NumBPanels(blk.cols);
  for (int64_t pi = 0; pi < a_panels; pi += kMaxA) {
    const int ma = static_cast<int>(std::min<int64_t>(kMaxA, a_panels - pi));
    const int16_t* a = blk.a + pi * a_panel;
    for (int64_t pj = 0, nb = 0; pj < b_panels; pj += nb) {
      // Three panels at a time, but 2 + 2 rather than 3 + 1 for the last four
      // (a one-panel tile does a third of the work per load).
      const int64_t left = b_panels - pj;
      nb = (left == 4 ? 2 : std::min<int64_t>(kMaxB, left));
      kKernels[ma - 1][nb - 1](blk.kp, a, a_panel, blk.b + pj * b_panel, b_panel, acc);
      for (int sa = 0; sa < ma; ++sa) {
        const int64_t i = (pi + sa) * kGemmS8Mr;
        const int rows = static_cast<int>(std::min<int64_t>(kGemmS8Mr, blk.rows - i));
        for (int sb = 0; sb < nb; ++sb) {
          const int64_t j = (pj + sb) * kGemmS8Nr;
          StoreTileAvx512(blk, acc + (sa * nb + sb) * kGemmS8Mr * kGemmS8Nr, i, j, rows,
                          static_cast<int>(std::min<int64_t>(kGemmS8Nr, blk.cols - j)));
        }
      }
    }
  }
}

#undef LOOM_AVX512_VNNI

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
