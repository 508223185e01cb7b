#include "kernels/fpga/lowering/layer.h"

#include <initializer_list>
#include <string>
#include <utility>

namespace loom {
namespace fpga {
namespace lowering {
namespace {

// Accelerator limits from the command fields' widths (accel.json).
constexpr uint32_t kMaxKernel = 15;    // CONV/MAXPOOL kh, kw: 4 bits
constexpr uint32_t kMaxStride = 7;     // stride, dilation: 3 bits
constexpr uint32_t kMaxPad = 15;       // LOAD_ACT pad_*: 4 bits
constexpr uint32_t kMaxBlocks = 255;   // LOAD_ACT cb, CONV in_cb: 8 bits

uint32_t OutSize(uint32_t in, uint32_t pad_before, uint32_t pad_after, uint32_t extent, uint32_t stride) {
  const uint64_t padded = uint64_t{in} + pad_before + pad_after;
  if (stride == 0 || padded < extent) return 0;
  return static_cast<uint32_t>((padded - extent) / stride + 1);
}

std::string Str(int64_t v) { return std::to_string(v); }

Status CheckRange(const std::string& label, const char* what, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::Ok();
  return Status::InvalidArgument(label + ": " + what + " " + Str(value) + " outside [" + Str(lo) + ", " + Str(hi) + "]");
}

Status CheckSizes(const std::string& label, std::initializer_list<std::pair<const char*, uint32_t>> sizes) {
  for (const auto& [what, value] : sizes) {
    if (value == 0) return Status::InvalidArgument(label + ": " + what + " is 0");
  }
  return Status::Ok();
}

Status CheckDtypeValue(const std::string& label, const char* what, int32_t value, bool is_unsigned) {
  return is_unsigned ? CheckRange(label, what, value, 0, 255) : CheckRange(label, what, value, -128, 127);
}

Status CheckMultiplier(const std::string& label, const std::string& what, requant::Multiplier m) {
  if (m.multiplier < 0 || m.shift < -31 || m.shift > 31) {
    return Status::InvalidArgument(label + ": " + what + " (multiplier " + Str(m.multiplier) + ", shift " +
                                   Str(m.shift) + ") is not a requantization multiplier");
  }
  return Status::Ok();
}

// An int8 or uint8 output stage: zero point and clamp inside [-128, 255].
Status CheckOutput(const std::string& label, int32_t zero_point, requant::Range range) {
  RETURN_IF_ERROR(CheckRange(label, "output zero point", zero_point, -128, 255));
  RETURN_IF_ERROR(CheckRange(label, "qmin", range.min, -128, 255));
  RETURN_IF_ERROR(CheckRange(label, "qmax", range.max, range.min, 255));
  return Status::Ok();
}

Status CheckBlocks(const contract::AccelConfig& config, const std::string& label, uint32_t c) {
  const uint32_t blocks = (c + config.n - 1) / config.n;
  if (blocks <= kMaxBlocks) return Status::Ok();
  return Status::Unsupported(label + ": " + Str(c) + " input channels are " + Str(blocks) +
                             " channel blocks; the accelerator reads at most " + Str(kMaxBlocks) + " per pixel");
}

Status ValidateWindow(const Window& w, uint32_t in_h, uint32_t in_w, const std::string& label) {
  RETURN_IF_ERROR(CheckSizes(label, {{"kernel height", w.kh}, {"kernel width", w.kw}, {"stride_y", w.stride_y},
                                     {"stride_x", w.stride_x}, {"dilation_y", w.dilation_y},
                                     {"dilation_x", w.dilation_x}}));
  if (w.kh > kMaxKernel || w.kw > kMaxKernel) {
    return Status::Unsupported(label + ": kernel " + Str(w.kh) + "x" + Str(w.kw) + ", the accelerator supports at most " +
                               Str(kMaxKernel) + "x" + Str(kMaxKernel));
  }
  if (w.stride_y > kMaxStride || w.stride_x > kMaxStride || w.dilation_y > kMaxStride || w.dilation_x > kMaxStride) {
    return Status::Unsupported(label + ": stride " + Str(w.stride_y) + "x" + Str(w.stride_x) + ", dilation " +
                               Str(w.dilation_y) + "x" + Str(w.dilation_x) + "; the accelerator supports at most " +
                               Str(kMaxStride));
  }
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> pads[] = {{"pad_top", {w.pad_top, w.ExtentY()}},
                                                                        {"pad_bottom", {w.pad_bottom, w.ExtentY()}},
                                                                        {"pad_left", {w.pad_left, w.ExtentX()}},
                                                                        {"pad_right", {w.pad_right, w.ExtentX()}}};
  for (const auto& [what, pad_extent] : pads) {
    const auto [pad, extent] = pad_extent;
    if (pad > kMaxPad || pad >= extent) {
      return Status::Unsupported(label + ": " + what + " " + Str(pad) + "; the accelerator pads at most " +
                                 Str(kMaxPad) + " and less than the dilated kernel extent " + Str(extent));
    }
  }
  if (w.OutH(in_h) == 0 || w.OutW(in_w) == 0) {
    return Status::InvalidArgument(label + ": the " + Str(w.ExtentY()) + "x" + Str(w.ExtentX()) +
                                   " window does not fit the padded " + Str(in_h) + "x" + Str(in_w) + " input");
  }
  return Status::Ok();
}

}  // namespace

ActivationLayout ActivationLayoutOf(const contract::AccelConfig& config, uint32_t h, uint32_t w, uint32_t c,
                                    bool int32) {
  ActivationLayout layout;
  layout.blocks = (c + config.n - 1) / config.n;
  layout.pixel_pitch = layout.blocks * config.n * (int32 ? 4 : 1);
  layout.row_pitch = w * layout.pixel_pitch;
  layout.bytes = uint64_t{h} * layout.row_pitch;
  return layout;
}

Status CheckPlacement(const contract::AccelConfig& config, const std::string& label, const char* what,
                      DramTensor tensor, uint64_t bytes) {
  if (tensor.slot >= contract::kBaseSlots || tensor.offset % config.dram_alignment != 0 ||
      uint64_t{tensor.offset} + bytes > (uint64_t{1} << 32)) {
    return Status::InvalidArgument(label + ": " + what + " at slot " + Str(tensor.slot) + " offset " +
                                   Str(tensor.offset) + " (" + Str(static_cast<int64_t>(bytes)) +
                                   " bytes): needs a slot below " + Str(contract::kBaseSlots) + ", an offset that is a multiple of " +
                                   Str(config.dram_alignment) + " and an end within 4 GiB");
  }
  return Status::Ok();
}

uint32_t Window::OutH(uint32_t in_h) const { return OutSize(in_h, pad_top, pad_bottom, ExtentY(), stride_y); }
uint32_t Window::OutW(uint32_t in_w) const { return OutSize(in_w, pad_left, pad_right, ExtentX(), stride_x); }

uint64_t ConvLayer::Macs() const {
  return uint64_t{OutH()} * OutW() * out_c * in_c * window.kh * window.kw;
}

ConvLayer GemmLayer(uint32_t m, uint32_t k, uint32_t n_out, std::string name) {
  ConvLayer layer;
  layer.name = std::move(name);
  layer.in_h = 1;
  layer.in_w = m;
  layer.in_c = k;
  layer.out_c = n_out;
  layer.weights.assign(size_t{n_out} * k, 0);
  layer.bias.assign(n_out, 0);
  layer.multipliers.assign(n_out, requant::Multiplier());
  return layer;
}

Status ValidateConv(const contract::AccelConfig& config, const ConvLayer& layer) {
  const std::string label = layer.name + " (Conv)";
  RETURN_IF_ERROR(CheckSizes(label, {{"in_h", layer.in_h}, {"in_w", layer.in_w}, {"in_c", layer.in_c},
                                     {"out_c", layer.out_c}}));
  RETURN_IF_ERROR(ValidateWindow(layer.window, layer.in_h, layer.in_w, label));
  const uint64_t weights = uint64_t{layer.out_c} * layer.in_c * layer.window.kh * layer.window.kw;
  if (layer.weights.size() != weights || layer.bias.size() != layer.out_c || layer.multipliers.size() != layer.out_c) {
    return Status::InvalidArgument(label + ": " + Str(layer.weights.size()) + " weights, " + Str(layer.bias.size()) +
                                   " biases, " + Str(layer.multipliers.size()) + " multipliers; expected " +
                                   Str(weights) + ", " + Str(layer.out_c) + ", " + Str(layer.out_c));
  }
  RETURN_IF_ERROR(CheckDtypeValue(label, "input zero point", layer.input_zero_point, layer.act_unsigned));
  if (!layer.out_int32) {
    RETURN_IF_ERROR(CheckOutput(label, layer.output_zero_point, layer.output_range));
    for (uint32_t o = 0; o < layer.out_c; ++o)
      RETURN_IF_ERROR(CheckMultiplier(label, "output channel " + Str(o), layer.multipliers[o]));
  }
  return CheckBlocks(config, label, layer.in_c);
}

Status ValidateAdd(const contract::AccelConfig& config, const AddLayer& layer) {
  (void)config;
  const std::string label = layer.name + " (Add)";
  RETURN_IF_ERROR(CheckSizes(label, {{"h", layer.h}, {"w", layer.w}, {"c", layer.c}}));
  const requant::AddParams& p = layer.params;
  RETURN_IF_ERROR(CheckDtypeValue(label, "input a zero point", p.a_zero_point, layer.act_unsigned));
  RETURN_IF_ERROR(CheckDtypeValue(label, "input b zero point", p.b_zero_point, layer.act_unsigned));
  RETURN_IF_ERROR(CheckMultiplier(label, "input a scale", p.a));
  RETURN_IF_ERROR(CheckMultiplier(label, "input b scale", p.b));
  RETURN_IF_ERROR(CheckMultiplier(label, "output scale", p.output.m));
  return CheckOutput(label, p.output.zero_point, p.output.range);
}

Status ValidateMaxPool(const contract::AccelConfig& config, const MaxPoolLayer& layer) {
  const std::string label = layer.name + " (MaxPool)";
  RETURN_IF_ERROR(CheckSizes(label, {{"h", layer.h}, {"w", layer.w}, {"c", layer.c}}));
  RETURN_IF_ERROR(ValidateWindow(layer.window, layer.h, layer.w, label));
  RETURN_IF_ERROR(CheckDtypeValue(label, "zero point", layer.zero_point, layer.act_unsigned));
  return CheckBlocks(config, label, layer.c);
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
