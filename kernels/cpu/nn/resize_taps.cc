#include "kernels/cpu/nn/resize_taps.h"

#include <cmath>

namespace loom {
namespace nn {
namespace {

// Input coordinate of output index x, or NaN outside the crop.
double OriginalCoordinate(const ResizeOptions& o, const ResizeAxis& a, int64_t x) {
  const double length_resized = static_cast<double>(a.in) * a.scale;
  const double in = static_cast<double>(a.in);
  switch (o.coord) {
    case CoordMode::kHalfPixel:
      return (x + 0.5) / a.scale - 0.5;
    case CoordMode::kPytorchHalfPixel:
      return length_resized > 1.0 ? (x + 0.5) / a.scale - 0.5 : -0.5;
    case CoordMode::kAlignCorners:
      return length_resized > 1.0 ? x * (in - 1.0) / (length_resized - 1.0) : 0.0;
    case CoordMode::kAsymmetric:
      return x / a.scale;
    case CoordMode::kTfHalfPixelForNn:
      return (x + 0.5) / a.scale;
    case CoordMode::kTfCropAndResize: {
      double v = length_resized > 1.0
                     ? x * (a.roi_end - a.roi_start) * (in - 1.0) / (length_resized - 1.0)
                     : 0.5 * (a.roi_end - a.roi_start) * (in - 1.0);
      v += a.roi_start * (in - 1.0);
      if (v < 0.0 || v > in - 1.0) return NAN;
      return v;
    }
  }
  return 0.0;
}

int64_t NearestIndex(NearestMode mode, double x) {
  const double f = std::floor(x);
  switch (mode) {
    case NearestMode::kRoundPreferFloor: return static_cast<int64_t>(x - f == 0.5 ? f : std::round(x));
    case NearestMode::kRoundPreferCeil: return static_cast<int64_t>(x - f == 0.5 ? f + 1.0 : std::round(x));
    case NearestMode::kFloor: return static_cast<int64_t>(f);
    case NearestMode::kCeil: return static_cast<int64_t>(std::ceil(x));
  }
  return 0;
}

int64_t Clamp(int64_t v, int64_t hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

}  // namespace

void BuildResizeTaps(const ResizeOptions& o, const ResizeAxis& a, ResizeTap* taps) {
  for (int64_t x = 0; x < a.out; ++x) {
    ResizeTap& t = taps[x];
    t = ResizeTap();
    const double xo = OriginalCoordinate(o, a, x);
    if (std::isnan(xo)) continue;  // extrapolate
    if (o.mode == ResizeMode::kNearest) {
      t.count = 1;
      t.offset[0] = Clamp(NearestIndex(o.nearest, xo), a.in - 1) * a.stride;
      t.weight[0] = 1.0;
      continue;
    }
    // Left neighbour: the largest integer strictly below xo (xo itself when
    // xo is an integer and the ratio is then 1).
    double base = std::floor(xo);
    double ratio = xo - base;
    if (ratio == 0.0) {
      base -= 1.0;
      ratio = 1.0;
    }
    int64_t first;
    double w[4];
    int n;
    if (o.mode == ResizeMode::kLinear) {
      n = 2;
      first = static_cast<int64_t>(base);
      w[0] = 1.0 - ratio;
      w[1] = ratio;
    } else {
      n = 4;
      first = static_cast<int64_t>(base) - 1;
      const double A = o.cubic_a, r = ratio, s = 1.0 - ratio;
      w[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
      w[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
      w[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
      w[3] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
      if (o.exclude_outside) {
        double sum = 0;
        for (int i = 0; i < 4; ++i) {
          const int64_t idx = first + i;
          if (idx < 0 || idx >= a.in) w[i] = 0;
          sum += w[i];
        }
        for (int i = 0; i < 4; ++i) w[i] = sum != 0.0 ? w[i] / sum : 0.0;
      }
    }
    // Drop zero weights (identity axes then cost one tap).
    for (int i = 0; i < n; ++i) {
      if (w[i] == 0.0) continue;
      t.offset[t.count] = Clamp(first + i, a.in - 1) * a.stride;
      t.weight[t.count] = w[i];
      ++t.count;
    }
    if (t.count == 0) {  // all weights zero: keep one tap of weight 0
      t.count = 1;
      t.offset[0] = Clamp(first, a.in - 1) * a.stride;
      t.weight[0] = 0.0;
    }
  }
}

}  // namespace nn
}  // namespace loom
