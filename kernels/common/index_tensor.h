// Integer index tensors (axes, indices, target shapes, pads, ...): ONNX types
// them tensor(int64); the CPU kernels also accept int32 and read either
// through LoadIndex, in Prepare from constant data or in Run.
#pragma once

#include <cstdint>

#include "common/dtype.h"

namespace loom {

inline bool IsIndexDType(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

// Element i of an int32 or int64 tensor.
inline int64_t LoadIndex(const void* data, DType t, int64_t i) {
  return t == DType::kInt32 ? static_cast<const int32_t*>(data)[i] : static_cast<const int64_t*>(data)[i];
}

}  // namespace loom
