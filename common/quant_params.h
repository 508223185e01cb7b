// Quantization parameters of a tensor: real = scale * (q - zero_point).
// Per-tensor when `scale` has one element, per-channel along `axis` otherwise;
// empty for float tensors.
#pragma once

#include <cstdint>
#include <vector>

namespace loom {

struct QuantParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t axis = 0;

  bool empty() const { return scale.empty(); }
  bool per_channel() const { return scale.size() > 1; }
};

}  // namespace loom
