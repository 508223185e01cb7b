#include "kernels/cpu/layout/padded_layout.h"

#include <cstring>
#include <string>

namespace loom {
namespace layout {

Status PaddedShapeOf(const Shape& shape, int64_t n, PaddedShape* out) {
  if (n < 1) return Status::InvalidArgument("channel padding " + std::to_string(n) + " is not positive");
  PaddedShape s;
  if (shape.size() == 4 && shape[0] == 1) {
    s.c = shape[1];
    s.h = shape[2];
    s.w = shape[3];
  } else if (shape.size() == 2 || (shape.size() == 3 && shape[0] == 1)) {
    s.w = shape[shape.size() - 2];
    s.c = shape[shape.size() - 1];
    s.planar = false;
  } else {
    return Status::InvalidArgument("shape " + ShapeToString(shape) +
                                   " has no padded NHWC form (expected [1, C, H, W], [M, K] or [1, M, K])");
  }
  if (s.h < 0 || s.w < 0 || s.c < 0) return Status::InvalidArgument("shape " + ShapeToString(shape) + " is not static");
  s.c_padded = (s.c + n - 1) / n * n;
  *out = s;
  return Status::Ok();
}

namespace {

// Moves element (pixel p, channel ch) between the two layouts; T is a
// fixed-size element so the inner loops stay simple copies.
template <typename T>
void Convert(const PaddedShape& s, const T* from, T* to, bool to_padded) {
  const int64_t pixels = s.h * s.w;
  // Where element (p, ch) sits in the row-major tensor.
  const int64_t pixel_step = s.planar ? 1 : s.c;
  const int64_t channel_step = s.planar ? pixels : 1;
  if (to_padded) {
    for (int64_t p = 0; p < pixels; ++p) {
      T* dst = to + p * s.c_padded;
      const T* src = from + p * pixel_step;
      for (int64_t ch = 0; ch < s.c; ++ch) dst[ch] = src[ch * channel_step];
      for (int64_t ch = s.c; ch < s.c_padded; ++ch) dst[ch] = T();
    }
  } else {
    for (int64_t p = 0; p < pixels; ++p) {
      const T* src = from + p * s.c_padded;
      T* dst = to + p * pixel_step;
      for (int64_t ch = 0; ch < s.c; ++ch) dst[ch * channel_step] = src[ch];
    }
  }
}

template <typename T>
void ConvertTyped(const PaddedShape& s, const void* from, void* to, bool to_padded) {
  Convert(s, static_cast<const T*>(from), static_cast<T*>(to), to_padded);
}

void ConvertBytes(const PaddedShape& s, size_t element_bytes, const void* from, void* to, bool to_padded) {
  switch (element_bytes) {
    case 1: ConvertTyped<uint8_t>(s, from, to, to_padded); break;
    case 2: ConvertTyped<uint16_t>(s, from, to, to_padded); break;
    case 4: ConvertTyped<uint32_t>(s, from, to, to_padded); break;
    case 8: ConvertTyped<uint64_t>(s, from, to, to_padded); break;
    default: break;  // no dtype of another size reaches here (Relayout checks)
  }
}

}  // namespace

void ToPadded(const PaddedShape& s, size_t element_bytes, const void* row_major, void* padded) {
  ConvertBytes(s, element_bytes, row_major, padded, true);
}

void FromPadded(const PaddedShape& s, size_t element_bytes, const void* padded, void* row_major) {
  ConvertBytes(s, element_bytes, padded, row_major, false);
}

}  // namespace layout
}  // namespace loom
