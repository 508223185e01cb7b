// The u8 · s8 GEMM core (gemm_u8s8.h) on AVX-512 VNNI: vpdpbusd (four
// u8 · s8 products summed into each int32 lane, not saturating) on quad
// panels, with a register tile of up to two A panels x three B panels
// (8 rows x 48 columns, 24 zmm accumulators): a k-quad step is three B loads,
// eight broadcasts and 24 multiply-adds over 64 products each, twice the
// products per instruction of the int16 k-pair kernel. Each finished 4 x 16
// sub-tile goes through the AVX-512 requantizing store with the bias minus
// the weight offset. Compiled with a function-level target attribute only,
// and called only when the CPU has AVX-512F, AVX-512BW and AVX512_VNNI.
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

#define LOOM_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

LOOM_AVX512_VNNI inline __m512i BroadcastQuad(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// acc[pa][pb] (4 x 16 row-major sub-tiles) = A panels pa < MA (a_stride
// apart) · B panels pb < NB (b_stride apart) over kq k-quads.
template <int MA, int NB>
LOOM_AVX512_VNNI void MicroKernel(int64_t kq, const int8_t* a, int64_t a_stride, const uint8_t* b, int64_t b_stride,
                                  int32_t* acc) {
  __m512i c[MA * 4][NB];
  for (int r = 0; r < MA * 4; ++r)
    for (int q = 0; q < NB; ++q) c[r][q] = _mm512_setzero_si512();
  const int8_t* a1 = a + (MA > 1 ? a_stride : 0);
  const uint8_t* b1 = b + (NB > 1 ? b_stride : 0);
  const uint8_t* b2 = b + (NB > 2 ? 2 * b_stride : 0);
  for (int64_t p = 0; p < kq; ++p) {
    __m512i bv[NB];
    bv[0] = _mm512_loadu_si512(b);
    if (NB > 1) bv[1] = _mm512_loadu_si512(b1);
    if (NB > 2) bv[2] = _mm512_loadu_si512(b2);
    for (int r = 0; r < 4; ++r) {
      const __m512i av = BroadcastQuad(a + 4 * r);
      for (int q = 0; q < NB; ++q) c[r][q] = _mm512_dpbusd_epi32(c[r][q], bv[q], av);
    }
    if (MA > 1) {
      for (int r = 0; r < 4; ++r) {
        const __m512i av = BroadcastQuad(a1 + 4 * r);
        for (int q = 0; q < NB; ++q) c[4 + r][q] = _mm512_dpbusd_epi32(c[4 + r][q], bv[q], av);
      }
    }
    a += 4 * kGemmS8Mr;
    a1 += 4 * kGemmS8Mr;
    b += 4 * kGemmS8Nr;
    b1 += 4 * kGemmS8Nr;
    b2 += 4 * kGemmS8Nr;
  }
  for (int pa = 0; pa < MA; ++pa)
    for (int q = 0; q < NB; ++q)
      for (int r = 0; r < 4; ++r)
        _mm512_store_si512(acc + (pa * NB + q) * kGemmS8Mr * kGemmS8Nr + r * kGemmS8Nr, c[pa * 4 + r][q]);
}

using MicroKernelFn = void (*)(int64_t, const int8_t*, int64_t, const uint8_t*, int64_t, int32_t*);

constexpr int kMaxA = 2, kMaxB = 3;

}  // namespace

LOOM_AVX512_VNNI void GemmU8S8Avx512Vnni(const GemmU8S8Block& blk) {
  static constexpr MicroKernelFn kKernels[kMaxA][kMaxB] = {
      {MicroKernel<1, 1>, MicroKernel<1, 2>, MicroKernel<1, 3>},
      {MicroKernel<2, 1>, MicroKernel<2, 2>, MicroKernel<2, 3>},
  };
  alignas(64) int32_t acc[kMaxA * kMaxB * kGemmS8Mr * kGemmS8Nr];
  const int64_t a_panel = 4 * kGemmS8Mr * blk.kq, b_panel = 4 * kGemmS8Nr * blk.kq;
  const int64_t a_panels = NumAPanels(blk.rows), b_panels = NumBPanels(blk.cols);
  for (int64_t pi = 0; pi < a_panels; pi += kMaxA) {
    const int ma = static_cast<int>(std::min<int64_t>(kMaxA, a_panels - pi));
    const int8_t* a = blk.a + pi * a_panel;
    const int64_t i0 = pi * kGemmS8Mr;
    const int rows = static_cast<int>(std::min<int64_t>(kMaxA * kGemmS8Mr, blk.rows - i0));
    for (int64_t pj = 0, nb = 0; pj < b_panels; pj += nb) {
      const int64_t left = b_panels - pj;
      nb = (left == 4 ? 2 : std::min<int64_t>(kMaxB, left));
      kKernels[ma - 1][nb - 1](blk.kq, a, a_panel, blk.b + pj * b_panel, b_panel, acc);
      for (int sa = 0; sa < ma; ++sa) {
        const int sub_rows = std::min(kGemmS8Mr, rows - sa * kGemmS8Mr);
        for (int sb = 0; sb < nb; ++sb) {
          const int64_t j = (pj + sb) * kGemmS8Nr;
          StoreU8S8Tile(blk, acc + (sa * nb + sb) * kGemmS8Mr * kGemmS8Nr, i0 + sa * kGemmS8Mr, j, sub_rows,
                        static_cast<int>(std::min<int64_t>(kGemmS8Nr, blk.cols - j)), StoreTileAvx512);
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
