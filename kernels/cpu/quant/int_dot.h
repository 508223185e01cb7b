// The integer accumulation core of the quant kernels (int_conv.h and
// int_matmul.h, so ConvInteger, MatMulInteger and the QLinear ops): 8-bit
// operands have their zero points subtracted into int16 (uint8 - uint8 and
// int8 - int8 both fit in [-255, 255]), and outputs are int16 dot products
// over a contiguous reduction dim accumulated in 32 bits.
// The dot loop compiles to multiply-add-pairs (pmaddwd / smlal) vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/common/kernel.h"

namespace loom {
namespace quant {

// sum a[i] * b[i], wrapping in 32 bits as ONNX allows ("the accumulation may
// overflow if and only if in 32 bits"); unsigned arithmetic keeps the wrap defined.
inline int32_t DotI16(const int16_t* a, const int16_t* b, int64_t n) {
  uint32_t acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += static_cast<uint32_t>(int32_t{a[i]} * int32_t{b[i]});
  return static_cast<int32_t>(acc);
}

// Element i of an int8 or uint8 buffer.
inline int32_t Load8(const void* p, bool is_signed, int64_t i) {
  return is_signed ? int32_t{static_cast<const int8_t*>(p)[i]} : int32_t{static_cast<const uint8_t*>(p)[i]};
}

// dst[i] = src[i] - zero_point for n elements of an int8 or uint8 buffer.
inline void SubtractZeroPoint(const void* src, bool is_signed, int32_t zero_point, int64_t n, int16_t* dst) {
  if (is_signed) {
    const int8_t* s = static_cast<const int8_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<int16_t>(s[i] - zero_point);
  } else {
    const uint8_t* s = static_cast<const uint8_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<int16_t>(s[i] - zero_point);
  }
}

// Checks that input `index` (named `name` in messages) is int8 or uint8.
inline Status CheckInt8Operand(const KernelSetup& s, size_t index, const char* name) {
  const DType t = s.inputs[index].dtype;
  if (t != DType::kInt8 && t != DType::kUInt8)
    return s.Invalid(std::string(name) + " has dtype " + DTypeName(t) + ", expected uint8 or int8");
  return Status::Ok();
}

// Checks that present zero-point input `index` has the dtype of its operand
// (`operand_dtype`, named `operand`).
inline Status CheckZeroPointDType(const KernelSetup& s, size_t index, const char* name, DType operand_dtype,
                                  const char* operand) {
  const DType t = s.inputs[index].dtype;
  if (t != operand_dtype)
    return s.Invalid(std::string(name) + " has dtype " + DTypeName(t) + ", expected " + DTypeName(operand_dtype) +
                     " (the dtype of " + operand + ")");
  return Status::Ok();
}

}  // namespace quant
}  // namespace loom
