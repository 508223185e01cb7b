#include "kernels/cpu/nn/conv_geometry.h"

#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace nn {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

bool WindowGeometry::IsWinograd3x3() const {
  return rank == 2 && kernel[1] == 3 && kernel[2] == 3 && stride[1] == 1 && stride[2] == 1 && dilation[1] == 1 &&
         dilation[2] == 1;
}

bool WindowGeometry::HasPadding() const {
  for (int a = 0; a < kMaxSpatialRank; ++a)
    if (pad_begin[a] || pad_end[a]) return true;
  return false;
}

WindowTaps WindowGeometry::Taps(int a, int64_t o) const {
  const int64_t start = o * stride[a] - pad_begin[a];
  WindowTaps t;
  for (int64_t k = 0; k < kernel[a]; ++k) {
    const int64_t pos = start + k * dilation[a];
    if (pos < 0) t.lo = k + 1;
    if (pos < in[a]) t.hi = k + 1;
    if (pos < in[a] + pad_end[a]) ++t.padded;  // pos >= -pad_begin always holds
  }
  if (t.hi < t.lo) t.hi = t.lo;
  return t;
}

std::vector<int64_t> WindowGeometry::OutDims() const {
  return std::vector<int64_t>(out + kMaxSpatialRank - rank, out + kMaxSpatialRank);
}

Status ParseWindowGeometry(const KernelSetup& setup, const std::vector<int64_t>& spatial_in,
                           const std::vector<int64_t>* kernel_from_weights, const WindowOptions& options,
                           WindowGeometry* g) {
  *g = WindowGeometry();
  const size_t r = spatial_in.size();
  if (r < 1 || r > static_cast<size_t>(kMaxSpatialRank))
    return setup.Unsupported(std::to_string(r) + " spatial dims (1 to 3 supported)");
  g->rank = static_cast<int>(r);

  std::vector<int64_t> kernel, strides, dilations, pads;
  if (kernel_from_weights) {
    RETURN_IF_ERROR(ReadIntsAttr(setup, "kernel_shape", r, *kernel_from_weights, &kernel));
    if (kernel != *kernel_from_weights)
      return setup.Invalid("kernel_shape " + IntsToString(kernel) + " does not match the weight's spatial dims " +
                           IntsToString(*kernel_from_weights));
  } else {
    if (!setup.attrs.Has("kernel_shape")) return setup.Invalid("missing attribute kernel_shape");
    RETURN_IF_ERROR(ReadIntsAttr(setup, "kernel_shape", r, {}, &kernel));
  }
  RETURN_IF_ERROR(ReadIntsAttr(setup, "strides", r, std::vector<int64_t>(r, 1), &strides));
  if (!options.allow_dilations && setup.attrs.Has("dilations")) {
    RETURN_IF_ERROR(ReadIntsAttr(setup, "dilations", r, {}, &dilations));
    for (int64_t d : dilations)
      if (d != 1) return setup.Unsupported("attribute dilations " + IntsToString(dilations));
  }
  RETURN_IF_ERROR(ReadIntsAttr(setup, "dilations", r, std::vector<int64_t>(r, 1), &dilations));
  RETURN_IF_ERROR(ReadIntsAttr(setup, "pads", 2 * r, std::vector<int64_t>(2 * r, 0), &pads));

  std::string auto_pad;
  RETURN_IF_ERROR(ReadStringAttr(setup, "auto_pad", "NOTSET", &auto_pad));
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    return setup.Invalid("attribute auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");

  int64_t ceil_mode = 0;
  RETURN_IF_ERROR(ReadIntAttr(setup, "ceil_mode", 0, &ceil_mode));
  if (ceil_mode != 0 && !options.allow_ceil_mode)
    return setup.Unsupported("attribute ceil_mode=" + std::to_string(ceil_mode));

  const int off = kMaxSpatialRank - g->rank;
  for (size_t i = 0; i < r; ++i) {
    const int a = off + static_cast<int>(i);
    if (spatial_in[i] < 0) return setup.Invalid("negative input dim " + std::to_string(spatial_in[i]));
    if (kernel[i] < 1) return setup.Invalid("kernel_shape " + IntsToString(kernel) + " has a value < 1");
    if (strides[i] < 1) return setup.Invalid("strides " + IntsToString(strides) + " has a value < 1");
    if (dilations[i] < 1) return setup.Invalid("dilations " + IntsToString(dilations) + " has a value < 1");
    if (pads[i] < 0 || pads[i + r] < 0) return setup.Invalid("pads " + IntsToString(pads) + " has a negative value");
    if (kernel[i] > (int64_t{1} << 24) || strides[i] > (int64_t{1} << 24) || dilations[i] > (int64_t{1} << 24) ||
        pads[i] > (int64_t{1} << 24) || pads[i + r] > (int64_t{1} << 24))
      return setup.Unsupported("window attribute value above 2^24");
    g->in[a] = spatial_in[i];
    g->kernel[a] = kernel[i];
    g->stride[a] = strides[i];
    g->dilation[a] = dilations[i];
    const int64_t in = spatial_in[i], s = strides[i], ext = g->Extent(a);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g->out[a] = CeilDiv(in, s);
      int64_t total = (g->out[a] - 1) * s + ext - in;
      if (total < 0) total = 0;
      const int64_t small = total / 2, large = total - small;
      g->pad_begin[a] = auto_pad == "SAME_UPPER" ? small : large;
      g->pad_end[a] = auto_pad == "SAME_UPPER" ? large : small;
    } else if (auto_pad == "VALID") {
      g->out[a] = in >= ext ? (in - ext) / s + 1 : 0;
    } else {
      g->pad_begin[a] = pads[i];
      g->pad_end[a] = pads[i + r];
      const int64_t span = in + pads[i] + pads[i + r] - ext;
      if (span < 0)
        return setup.Invalid("window extent " + std::to_string(ext) + " exceeds the padded input size " +
                             std::to_string(in + pads[i] + pads[i + r]) + " on spatial axis " + std::to_string(i));
      if (ceil_mode) {
        int64_t o = CeilDiv(span, s) + 1;
        // The last window must start inside the input or its left padding.
        if ((o - 1) * s >= in + pads[i]) --o;
        g->out[a] = o;
      } else {
        g->out[a] = FloorDiv(span, s) + 1;
      }
    }
  }
  return Status::Ok();
}

