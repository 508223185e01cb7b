// Winograd filter transform into packed GEMM operands (see conv_winograd_filter.h).
#include "kernels/cpu/nn/conv_winograd_filter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace loom {
namespace nn {
namespace {

constexpr int kMaxNr = 64;  // widest packed panel this transform supports

// out[i][j] = sum_k G[i][k] v_k[j] for j < n, G of F(M, 3) (M + 2 rows):
//   F(2x2): G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
//   F(4x4): G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6;
//                1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
// The loops run across j so that they vectorize.
template <int M>
void FilterRows(const float* v0, const float* v1, const float* v2, int n, float* const* out) {
  if (M == 2) {
    for (int j = 0; j < n; ++j) {
      const float s = v0[j] + v2[j];
      out[0][j] = v0[j];
      out[1][j] = (s + v1[j]) * 0.5f;
      out[2][j] = (s - v1[j]) * 0.5f;
      out[3][j] = v2[j];
    }
  } else {
    constexpr float kSixth = 1.f / 6.f;
    for (int j = 0; j < n; ++j) {
      const float s = v0[j] + v2[j];
      const float q = v0[j] * 0.25f + v2[j], h = v1[j] * 0.5f;
      out[0][j] = v0[j] * 0.25f;
      out[1][j] = (s + v1[j]) * -kSixth;
      out[2][j] = (s - v1[j]) * -kSixth;
      out[3][j] = (q + h) * kSixth;
      out[4][j] = (q - h) * kSixth;
      out[5][j] = v2[j];
    }
  }
}

template <int M>
void Transform(const float* w, int64_t cin, int64_t cout, int nr, std::vector<PackedMatrixF32>* u) {
  constexpr int kA = M + 2;
  alignas(64) float g[9][kMaxNr];      // the panel's filters for one input channel, tap-major
  alignas(64) float t[kA][3][kMaxNr];  // G g
  float* dst[kA * kA];
  for (int64_t k0 = 0; k0 < cin; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, cin - k0);
    for (int64_t n0 = 0; n0 < cout; n0 += nr) {
      const int width = static_cast<int>(std::min<int64_t>(nr, cout - n0));
      for (int p = 0; p < kA * kA; ++p) dst[p] = (*u)[p].MutableBlockB(k0, n0);
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float* src = w + (n0 * cin + k0 + kk) * 9;
        for (int j = 0; j < width; ++j, src += cin * 9)
          for (int tap = 0; tap < 9; ++tap) g[tap][j] = src[tap];
        for (int l = 0; l < 3; ++l) {
          float* col[kA];
          for (int i = 0; i < kA; ++i) col[i] = t[i][l];
          FilterRows<M>(g[l], g[3 + l], g[6 + l], width, col);
        }
        for (int i = 0; i < kA; ++i) {
          float* row[kA];
          for (int j = 0; j < kA; ++j) row[j] = dst[i * kA + j] + kk * nr;
          FilterRows<M>(t[i][0], t[i][1], t[i][2], width, row);
        }
        if (width < nr)
          for (int p = 0; p < kA * kA; ++p) std::fill(dst[p] + kk * nr + width, dst[p] + (kk + 1) * nr, 0.f);
      }
    }
  }
}

}  // namespace

void TransformWinogradFilters(int m, const float* w, int64_t cin, int64_t cout, const GemmF32Isa& isa,
                              std::vector<PackedMatrixF32>* u) {
  if (isa.nr > kMaxNr) {
    std::fprintf(stderr, "TransformWinogradFilters: panels of %d columns (at most %d)\n", isa.nr, kMaxNr);
    std::abort();
  }
  const int points = (m + 2) * (m + 2);
  *u = PackedMatrixF32::AllocateManyB(static_cast<size_t>(points), cin, cout, isa);
  if (m == 2) {
    Transform<2>(w, cin, cout, isa.nr, u);
  } else {
    Transform<4>(w, cin, cout, isa.nr, u);
  }
}

}  // namespace nn
}  // namespace loom
