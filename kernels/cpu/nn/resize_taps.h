// Per-axis sampling tables for Resize/Upsample. Resizing is separable: along
// each axis, output index o reads up to four input positions with weights
// (nearest: 1 tap, linear: 2, cubic: 4), so an output element is the
// weighted sum over the product of its axes' taps. A tap count of 0 marks an
// output coordinate outside the crop (tf_crop_and_resize): the element takes
// extrapolation_value. Semantics follow the ONNX reference implementation:
//   x_original per coordinate_transformation_mode (length_resized is
//   input * scale as a real number, not the rounded output size);
//   nearest: round per nearest_mode, clamped to the input;
//   linear/cubic: neighbours of x_original with edge replication, ratio in
//   (0, 1] toward the left neighbour; cubic uses Keys' kernel with
//   coefficient a, and exclude_outside zeroes and renormalizes the weights
//   of taps outside the input.
#pragma once

#include <cstdint>

namespace loom {
namespace nn {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class CoordMode {
  kHalfPixel,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeAxis {
  int64_t in = 1, out = 1;
  double scale = 1.0;           // output / input, as given or derived from sizes
  double roi_start = 0.0, roi_end = 1.0;
  int64_t stride = 1;           // elements between consecutive input positions
};

struct ResizeTap {
  int32_t count = 0;            // 0: extrapolate
  int64_t offset[4] = {0, 0, 0, 0};  // input position * axis stride
  double weight[4] = {0, 0, 0, 0};
};

struct ResizeOptions {
  ResizeMode mode = ResizeMode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
};

// Fills taps[0, axis.out) for one axis.
void BuildResizeTaps(const ResizeOptions& options, const ResizeAxis& axis, ResizeTap* taps);

}  // namespace nn
}  // namespace loom
