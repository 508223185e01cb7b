// Test support for the lowering: random layers, references, and a bench that
// runs a Program on the functional model under several schedule seeds and
// compares the output with the reference bit for bit.
//
// The Conv reference, the NCHW <-> padded NHWC packing and the test-side
// ConvLayer (ONNX layout, unfolded bias, per-channel stages) are the model's
// (kernels/fpga/model/testing/model_test_util.h); Add and MaxPool references
// are here (requant::RequantizeAdd, a naive max over the taps inside the image).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/model/accel_model.h"
#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace testing {

// N = 8 with tiny buffers and queues, so small layers need many tiles, K
// chunks, kernel-row runs, parameter reloads and full queues.
const contract::AccelConfig& TinyConfig();

// The configurations the randomized tests sweep: pynq_z2, kv260, TinyConfig().
std::vector<const contract::AccelConfig*> TestConfigs();

// 1 (or $LOOM_FPGA_LONG, e.g. 10, when set): how many times more random cases to run.
int LongRunFactor();

// The random cases a sweep of `count` runs: count x LongRunFactor(), and a
// quarter of that (at least 1) in sanitizer builds (LOOM_SANITIZE=ON), where
// the model and the reference run unvectorized and instrumented, about 10x
// slower; the Release build runs them all.
int SweepCount(int count);

// A second device that every Bench also runs each program on (e.g. the RTL
// simulation, hw/sim/tests/rtl_device_test.cc): Run gets the same arguments
// and a copy of the memory as it was before the model's run; the Bench
// expects it to report the model's error and command and to leave the memory
// byte for byte as the model left it (outputs, padding and guard bands), with
// the same DMA byte counts.
class SecondDevice {
 public:
  virtual ~SecondDevice() = default;
  virtual RunResult Run(const RunArgs& args, DeviceMemory* memory) = 0;
};
// Installs `device` for every Bench::Run while set; nullptr: the model alone.
void SetSecondDevice(SecondDevice* device);

// Device memory whose four base slots point at separate areas, the model,
// and tensors placed with guard bands that a run must not touch. Tensors are
// placed first (Put, Reserve: offsets for the lowering); the memory is made,
// sized to fit them and the command stream, when the program is loaded.
class Bench {
 public:
  explicit Bench(const contract::AccelConfig& config) : config_(config) {}

  // Places bytes in `slot`'s area (a 64-byte aligned, nonzero offset),
  // followed by a guard band.
  DramTensor Put(uint32_t slot, const std::vector<uint8_t>& bytes);
  DramTensor Reserve(uint32_t slot, size_t bytes) { return Put(slot, std::vector<uint8_t>(bytes, 0)); }

  // Makes the memory, writes everything placed, the program's images at
  // `constants` and its commands (in slot 0).
  void Load(const Program& program, const ConstantPlacement& constants);
  void Load(const Program& program);  // no constant images (Add, MaxPool)

  // After Load.
  void Write(DramTensor at, const std::vector<uint8_t>& bytes);
  std::vector<uint8_t> Get(DramTensor at, size_t bytes) const;
  RunResult Run(uint64_t seed);
  // Empty when every guard band is intact; else which one was overwritten.
  std::string BrokenGuard() const;

  const contract::AccelConfig& config() const { return config_; }

 private:
  uint64_t Address(DramTensor at) const { return memory_->base() + at.slot * bytes_per_slot_ + at.offset; }

  const contract::AccelConfig& config_;
  std::array<uint64_t, contract::kBaseSlots> next_{64, 64, 64, 64};  // next free offset per slot
  std::vector<std::pair<DramTensor, std::vector<uint8_t>>> placed_;  // guard bands included
  size_t bytes_per_slot_ = 0;
  std::unique_ptr<DeviceMemory> memory_;
  std::unique_ptr<AccelModel> model_;
  uint64_t cmd_addr_ = 0;
  uint32_t cmd_count_ = 0;
};

