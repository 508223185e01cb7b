// The AVX2 loops of max_pool_avx2.h. Compiled with function-level target
// attributes only, and called only when the CPU has AVX2.
#if defined(__x86_64__) || defined(__i386__)

#include "kernels/cpu/int8/max_pool_avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#define LOOM_AVX2 __attribute__((target("avx2")))

namespace loom {
namespace int8 {
namespace internal {
namespace {

LOOM_AVX2 inline __m256i Load32(const int8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// The max over the window taps of positions p[0, 32); kKernel > 0 fixes the
// kernel width at compile time.
template <int kKernel>
LOOM_AVX2 inline __m256i TapMax(const int8_t* p, int kernel, int dilation) {
  if (kKernel > 0) kernel = kKernel;
  __m256i m = Load32(p);
  for (int k = 1; k < kernel; ++k) m = _mm256_max_epi8(m, Load32(p + k * dilation));
  return m;
}

// 32 outputs starting at row position p.
template <int kStride, int kKernel>
LOOM_AVX2 inline __m256i Outputs32(const int8_t* p, int kernel, int dilation) {
  if (kStride == 1) return TapMax<kKernel>(p, kernel, dilation);
  const __m256i even = _mm256_set1_epi16(0x00FF);
  const __m256i lo = _mm256_and_si256(TapMax<kKernel>(p, kernel, dilation), even);
  const __m256i hi = _mm256_and_si256(TapMax<kKernel>(p + 32, kernel, dilation), even);
  // Quadwords: lo[0, 16) hi[32, 48) lo[16, 32) hi[48, 64) (even positions).
  return _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8);
}

// out[o] for o < out_w from the reduced row in `buffer`. The last partial
// step overlaps the previous one (storing the same values again) when there
// is one.
template <int kStride, int kKernel>
LOOM_AVX2 void WindowMax(const int8_t* buffer, int64_t out_w, int kernel, int dilation, int8_t* out) {
  int64_t o = 0;
  for (; o + 32 <= out_w; o += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + o),
                        Outputs32<kStride, kKernel>(buffer + o * kStride, kernel, dilation));
  if (o < out_w && out_w >= 32) {
    o = out_w - 32;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + o),
                        Outputs32<kStride, kKernel>(buffer + o * kStride, kernel, dilation));
  } else if (o < out_w) {
    alignas(32) int8_t tmp[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp),
                       Outputs32<kStride, kKernel>(buffer + o * kStride, kernel, dilation));
    std::memcpy(out + o, tmp, static_cast<size_t>(out_w - o));
  }
}

// The element-wise max of rows[0, count) (count >= 1); kCount > 0 fixes the
// count at compile time.
template <int kCount>
LOOM_AVX2 void MaxOfRows(const int8_t* const* rows, int count, int64_t width, int8_t* reduced) {
  if (kCount > 0) count = kCount;
  int64_t i = 0;
  for (; i + 32 <= width; i += 32) {
    __m256i m = Load32(rows[0] + i);
    for (int r = 1; r < count; ++r) m = _mm256_max_epi8(m, Load32(rows[r] + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(reduced + i), m);
  }
  for (; i + 16 <= width; i += 16) {
    __m128i m = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[0] + i));
    for (int r = 1; r < count; ++r) m = _mm_max_epi8(m, _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[r] + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(reduced + i), m);
  }
  for (; i < width; ++i) {
    int8_t m = rows[0][i];
    for (int r = 1; r < count; ++r) m = std::max(m, rows[r][i]);
    reduced[i] = m;
  }
}

}  // namespace

// 3x3 windows (ResNet's stem pooling among them) run with the counts fixed.
LOOM_AVX2 void MaxPoolRowAvx2(const int8_t* const* rows, int count, int64_t width, int8_t* buffer, int64_t pad,
                              int64_t out_w, int stride, int kernel, int dilation, int8_t* out) {
  int8_t* reduced = buffer + pad;
  if (count == 0) {
    std::memset(reduced, -128, static_cast<size_t>(width));
  } else if (count == 3) {
    MaxOfRows<3>(rows, count, width, reduced);
  } else {
    MaxOfRows<0>(rows, count, width, reduced);
  }
  if (stride == 1) {
    if (kernel == 3) {
      WindowMax<1, 3>(buffer, out_w, kernel, dilation, out);
    } else {
      WindowMax<1, 0>(buffer, out_w, kernel, dilation, out);
    }
  } else if (kernel == 3) {
    WindowMax<2, 3>(buffer, out_w, kernel, dilation, out);
  } else {
    WindowMax<2, 0>(buffer, out_w, kernel, dilation, out);
  }
}

#undef LOOM_AVX2

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
