// The AVX2 row step of int8 MaxPool (pool.cc): the max of an output row's
// input rows, then the max over each output position's w taps of that
// reduced row, 32 outputs per step. The reduced row lives in a buffer whose
// positions outside the input hold -128 (the identity of max), so every
// window is read whole: the result equals the max over the taps inside the
// input (-128 for none).
// Stride 2 takes the element-wise max of the k shifted 64-byte spans, then
// keeps their even bytes (mask, vpackuswb, vpermq).
#pragma once

#include <cstdint>

namespace loom {
namespace int8 {
namespace internal {

// Bytes of the row buffer MaxPoolRowAvx2 reads: whole 32-output steps.
inline int64_t WindowMaxSpan(int64_t out_w, int64_t stride, int64_t kernel, int64_t dilation) {
  return (out_w + 31) / 32 * 32 * stride + (kernel - 1) * dilation;
}

// Most input rows (d and h taps) one output row of MaxPoolRowAvx2 reduces.
constexpr int kMaxPoolRowTaps = 64;

#if defined(__x86_64__) || defined(__i386__)
// One output row: the element-wise max of rows[0, count) (width values each;
// count <= kMaxPoolRowTaps, 0 for none: all -128) written to buffer + pad,
// then out[o] = max over k < kernel of buffer[o · stride + k · dilation] for
// o < out_w; stride 1 or 2. The buffer holds -128 outside [pad, pad + width)
// and has at least max(pad + width, WindowMaxSpan(...)) bytes.
void MaxPoolRowAvx2(const int8_t* const* rows, int count, int64_t width, int8_t* buffer, int64_t pad, int64_t out_w,
                    int stride, int kernel, int dilation, int8_t* out);
#endif

}  // namespace internal
}  // namespace int8
}  // namespace loom
