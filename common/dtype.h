// Element types. The numeric values are ONNX's TensorProto.DataType values,
// so importing, the plan schema and test-data readers map them one to one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace loom {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,   // not executable; named so errors can say "string"
  kBool = 9,     // one byte per element, 0 or 1
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// Bytes per element; 0 for types Loom cannot store (string, complex, undefined).
size_t DTypeSize(DType t);
// Short lower-case name: "float32", "int64", "bool", ...
const char* DTypeName(DType t);
// Parses DTypeName() output and numpy-style short names ("f4", "float", "i8"...).
bool ParseDType(const std::string& name, DType* out);
// True if `v` is one of the values above.
bool IsKnownDType(int32_t v);
bool IsFloatingPoint(DType t);  // float16, bfloat16, float32, float64
bool IsSignedInteger(DType t);
bool IsUnsignedInteger(DType t);  // includes bool

// Maps a C++ type to its DType.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::kUInt16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::kUInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::kUInt64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };

// Shapes are dims in row-major order; a scalar has no dims.
using Shape = std::vector<int64_t>;
// Product of dims (1 for a scalar). Returns -1 if any dim is negative or the
// product overflows int64.
int64_t NumElements(const Shape& shape);
// "1x3x224x224"; "scalar" for rank 0.
std::string ShapeToString(const Shape& shape);

}  // namespace loom
