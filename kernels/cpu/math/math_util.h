// Helpers shared by the math kernels: dtype sets and dispatch from a run-time
// DType to a C++ type, overflow-safe integer arithmetic (signed overflow
// wraps instead of being undefined), saturating float -> integer conversion.
// Node checks and attribute readers are common to every kernel group
// (kernels/common/kernel_checks.h, attribute_readers.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/attribute_readers.h"
#include "kernels/common/index_tensor.h"
#include "kernels/common/kernel.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace math {

// Elements per parallel task for cheap elementwise work.
constexpr int64_t kElementwiseGrain = 1 << 14;

// A set of dtypes as a bit mask over DType values.
using TypeSet = uint32_t;
constexpr TypeSet Bit(DType d) { return 1u << static_cast<int>(d); }
constexpr TypeSet kFloatTypes = Bit(DType::kFloat32) | Bit(DType::kFloat64);
constexpr TypeSet kSignedTypes = Bit(DType::kInt8) | Bit(DType::kInt16) | Bit(DType::kInt32) | Bit(DType::kInt64);
constexpr TypeSet kUnsignedTypes = Bit(DType::kUInt8) | Bit(DType::kUInt16) | Bit(DType::kUInt32) | Bit(DType::kUInt64);
constexpr TypeSet kIntTypes = kSignedTypes | kUnsignedTypes;
constexpr TypeSet kNumericTypes = kFloatTypes | kIntTypes;
constexpr TypeSet kSignedNumericTypes = kFloatTypes | kSignedTypes;

inline bool InSet(TypeSet set, DType d) {
  const int v = static_cast<int>(d);
  return v >= 0 && v < 32 && (set & (1u << v)) != 0;
}

// Calls f(T{}) with the C++ type of `d` when d is in kTypes (a subset of
// kNumericTypes) and returns true; returns false for any other dtype. Only
// the types in kTypes are instantiated.
template <TypeSet kTypes, typename F>
bool VisitType(DType d, F&& f) {
#define LOOM_MATH_VISIT_CASE(DT, CT)         \
  case DT:                                   \
    if constexpr ((kTypes & Bit(DT)) != 0) { \
      f(CT{});                               \
      return true;                           \
    }                                        \
    return false;
  switch (d) {
    LOOM_MATH_VISIT_CASE(DType::kFloat32, float)
    LOOM_MATH_VISIT_CASE(DType::kFloat64, double)
    LOOM_MATH_VISIT_CASE(DType::kInt8, int8_t)
    LOOM_MATH_VISIT_CASE(DType::kInt16, int16_t)
    LOOM_MATH_VISIT_CASE(DType::kInt32, int32_t)
    LOOM_MATH_VISIT_CASE(DType::kInt64, int64_t)
    LOOM_MATH_VISIT_CASE(DType::kUInt8, uint8_t)
    LOOM_MATH_VISIT_CASE(DType::kUInt16, uint16_t)
    LOOM_MATH_VISIT_CASE(DType::kUInt32, uint32_t)
    LOOM_MATH_VISIT_CASE(DType::kUInt64, uint64_t)
    default:
      return false;
  }
#undef LOOM_MATH_VISIT_CASE
}

// Integer arithmetic that wraps around (two's complement) instead of
// overflowing: computed in the unsigned type of the promoted operands.
template <typename T>
inline T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<decltype(a + b)>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<decltype(a - b)>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<decltype(a * b)>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
inline T WrapNeg(T a) {
  return WrapSub(T(0), a);
}
// |a|; for signed integers the lowest value maps to itself (wrapping), as
// ONNX Abs and ReduceL1 compute it in two's complement.
template <typename T>
inline T AbsValue(T a) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fabs(a);
  } else if constexpr (std::is_signed_v<T>) {
    return a < 0 ? WrapNeg(a) : a;
  } else {
    return a;
  }
}

// Converts any arithmetic value to T. Floating -> integer truncates toward
// zero and saturates at T's range (NaN -> 0), so out-of-range values are
// well defined. Integer -> integer wraps (modular).
template <typename To, typename From>
inline To ConvertTo(From x) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (x != x) return To(0);
    constexpr From lo = static_cast<From>(std::numeric_limits<To>::lowest());
    constexpr From hi = static_cast<From>(std::numeric_limits<To>::max());
    if (x <= lo) return std::numeric_limits<To>::lowest();
    if (x >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// The floating type used to evaluate transcendental functions on T:
// float for float32, double for everything else.
template <typename T>
using ComputeType = std::conditional_t<std::is_same_v<T, float>, float, double>;

// "unsupported dtype float16 for input X" style messages.
inline Status UnsupportedDType(const KernelSetup& setup, const std::string& tensor, DType dtype) {
  return setup.Unsupported(std::string("dtype ") + DTypeName(dtype) + " for " + tensor);
}

}  // namespace math
}  // namespace loom
