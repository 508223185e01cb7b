// Test helpers of the quant group: random 8-bit data as test tensors.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace quant {

// Random values of `dtype` (uint8 or int8) as int32.
inline std::vector<int32_t> Random8(DType dtype, int64_t n, std::mt19937* gen) {
  std::uniform_int_distribution<int> dist(dtype == DType::kInt8 ? -128 : 0, dtype == DType::kInt8 ? 127 : 255);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& x : v) x = dist(*gen);
  return v;
}

// A uint8 or int8 test tensor holding `v`.
inline testing::TestTensor Make8(DType dtype, Shape shape, const std::vector<int32_t>& v, bool constant = false) {
  if (dtype == DType::kInt8)
    return testing::TestTensor::Of<int8_t>(shape, std::vector<int8_t>(v.begin(), v.end()), constant);
  return testing::TestTensor::Of<uint8_t>(shape, std::vector<uint8_t>(v.begin(), v.end()), constant);
}

}  // namespace quant
}  // namespace loom
