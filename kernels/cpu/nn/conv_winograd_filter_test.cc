// Winograd filter transform (conv_winograd_filter.h) against the transform in
// double, read back through the packed layout: both tiles, every GEMM path
// this CPU supports, channel counts across panel and KC-block edges; zero
// padding right of Cout; the same values on every path.
#include "kernels/cpu/nn/conv_winograd_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace loom {
namespace nn {
namespace {

// G of F(m, 3), (m + 2) x 3, row-major.
std::vector<double> FilterMatrix(int m) {
  if (m == 2) return {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
  return {1.0 / 4,  0,        0,       -1.0 / 6, -1.0 / 6,  -1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6,
          1.0 / 24, 1.0 / 12, 1.0 / 6, 1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,       1};
}

// U_p[ci][co] in double, p = i * a + j.
double Reference(int m, const std::vector<float>& w, int64_t cin, int64_t ci, int64_t co, int i, int j) {
  const std::vector<double> g = FilterMatrix(m);
  const float* f = w.data() + (co * cin + ci) * 9;
  double sum = 0;
  for (int k = 0; k < 3; ++k)
    for (int l = 0; l < 3; ++l) sum += g[i * 3 + k] * f[k * 3 + l] * g[j * 3 + l];
  return sum;
}

// Element (k, n) of a role-B packed matrix, n may lie in the padding.
float PackedAt(const PackedMatrixF32& u, int64_t k, int64_t n) {
  const int nr = u.isa()->nr;
  const int64_t k0 = k / kGemmKc * kGemmKc;
  return u.BlockB(k0, n / nr * nr)[(k - k0) * nr + n % nr];
}

std::vector<float> RandomWeights(int64_t cin, int64_t cout, std::mt19937* gen) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> w(static_cast<size_t>(cin * cout * 9));
  for (float& v : w) v = dist(*gen);
  return w;
}

TEST(ConvWinogradFilterTest, MatchesDoubleTransformOnEveryPath) {
  std::mt19937 gen(5);
  // (cin, cout): single channels, panel edges of every path (8, 12, 16, 32),
  // and more than one KC block of input channels.
  const int64_t shapes[][2] = {{1, 1}, {3, 7}, {5, 8}, {9, 12}, {16, 33}, {17, 64}, {390, 20}, {800, 5}};
  for (const auto& shape : shapes) {
    const int64_t cin = shape[0], cout = shape[1];
    const std::vector<float> w = RandomWeights(cin, cout, &gen);
    for (int m : {2, 4}) {
      const int a = m + 2;
      std::vector<std::vector<float>> first_path;  // per point, row-major [cin][cout]
      for (const GemmF32Isa* isa : SupportedGemmF32Isas()) {
        std::vector<PackedMatrixF32> u;
        TransformWinogradFilters(m, w.data(), cin, cout, *isa, &u);
        ASSERT_EQ(u.size(), static_cast<size_t>(a * a));
        const std::string what = std::string(isa->name) + " F(" + std::to_string(m) + ") " + std::to_string(cin) +
                                 "->" + std::to_string(cout);
        const int64_t padded = (cout + isa->nr - 1) / isa->nr * isa->nr;
        double max_err = 0;
        for (int p = 0; p < a * a; ++p) {
          ASSERT_EQ(u[p].rows(), cin) << what;
          ASSERT_EQ(u[p].cols(), cout) << what;
          ASSERT_EQ(u[p].isa(), isa) << what;
          std::vector<float> values;
          for (int64_t ci = 0; ci < cin; ++ci) {
            for (int64_t co = 0; co < cout; ++co) {
              const float got = PackedAt(u[p], ci, co);
              max_err = std::max(max_err, std::fabs(got - Reference(m, w, cin, ci, co, p / a, p % a)));
              values.push_back(got);
            }
            for (int64_t co = cout; co < padded; ++co) {
              const float pad = PackedAt(u[p], ci, co);
              uint32_t bits;
              std::memcpy(&bits, &pad, sizeof(bits));
              ASSERT_EQ(bits, 0u) << what << " padding at point " << p << " (" << ci << ", " << co << ")";
            }
          }
          if (first_path.size() < static_cast<size_t>(a * a)) {
            first_path.push_back(values);
          } else {
            EXPECT_EQ(values, first_path[p]) << what << " point " << p << " differs from the first path";
          }
        }
        // |w| <= 1: U values are at most 9 * max |G|^2 <= 9; float rounding of a few operations.
        EXPECT_LE(max_err, 2e-6) << what;
      }
    }
  }
}

TEST(ConvWinogradFilterTest, Deterministic) {
  std::mt19937 gen(8);
  const int64_t cin = 40, cout = 70;
  const std::vector<float> w = RandomWeights(cin, cout, &gen);
  const GemmF32Isa& isa = ActiveGemmF32Isa();
  for (int m : {2, 4}) {
    std::vector<PackedMatrixF32> u1, u2;
    TransformWinogradFilters(m, w.data(), cin, cout, isa, &u1);
    TransformWinogradFilters(m, w.data(), cin, cout, isa, &u2);
    ASSERT_EQ(u1.size(), u2.size());
    const int64_t padded = (cout + isa.nr - 1) / isa.nr * isa.nr;
    for (size_t p = 0; p < u1.size(); ++p)
      EXPECT_EQ(std::memcmp(u1[p].BlockB(0, 0), u2[p].BlockB(0, 0), cin * padded * sizeof(float)), 0) << p;
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
