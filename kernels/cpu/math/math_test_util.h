// Helpers for the math kernel tests: deterministic random data, naive
// broadcasting index arithmetic, and a one-output RunKernel wrapper.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace math {
namespace test {

using testing::RunOptions;
using testing::TestTensor;

// n values uniformly in [lo, hi] (integers for integral T).
template <typename T>
std::vector<T> RandomValues(int64_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<T> v(static_cast<size_t>(n));
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (T& x : v) x = static_cast<T>(dist(gen));
  } else {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (T& x : v) x = static_cast<T>(dist(gen));
  }
  return v;
}

// Flat index into an input of shape `in` of output element `i` of shape
// `out`, under numpy broadcasting (in aligned to the right of out).
inline int64_t BroadcastIndex(const Shape& in, const Shape& out, int64_t i) {
  int64_t index = 0, in_stride = 1;
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    const int64_t coord = i % out[d];
    i /= out[d];
    const int id = d - static_cast<int>(out.size() - in.size());
    if (id < 0) continue;
    if (in[id] != 1) index += coord * in_stride;
    in_stride *= in[id];
  }
  return index;
}

// Runs a one-output op; returns the status and fills *out.
inline Status RunOne(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                     DType out_dtype, const Shape& out_shape, TestTensor* out, const RunOptions& options = {}) {
  std::vector<TestTensor> outs = {TestTensor::Empty(out_dtype, out_shape)};
  Status s = testing::RunKernel(op, attrs, inputs, &outs, options);
  *out = outs[0];
  return s;
}

// Compares floats with a relative + absolute tolerance, NaN equal to NaN.
template <typename T>
bool Near(T a, T b, double tol) {
  if (a != a || b != b) return a != a && b != b;
  if (a == b) return true;
  const double d = static_cast<double>(a) - static_cast<double>(b);
  const double m = std::max(std::abs(static_cast<double>(a)), std::abs(static_cast<double>(b)));
  return std::abs(d) <= tol * (1.0 + m);
}

}  // namespace test
}  // namespace math
}  // namespace loom
