// Helpers shared by the tensor kernels: input checks (dtypes, scalars),
// integer "shape" tensors read in Prepare (constant) or in Run (runtime data),
// axis lists, row-major strides, type dispatch and parallel byte copies. Node
// checks and attribute readers are common to every kernel group
// (kernels/common/kernel_checks.h, attribute_readers.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/attribute_readers.h"
#include "kernels/common/index_tensor.h"
#include "kernels/common/kernel.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/parallel.h"

namespace loom {
namespace tensor {

// Input i must have dtype `want` (used for "same type as input 0" rules).
Status CheckInputDType(const KernelSetup& s, size_t i, DType want, const char* name);
// Input i must be int32 or int64 ("tensor(int64)" inputs also accept int32).
Status CheckIndexDType(const KernelSetup& s, size_t i, const char* name);
// Input i must be a scalar or a 1-element 1-D tensor.
Status CheckScalarLike(const KernelSetup& s, size_t i, const char* name);

// Reads a constant int32/int64 input into `out` (input must be constant).
Status ConstInts(const KernelSetup& s, size_t i, std::vector<int64_t>* out);
// OutOfRange naming the first of n int32/int64 indices outside [-dim, dim).
Status FirstBadIndex(const void* indices, DType dtype, int64_t n, int64_t dim);
// Reads element i of any integer or floating tensor as double (OneHot depth,
// Range operands, ...). float16/bfloat16 are converted.
double LoadAsDouble(const void* data, DType t, int64_t i);
// Writes v converted to dtype t at dst (saturating for integers, NaN -> 0).
void StoreFromDouble(double v, DType t, void* dst);

// Normalises a list of axes against rank (rejects out of range and repeats).
Status NormalizeAxes(const KernelSetup& s, const std::vector<int64_t>& axes, int64_t rank, const char* what,
                     std::vector<int64_t>* out);

// Row-major element strides of `shape`.
Shape StridesOf(const Shape& shape);
// Product of shape[begin, end).
int64_t DimProduct(const Shape& shape, size_t begin, size_t end);

// memcpy of n bytes split across the pool for large copies; no-op when
// dst == src (the memory planner may run a copy op in place).
void CopyBytes(ThreadPool* pool, void* dst, const void* src, size_t n);
// Fills n elements of elem_size bytes at dst with the element at value.
void FillElements(ThreadPool* pool, void* dst, const void* value, size_t elem_size, int64_t n);

// Type dispatch: calls fn(TypeTag<T>{}) with the C++ type of a dtype.
template <typename T>
struct TypeTag {
  using type = T;
};
// Numeric dtypes with native C++ arithmetic (not bool, float16, bfloat16).
template <typename Fn>
bool DispatchNumeric(DType t, Fn&& fn) {
  switch (t) {
    case DType::kFloat32:
      fn(TypeTag<float>{});
      return true;
    case DType::kFloat64:
      fn(TypeTag<double>{});
      return true;
    case DType::kInt8:
      fn(TypeTag<int8_t>{});
      return true;
    case DType::kInt16:
      fn(TypeTag<int16_t>{});
      return true;
    case DType::kInt32:
      fn(TypeTag<int32_t>{});
      return true;
    case DType::kInt64:
      fn(TypeTag<int64_t>{});
      return true;
    case DType::kUInt8:
      fn(TypeTag<uint8_t>{});
      return true;
    case DType::kUInt16:
      fn(TypeTag<uint16_t>{});
      return true;
    case DType::kUInt32:
      fn(TypeTag<uint32_t>{});
      return true;
    case DType::kUInt64:
      fn(TypeTag<uint64_t>{});
      return true;
    default:
      return false;
  }
}
inline bool IsNumericDType(DType t) {
  return DispatchNumeric(t, [](auto) {});
}
// Same-size unsigned integer for byte moves of 1, 2, 4 or 8 byte elements.
template <typename Fn>
void DispatchBySize(size_t elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1:
      fn(TypeTag<uint8_t>{});
      return;
    case 2:
      fn(TypeTag<uint16_t>{});
      return;
    case 4:
      fn(TypeTag<uint32_t>{});
      return;
    default:
      fn(TypeTag<uint64_t>{});
      return;
  }
}

}  // namespace tensor
}  // namespace loom
