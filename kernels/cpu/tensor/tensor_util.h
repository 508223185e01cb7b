// Helpers shared by the tensor kernels: node checks (arity, shapes, dtypes),
// axis normalisation, attribute readers that reject malformed attributes,
// integer "shape" tensors read in Prepare (constant) or in Run (runtime data),
// row-major strides and a parallel byte copy. Every tensor kernel validates its
// node through these so that error messages read the same everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/common/parallel.h"

namespace loom {
namespace tensor {

// Largest tensor rank the tensor kernels accept (fixed-size index arrays in Run).
constexpr int kMaxRank = 16;

// Checks the input/output counts, that every present tensor has a valid shape
// (no negative dims, rank <= kMaxRank, byte size fits) and a storable dtype
// (not string/complex/undefined), and that required inputs are present.
Status CheckNode(const KernelSetup& s, size_t min_inputs, size_t max_inputs, size_t min_outputs, size_t max_outputs);
// Output i must be present with this dtype and shape.
Status CheckOutput(const KernelSetup& s, size_t i, DType dtype, const Shape& shape);
// Input i must have dtype `want` (used for "same type as input 0" rules).
Status CheckInputDType(const KernelSetup& s, size_t i, DType want, const char* name);
// Input i must be int32 or int64 ("tensor(int64)" inputs also accept int32).
Status CheckIndexDType(const KernelSetup& s, size_t i, const char* name);
// Input i must be a scalar or a 1-element 1-D tensor.
Status CheckScalarLike(const KernelSetup& s, size_t i, const char* name);

// Maps axis in [-rank, rank) to [0, rank); false when out of range.
bool NormalizeAxis(int64_t axis, int64_t rank, int64_t* out);

// Attribute readers. Absent -> default; present with the wrong kind -> Invalid.
Status IntAttr(const KernelSetup& s, const char* name, int64_t def, int64_t* out);
Status FloatAttr(const KernelSetup& s, const char* name, float def, float* out);
Status StringAttr(const KernelSetup& s, const char* name, const std::string& def, std::string* out);
Status IntsAttr(const KernelSetup& s, const char* name, std::vector<int64_t>* out, bool* present);
// An int axis attribute normalised against `rank` ([-rank, rank)).
Status AxisAttr(const KernelSetup& s, const char* name, int64_t def, int64_t rank, int* axis);

inline bool IsIndexDType(DType t) { return t == DType::kInt32 || t == DType::kInt64; }

// Reads a constant int32/int64 input into `out` (input must be constant).
Status ConstInts(const KernelSetup& s, size_t i, std::vector<int64_t>* out);
// Reads element i of an int32/int64 tensor at run time.
inline int64_t LoadIndex(const void* data, DType t, int64_t i) {
  return t == DType::kInt32 ? static_cast<const int32_t*>(data)[i] : static_cast<const int64_t*>(data)[i];
}
// OutOfRange naming the first of n int32/int64 indices outside [-dim, dim).
Status FirstBadIndex(const std::string& node, const void* indices, DType dtype, int64_t n, int64_t dim);
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

// "2x3" style shape text with brackets for messages: "[2, 3]".
std::string ShapeText(const Shape& shape);

}  // namespace tensor
}  // namespace loom
