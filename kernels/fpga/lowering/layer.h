// The int8 layers the accelerator runs, as the lowering (lowering.h) takes
// them: shapes, constants and quantization already resolved by the builder,
// plus where their tensors live in device memory.
//
// Activations in DRAM (hw/README.md, Memory layout): NHWC, batch 1, channels
// padded to a multiple of N with zeros; pixel pitch = padded channels bytes
// (4× for an int32 output), row pitch = width · pixel pitch, so a tensor is
// one contiguous block (ActivationLayout). A tensor is placed at a base slot
// plus a byte offset (DramTensor), which keeps command streams position
// independent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/common/requantize.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace lowering {

// Where a tensor or a constant image starts: base register `slot` (0..3) plus
// `offset` bytes (a multiple of the configuration's dram_alignment).
struct DramTensor {
  uint32_t slot = 0;
  uint32_t offset = 0;
};

// Where the caller places a Program's constant images (Program::weight_image,
// Program::param_image); the command stream reads them there.
struct ConstantPlacement {
  DramTensor weights;
  DramTensor params;
};

// The DRAM layout of an h × w × c activation tensor for a configuration.
struct ActivationLayout {
  uint32_t blocks = 0;       // channel blocks of N: ceil(c / N)
  uint32_t pixel_pitch = 0;  // bytes per pixel: blocks · N (· 4 for int32)
  uint32_t row_pitch = 0;    // w · pixel_pitch
  uint64_t bytes = 0;        // h · row_pitch
};
ActivationLayout ActivationLayoutOf(const contract::AccelConfig& config, uint32_t h, uint32_t w, uint32_t c,
                                    bool int32 = false);

// InvalidArgument naming `what` unless the slot exists, the offset is a
// multiple of config.dram_alignment and [offset, offset + bytes) is
// addressable by 32-bit command offsets.
Status CheckPlacement(const contract::AccelConfig& config, const std::string& label, const char* what,
                      DramTensor tensor, uint64_t bytes);

// The sliding window shared by Conv and MaxPool. The accelerator's limits:
// kernel ≤ 15, stride and dilation ≤ 7, each pad smaller than the dilated
// kernel extent (so every output row and column reads at least one input one).
struct Window {
  uint32_t kh = 1, kw = 1;
  uint32_t stride_y = 1, stride_x = 1;
  uint32_t dilation_y = 1, dilation_x = 1;
  uint32_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  uint32_t ExtentY() const { return (kh - 1) * dilation_y + 1; }
  uint32_t ExtentX() const { return (kw - 1) * dilation_x + 1; }
  // Output size for an in_h × in_w input (floor mode); 0 if the window does not fit.
  uint32_t OutH(uint32_t in_h) const;
  uint32_t OutW(uint32_t in_w) const;
};

// Conv, or Gemm/MatMul as a 1 × M image of K-channel pixels (GemmLayer).
// weights[((o · in_c + i) · kh + ky) · kw + kx] (int8, symmetric); bias[o]
// already holds bias − input_zero_point · Σ weights of channel o, because the
// load unit pads with input_zero_point and the array multiplies raw bytes.
struct ConvLayer {
  std::string name = "conv";  // for messages: "<name> (Conv): ..."
  uint32_t in_h = 1, in_w = 1, in_c = 1, out_c = 1;
  Window window;
  bool act_unsigned = false;       // input is uint8 (else int8)
  int32_t input_zero_point = 0;    // the pad byte
  std::vector<int8_t> weights;     // [out_c][in_c][kh][kw]
  std::vector<int32_t> bias;       // [out_c], zero-point correction folded in
  std::vector<requant::Multiplier> multipliers;  // [out_c]: in_scale · w_scale / out_scale
  int32_t output_zero_point = 0;
  requant::Range output_range;     // qmin/qmax: the dtype's, narrowed by ReLU/ReLU6
  bool out_int32 = false;          // write acc + bias as int32 (no requantization)

  uint32_t OutH() const { return window.OutH(in_h); }
  uint32_t OutW() const { return window.OutW(in_w); }
  uint64_t Macs() const;  // out_h · out_w · out_c · in_c · kh · kw
};

// Y[M × N_out] = A[M × K] · B + bias as a ConvLayer: in_h 1, in_w M, in_c K,
// 1 × 1 kernel; weights [N_out][K] (B transposed), bias and multipliers sized
// and zero, for the caller to fill.
ConvLayer GemmLayer(uint32_t m, uint32_t k, uint32_t n_out, std::string name = "gemm");

// Residual Add of two h × w × c tensors of the same dtype:
// requant::RequantizeAdd(a, b, params) element by element.
struct AddLayer {
  std::string name = "add";
  uint32_t h = 1, w = 1, c = 1;
  bool act_unsigned = false;
  requant::AddParams params;  // input zero points and scales, output stage
};

// MaxPool over int8/uint8 h × w × c; the output keeps the input's zero point
// and scale (ONNX QLinear pooling does), so values pass unchanged.
struct MaxPoolLayer {
  std::string name = "maxpool";
  uint32_t h = 1, w = 1, c = 1;
  Window window;
  int32_t zero_point = 0;
  bool act_unsigned = false;

  uint32_t OutH() const { return window.OutH(h); }
  uint32_t OutW() const { return window.OutW(w); }
};

// InvalidArgument/Unsupported naming the layer unless the layer is well formed
// and within the accelerator's limits (the Lower* functions call these first).
Status ValidateConv(const contract::AccelConfig& config, const ConvLayer& layer);
Status ValidateAdd(const contract::AccelConfig& config, const AddLayer& layer);
Status ValidateMaxPool(const contract::AccelConfig& config, const MaxPoolLayer& layer);

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
