// Small helpers for the tensor kernel tests: value generators, attribute
// builders and a row-major index walker used by the naive references.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/attributes.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace tensor_test {

using testing::TestTensor;

// 0, 1, 2, ... converted to T (wrapping for narrow types).
template <typename T>
std::vector<T> Iota(int64_t n, int64_t start = 0) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<T>(start + i);
  return v;
}

// Deterministic pseudo-random values in [lo, hi].
template <typename T>
std::vector<T> Pseudo(int64_t n, int64_t lo, int64_t hi, uint32_t seed = 1) {
  std::vector<T> v(static_cast<size_t>(n));
  uint32_t x = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v[static_cast<size_t>(i)] =
        static_cast<T>(lo + static_cast<int64_t>((x >> 8) % static_cast<uint32_t>(hi - lo + 1)));
  }
  return v;
}

inline Attributes Attrs() { return Attributes(); }

// Row-major multi-index helpers for references.
inline std::vector<int64_t> Unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return idx;
}
inline int64_t Ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

// Runs op with one output of dtype/shape and returns the status; *out gets the output.
inline Status Run1(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs, DType dtype,
                   const Shape& shape, TestTensor* out, const testing::RunOptions& options = {}) {
  std::vector<TestTensor> outs = {TestTensor::Empty(dtype, shape)};
  Status st = testing::RunKernel(op, attrs, inputs, &outs, options);
  *out = outs[0];
  return st;
}

inline testing::RunOptions Opset(int opset, int threads = 1) {
  testing::RunOptions o;
  o.opset = opset;
  o.threads = threads;
  return o;
}

}  // namespace tensor_test
}  // namespace loom
