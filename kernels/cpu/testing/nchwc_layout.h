// The channel-blocked layout in kernel tests: plain loops that move NCHW
// floats [n, c, hw] to NCHW8c [n, c/8, hw, 8] and back (c % 8 == 0), the
// reference the NCHWc kernels' tests reorder their data with.
#pragma once

#include <cstdint>
#include <vector>

namespace loom {
namespace testing {

constexpr int64_t kNchwcTestBlock = 8;

// blocked[i, cb, p, c] = nchw[i, cb * 8 + c, p].
inline std::vector<float> ToNchwcLayout(const std::vector<float>& x, int64_t n, int64_t c, int64_t hw) {
  constexpr int64_t kB = kNchwcTestBlock;
  std::vector<float> y(x.size());
  for (int64_t i = 0; i < n * c && !x.empty(); ++i)
    for (int64_t p = 0; p < hw; ++p) y[((i / kB) * hw + p) * kB + i % kB] = x[i * hw + p];
  return y;
}

inline std::vector<float> FromNchwcLayout(const std::vector<float>& y, int64_t n, int64_t c, int64_t hw) {
  constexpr int64_t kB = kNchwcTestBlock;
  std::vector<float> x(y.size());
  for (int64_t i = 0; i < n * c && !y.empty(); ++i)
    for (int64_t p = 0; p < hw; ++p) x[i * hw + p] = y[((i / kB) * hw + p) * kB + i % kB];
  return x;
}

}  // namespace testing
}  // namespace loom
