#include "tools/tensor_io/tensor_compare.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "common/float16.h"

namespace loom {
namespace {

// Element `i` of a floating-point buffer, widened to double.
double LoadFloat(DType dtype, const void* data, size_t i) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  switch (dtype) {
    case DType::kFloat32: {
      float v;
      std::memcpy(&v, bytes + i * 4, 4);
      return v;
    }
    case DType::kFloat64: {
      double v;
      std::memcpy(&v, bytes + i * 8, 8);
      return v;
    }
    case DType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, bytes + i * 2, 2);
      return HalfToFloat(h);
    }
    case DType::kBFloat16: {
      uint16_t b;
      std::memcpy(&b, bytes + i * 2, 2);
      return BFloat16ToFloat(b);
    }
    default:
      return 0.0;
  }
}

// Element `i` of an integer or bool buffer as text (for messages).
std::string IntegerText(DType dtype, const void* data, size_t i) {
  const size_t size = DTypeSize(dtype);
  const auto* bytes = static_cast<const uint8_t*>(data) + i * size;
  if (IsSignedInteger(dtype)) {
    int64_t v = 0;
    if (size == 1) v = static_cast<int8_t>(bytes[0]);
    if (size == 2) { int16_t t; std::memcpy(&t, bytes, 2); v = t; }
    if (size == 4) { int32_t t; std::memcpy(&t, bytes, 4); v = t; }
    if (size == 8) std::memcpy(&v, bytes, 8);
    return std::to_string(v);
  }
  uint64_t v = 0;
  std::memcpy(&v, bytes, size);  // little-endian host
  return std::to_string(v);
}

std::string FloatText(double v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

}  // namespace

bool FloatsClose(double actual, double expected, const Tolerance& tolerance) {
  if (std::isnan(actual) || std::isnan(expected)) return std::isnan(actual) && std::isnan(expected);
  if (std::isinf(actual) || std::isinf(expected)) return actual == expected;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

Status CompareTensors(const HostTensor& expected, const TensorRef& actual, const Tolerance& tolerance) {
  if (actual.dtype != expected.dtype) {
    return Status::InvalidArgument(std::string("dtype ") + DTypeName(actual.dtype) + ", expected " +
                                   DTypeName(expected.dtype));
  }
  if (actual.shape != expected.shape) {
    return Status::InvalidArgument("shape " + ShapeToString(actual.shape) + ", expected " +
                                   ShapeToString(expected.shape));
  }
  const size_t elem_size = DTypeSize(expected.dtype);
  if (elem_size == 0) {
    return Status::Unsupported(std::string("cannot compare dtype ") + DTypeName(expected.dtype));
  }
  const size_t n = expected.num_elements();
  if (expected.data.size() != n * elem_size) {
    return Status::InvalidArgument("expected tensor has " + std::to_string(expected.data.size()) + " bytes for " +
                                   std::to_string(n) + " elements");
  }
  if (n > 0 && actual.data == nullptr) return Status::InvalidArgument("no output data");

  const bool floating = IsFloatingPoint(expected.dtype);
  // rtol 1e-3 is finer than bfloat16 itself (8 significant bits), and ONNX
  // leaves its rounding open (ONNX 1.12's data truncates, later releases and
  // torch round to nearest even): bfloat16 elements may differ by one ulp.
  Tolerance element_tolerance = tolerance;
  if (expected.dtype == DType::kBFloat16 && element_tolerance.rtol < 1.0 / 128) element_tolerance.rtol = 1.0 / 128;
  size_t mismatches = 0;
  size_t first = 0;
  for (size_t i = 0; i < n; ++i) {
    bool same;
    if (floating) {
      same = FloatsClose(LoadFloat(actual.dtype, actual.data, i), LoadFloat(expected.dtype, expected.data.data(), i),
                         element_tolerance);
    } else {
      same = std::memcmp(static_cast<const uint8_t*>(actual.data) + i * elem_size,
                         expected.data.data() + i * elem_size, elem_size) == 0;
    }
    if (!same && mismatches++ == 0) first = i;
  }
  if (mismatches == 0) return Status::Ok();

  std::string got, want;
  if (floating) {
    got = FloatText(LoadFloat(actual.dtype, actual.data, first));
    want = FloatText(LoadFloat(expected.dtype, expected.data.data(), first));
  } else {
    got = IntegerText(actual.dtype, actual.data, first);
    want = IntegerText(expected.dtype, expected.data.data(), first);
  }
  return Status::InvalidArgument(std::to_string(mismatches) + " of " + std::to_string(n) +
                                 " elements differ; first at index " + std::to_string(first) + ": got " + got +
                                 ", expected " + want);
}

}  // namespace loom
