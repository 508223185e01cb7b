// The accelerator's activation layout on the CPU side: NHWC with channels
// padded to a multiple of the array size N (Layout::kNhwcPadded). A plan
// tensor keeps its ONNX shape; its bytes are h x w x c_padded elements:
//   [1, C, H, W]         -> H x W x C
//   [M, K] or [1, M, K]  -> 1 x M x K (a Gemm/MatMul operand: K channels)
// Nodes that read or write such tensors carry N as the attribute
// "loom.pad_channels" (kPadChannelsAttr).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/dtype.h"
#include "common/status.h"

namespace loom {
namespace layout {

constexpr char kPadChannelsAttr[] = "loom.pad_channels";

struct PaddedShape {
  int64_t h = 1, w = 1, c = 1;
  int64_t c_padded = 1;
  // Row-major data is channel-planar ([1, C, H, W]) rather than pixel-major
  // ([M, K]: each row one pixel's channels).
  bool planar = true;

  int64_t Elements() const { return h * w * c; }
  int64_t PaddedElements() const { return h * w * c_padded; }
};

// InvalidArgument unless `shape` has one of the forms above (batch 1) and
// n >= 1.
Status PaddedShapeOf(const Shape& shape, int64_t n, PaddedShape* out);

// Row-major (NCHW, or [M, K]) <-> padded NHWC, elements of `element_bytes`.
// ToPadded writes zeros into the padding channels.
void ToPadded(const PaddedShape& s, size_t element_bytes, const void* row_major, void* padded);
void FromPadded(const PaddedShape& s, size_t element_bytes, const void* padded, void* row_major);

}  // namespace layout
}  // namespace loom
