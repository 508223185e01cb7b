// Sliding-window geometry shared by Conv and the pooling ops: reads
// kernel_shape, strides, dilations, pads, auto_pad and ceil_mode, validates
// them and computes the output spatial size per the ONNX formulas.
//
// Everything is normalized to three spatial dims: a 1-D or 2-D window gets
// leading dims of size 1 (kernel 1, stride 1, no padding), so kernels need a
// single 3-D loop nest. Index 2 is the innermost (width) axis.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"

namespace loom {
namespace nn {

constexpr int kMaxSpatialRank = 3;

// The taps of one output position's window along one axis: tap indices
// [lo, hi) fall inside the input (hi == lo: none), `padded` of them inside
// the padded extent (AveragePool's count_include_pad divisor).
struct WindowTaps {
  int64_t lo = 0, hi = 0, padded = 0;
};

struct WindowGeometry {
  int rank = 0;  // spatial rank as given (1..3)
  int64_t in[kMaxSpatialRank] = {1, 1, 1};
  int64_t out[kMaxSpatialRank] = {1, 1, 1};
  int64_t kernel[kMaxSpatialRank] = {1, 1, 1};
  int64_t stride[kMaxSpatialRank] = {1, 1, 1};
  int64_t dilation[kMaxSpatialRank] = {1, 1, 1};
  int64_t pad_begin[kMaxSpatialRank] = {0, 0, 0};
  int64_t pad_end[kMaxSpatialRank] = {0, 0, 0};

  int64_t InSize() const { return in[0] * in[1] * in[2]; }
  int64_t OutSize() const { return out[0] * out[1] * out[2]; }
  int64_t KernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
  bool HasPadding() const;
  // Extent of the dilated window along axis a.
  int64_t Extent(int a) const { return (kernel[a] - 1) * dilation[a] + 1; }
  // The window taps of output index o along axis a.
  WindowTaps Taps(int a, int64_t o) const;
  // The given-rank output dims (for building/checking output shapes).
  std::vector<int64_t> OutDims() const;
  // Whether this is the window Winograd F(m, 3x3) computes: 2-D, 3x3, stride
  // 1, dilation 1 (the fp32 and int8 Winograd paths).
  bool IsWinograd3x3() const;
};

struct WindowOptions {
  bool allow_ceil_mode = false;  // pooling ops read ceil_mode
  bool allow_dilations = true;   // false: a dilations attribute is unsupported
};

// Fills `g` from the attributes of `setup` for an input with the given
// spatial dims. `kernel_from_weights` (Conv: W's spatial dims) is used when
// kernel_shape is absent and must agree with it when present; pooling passes
// null and requires kernel_shape.
Status ParseWindowGeometry(const KernelSetup& setup, const std::vector<int64_t>& spatial_in,
                           const std::vector<int64_t>* kernel_from_weights, const WindowOptions& options,
                           WindowGeometry* g);

// The channel split of a Conv-like node: X [N, C, spatial...] and
// W [M, C / group, kernel...] of equal rank >= 3.
struct ConvChannels {
  int64_t batch = 0, in = 0, out = 0, group = 1;
  int64_t in_per_group = 0, out_per_group = 0;
};

// Checks the ranks, the `group` attribute and the channel counts; messages
// name the tensors `x_name` and `w_name` ("X", "W").
Status ParseConvChannels(const KernelSetup& setup, const TensorInfo& x, const TensorInfo& w, const char* x_name,
                         const char* w_name, ConvChannels* out);

}  // namespace nn
}  // namespace loom
