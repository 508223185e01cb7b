// Test support for the functional model: a device memory + model harness,
// a naive int64 NCHW convolution reference, and the DRAM layouts the model
// expects (NHWC with channels padded to N, weights tiled as CONV reads them,
// parameter records).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/common/requantize.h"
#include "kernels/fpga/model/accel_model.h"
#include "kernels/fpga/model/command_builder.h"
#include "kernels/fpga/model/device_memory.h"

namespace loom {
namespace fpga {
namespace testing {

// The 16x16 configuration most tests use.
inline const contract::AccelConfig& PynqZ2() { return *contract::FindConfig("pynq_z2"); }

// Device memory and a model; every base slot points at the memory's start,
// so dram_offset is an offset into it.
class ModelHarness {
 public:
  explicit ModelHarness(const contract::AccelConfig& config, size_t memory_bytes = size_t{8} << 20);

  // Copies bytes into freshly allocated memory (64-byte aligned); its offset.
  uint32_t Put(const std::vector<uint8_t>& bytes);
  // A zeroed region of `bytes`; its offset.
  uint32_t Reserve(size_t bytes) { return Put(std::vector<uint8_t>(bytes, 0)); }
  std::vector<uint8_t> Get(uint32_t offset, size_t bytes) const;

  // Writes the stream into memory and runs it.
  RunResult Run(const std::vector<contract::Command>& stream, uint64_t seed = 0);
  RunArgs Args(uint64_t cmd_addr, uint32_t count, uint64_t seed = 0) const;

  const contract::AccelConfig& config() const { return config_; }
  uint32_t n() const { return config_.n; }
  DeviceMemory& memory() { return memory_; }
  AccelModel& model() { return model_; }

 private:
  const contract::AccelConfig& config_;
  DeviceMemory memory_;
  AccelModel model_;
};

// AppendCommand that fails the test on error.
template <typename Op>
void Append(std::vector<contract::Command>* stream, const Op& op) {
  const Status status = AppendCommand(op, stream);
  ASSERT_TRUE(status.ok()) << status.message();
}

// The smallest valid command of a kind, for token and error tests: one
// weight row from dram_offset; a 1x1 CONV of one pixel and one channel block
// at row 0 of every buffer; a STORE of one accumulator row as int32.
contract::LoadWgt TinyLoad(uint32_t dram_offset);
contract::Conv TinyConv();
contract::Store TinyStore(uint32_t dram_offset);

// A quantized convolution in ONNX layout: batch-1 NCHW input, OIHW weights,
// group 1. Output channels share the zero point and range, each has its own
// multiplier (per-channel weight scales).
struct ConvLayer {
  int c_in = 0, h = 0, w = 0, c_out = 0;
  int kh = 1, kw = 1, stride_y = 1, stride_x = 1, dilation_y = 1, dilation_x = 1;
  int pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
  bool act_unsigned = false;
  int32_t x_zero_point = 0;
  std::vector<int32_t> x;                    // c_in·h·w
  std::vector<int8_t> weights;               // c_out·c_in·kh·kw
  std::vector<int32_t> bias;                 // c_out
  std::vector<requant::OutputStage> stages;  // c_out

  int out_h() const { return (h + pad_top + pad_bottom - dilation_y * (kh - 1) - 1) / stride_y + 1; }
  int out_w() const { return (w + pad_left + pad_right - dilation_x * (kw - 1) - 1) / stride_x + 1; }
  // The bias with −x_zp·Σw folded in, as the builder stores it for the accelerator.
  int32_t FoldedBias(int oc) const;
};

// Fills x, weights, bias and stages of a layer whose shape is set, with
// random values (activations uint8 or int8 per act_unsigned, int8 output).
void Randomize(ConvLayer* layer, std::mt19937* rng);

// bias + Σ w·(x − x_zp) over the taps inside the image, int64; c_out·oh·ow.
std::vector<int64_t> ReferenceConvAcc(const ConvLayer& layer);
// ReferenceConvAcc requantized with each channel's stage.
std::vector<int32_t> ReferenceConv(const ConvLayer& layer);

inline int Blocks(int channels, int n) { return (channels + n - 1) / n; }

// NCHW values -> NHWC bytes, channels padded to a multiple of n with zeros.
std::vector<uint8_t> ToNhwc(const std::vector<int32_t>& nchw, int c, int h, int w, int n);
enum class Element { kInt8, kUint8, kInt32 };
// NHWC (channels padded to n) -> NCHW values of the first c channels.
std::vector<int32_t> FromNhwc(const std::vector<uint8_t>& bytes, int c, int h, int w, int n, Element element);

// The layer's weights in the order CONV reads them: per output block ob,
// in-blocks·kh·kw tiles of n rows of n bytes from row ob·in-blocks·kh·kw·n;
// tile ((cb·kh + ky)·kw + kx), row i = input channel cb·n + i, byte j =
// output channel ob·n + j; zero outside the layer's channels.
std::vector<uint8_t> TileWeights(const ConvLayer& layer, int n);

// One parameter record per output channel (folded bias, the stage's
// multiplier and shift), zero records up to a multiple of n.
std::vector<uint8_t> ParamRecords(const ConvLayer& layer, int n);

}  // namespace testing
}  // namespace fpga
}  // namespace loom
