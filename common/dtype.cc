#include "common/dtype.h"

#include <limits>

namespace loom {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat32: return 4;
    case DType::kUInt8: return 1;
    case DType::kInt8: return 1;
    case DType::kUInt16: return 2;
    case DType::kInt16: return 2;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
    case DType::kBool: return 1;
    case DType::kFloat16: return 2;
    case DType::kFloat64: return 8;
    case DType::kUInt32: return 4;
    case DType::kUInt64: return 8;
    case DType::kBFloat16: return 2;
    default: return 0;
  }
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kUndefined: return "undefined";
    case DType::kFloat32: return "float32";
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kUInt16: return "uint16";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kString: return "string";
    case DType::kBool: return "bool";
    case DType::kFloat16: return "float16";
    case DType::kFloat64: return "float64";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    case DType::kBFloat16: return "bfloat16";
  }
  return "unknown";
}

bool ParseDType(const std::string& name, DType* out) {
  struct Alias { const char* name; DType type; };
  static const Alias kAliases[] = {
      {"float32", DType::kFloat32}, {"float", DType::kFloat32}, {"f4", DType::kFloat32},
      {"float64", DType::kFloat64}, {"double", DType::kFloat64}, {"f8", DType::kFloat64},
      {"float16", DType::kFloat16}, {"half", DType::kFloat16}, {"f2", DType::kFloat16},
      {"bfloat16", DType::kBFloat16},
      {"int8", DType::kInt8}, {"i1", DType::kInt8}, {"uint8", DType::kUInt8}, {"u1", DType::kUInt8},
      {"int16", DType::kInt16}, {"i2", DType::kInt16}, {"uint16", DType::kUInt16}, {"u2", DType::kUInt16},
      {"int32", DType::kInt32}, {"i4", DType::kInt32}, {"uint32", DType::kUInt32}, {"u4", DType::kUInt32},
      {"int64", DType::kInt64}, {"i8", DType::kInt64}, {"uint64", DType::kUInt64}, {"u8", DType::kUInt64},
      {"bool", DType::kBool}, {"b1", DType::kBool},
  };
  for (const Alias& a : kAliases) {
    if (name == a.name) {
      *out = a.type;
      return true;
    }
  }
  return false;
}

bool IsKnownDType(int32_t v) { return v >= 0 && v <= 16; }

bool IsFloatingPoint(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 || t == DType::kBFloat16;
}

bool IsSignedInteger(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

bool IsUnsignedInteger(DType t) {
  return t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64 ||
         t == DType::kBool;
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

}  // namespace loom