Status ParseConvChannels(const KernelSetup& setup, const TensorInfo& x, const TensorInfo& w, const char* x_name,
                         const char* w_name, ConvChannels* out) {
  const std::string X = x_name, W = w_name;
  if (x.rank() < 3) return setup.Invalid(X + " has " + std::to_string(x.rank()) + " dims, expected at least 3");
  if (w.rank() != x.rank())
    return setup.Invalid(W + " has " + std::to_string(w.rank()) + " dims, expected " + std::to_string(x.rank()));
  ConvChannels c;
  RETURN_IF_ERROR(ReadIntAttr(setup, "group", 1, &c.group));
  c.batch = x.shape[0];
  c.in = x.shape[1];
  c.out = w.shape[0];
  if (c.group < 1) return setup.Invalid("group " + std::to_string(c.group) + " < 1");
  if (c.in % c.group != 0 || c.out % c.group != 0)
    return setup.Invalid("channels (" + X + ": " + std::to_string(c.in) + ", " + W + ": " + std::to_string(c.out) +
                         ") are not divisible by group " + std::to_string(c.group));
  c.in_per_group = c.in / c.group;
  c.out_per_group = c.out / c.group;
  if (w.shape[1] != c.in_per_group)
    return setup.Invalid(W + " has " + std::to_string(w.shape[1]) + " input channels per group, expected " +
                         std::to_string(c.in_per_group));
  *out = c;
  return Status::Ok();
}

}  // namespace nn
}  // namespace loom