// ---- Conv / Gemm

struct ConvCase {
  fpga::testing::ConvLayer ref;  // the test's view: NCHW input, unfolded bias, stages
  bool out_int32 = false;
  bool out_unsigned = false;
  std::string name;
};

// The lowering's view of a case: folded bias, shared zero point and range.
ConvLayer ToLoweringLayer(const ConvCase& c);

enum class ConvProfile {
  kSmall,   // spatial ≤ 16, channels ≤ 48 (≤ 24 on TinyConfig), kernels 1..7
  kMedium,  // spatial 20..48, channels ≤ 40, kernels 1..7: several tiles on pynq_z2 and kv260
  kWide,   // up to 512 input or output channels, small spatial size
  kGemm,   // 1 × M × K images, 1 × 1 kernels
};
// A random case that fits `config` (and the reference's int32 accumulator).
ConvCase RandomConvCase(const contract::AccelConfig& config, ConvProfile profile, std::mt19937* rng);

// Fills input, weights, bias and stages of a case whose shape is set:
// activations and zero points of the case's dtype, per-channel multipliers
// spread so that some outputs saturate, ReLU/ReLU6-like clamps sometimes.
void RandomizeValues(ConvCase* c, std::mt19937* rng);

// Lowers, runs under every seed and compares (also the padding channels,
// the guard bands, the model's MAC and DMA counts and the token balance).
::testing::AssertionResult RunConvCase(const contract::AccelConfig& config, const ConvCase& c,
                                       const std::vector<uint64_t>& seeds, ProgramStats* stats = nullptr);

// ---- Add / MaxPool

struct AddCase {
  AddLayer layer;
  std::vector<int32_t> a, b;  // NCHW
};
AddCase RandomAddCase(const contract::AccelConfig& config, std::mt19937* rng);
std::vector<int32_t> ReferenceAdd(const AddCase& c);
::testing::AssertionResult RunAddCase(const contract::AccelConfig& config, const AddCase& c,
                                      const std::vector<uint64_t>& seeds);

struct MaxPoolCase {
  MaxPoolLayer layer;
  std::vector<int32_t> x;  // NCHW
};
MaxPoolCase RandomMaxPoolCase(const contract::AccelConfig& config, std::mt19937* rng);
std::vector<int32_t> ReferenceMaxPool(const MaxPoolCase& c);
::testing::AssertionResult RunMaxPoolCase(const contract::AccelConfig& config, const MaxPoolCase& c,
                                          const std::vector<uint64_t>& seeds);

// ---- ResNet-18

struct ResNetConv {
  const char* name;
  int c_in, size, c_out, k, stride;  // square input size
  int pad = -1;                      // -1: k / 2
};
// The 20 convolutions of ResNet-18 (224x224, batch 1), in network order.
const std::vector<ResNetConv>& ResNet18Convs();
// conv1 as the builder's space_to_depth_stem pass runs it on the
// accelerator: 4x4, stride 1, no padding, over the 12-channel 115x115
// space-to-depth image of the padded input.
ResNetConv ResNet18SpaceToDepthStem();
// Every distinct convolution shape of ResNet-18 (the stem both ways) with
// its spatial size divided by `divisor` (at least the kernel size): the
// network's channel counts, tiling and weight streaming, at a fraction of
// the cycles.
std::vector<ResNetConv> ResNet18ConvShapes(int divisor);
// A case of that shape with random values.
ConvCase ResNetConvCase(const ResNetConv& r, std::mt19937* rng);
// The eight residual Adds (layerS.B.add: the block's output channels and
// size) and the stem's 3x3/2 max pooling (64 x 112 x 112), random values.
std::vector<std::pair<std::string, AddCase>> ResNet18Adds(std::mt19937* rng);
MaxPoolCase ResNet18MaxPool(std::mt19937* rng);

}  // namespace testing
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
