// Memory layout of a tensor's data. A tensor's shape always lists dims in
// ONNX order (NCHW for images); the layout says how the bytes are arranged.
// The numeric values are the plan schema's Layout values (schemas/plan.fbs).
#pragma once

#include <string_view>

namespace loom {

enum class Layout : int {
  kRowMajor = 0,    // plain row-major order of the shape (ONNX's layout)
  kNhwc = 1,        // channels last
  kNhwcPadded = 2,  // channels last, channels padded to the accelerator's array size
};

// A set of layouts as a bit mask: LayoutBit(kRowMajor) | LayoutBit(kNhwc).
constexpr unsigned LayoutBit(Layout layout) { return 1u << static_cast<int>(layout); }

// "row_major", "nhwc", "nhwc_padded".
const char* LayoutName(Layout layout);
bool ParseLayout(std::string_view name, Layout* out);
// True for the values above.
bool IsKnownLayout(int value);

}  // namespace loom
