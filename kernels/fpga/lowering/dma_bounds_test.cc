// CheckDmaBounds and DmaBytesNeeded: every stream the lowering makes fits the
// buffers its tensors and images take, and the functional model agrees to
// the byte: with a slot's buffer cut to what DmaBytesNeeded says and placed
// at the end of device memory the program runs, one byte less and the model
// faults. Hand-made commands that leave their slot, and spans past 32 bits,
// fail naming the command.
#include "kernels/fpga/lowering/dma_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

using contract::kBaseSlots;
using Slots = std::array<uint64_t, kBaseSlots>;
using testing::ConvCase;

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }

// Tensors and images back to back in their slots, each at the next multiple
// of the alignment, as the builder places the arena (slot 0) and the
// constant image (slot 1).
class Placement {
 public:
  explicit Placement(const contract::AccelConfig& config) : alignment_(config.dram_alignment) {}

  DramTensor Add(uint32_t slot, uint64_t bytes) {
    const uint64_t offset = (ends_[slot] + alignment_ - 1) / alignment_ * alignment_;
    ends_[slot] = offset + bytes;
    return {slot, static_cast<uint32_t>(offset)};
  }
  const Slots& ends() const { return ends_; }

 private:
  uint64_t alignment_;
  Slots ends_{};
};

// A lowered program, where its images go and the bytes its slots take.
struct Lowered {
  std::string name;
  Program program;
  ConstantPlacement constants;  // Conv only
  Slots slot_bytes{};
};

// A square Conv {name, c_in, size, c_out, k, stride, pad} with random values.
ConvCase ConvOf(const testing::ResNetConv& shape, bool out_int32 = false) {
  std::mt19937 rng(5);
  ConvCase c = testing::ResNetConvCase(shape, &rng);
  c.out_int32 = out_int32;
  return c;
}

// The Conv's input and output in the arena (the output first when asked),
// its images in the constant slot.
Lowered LowerConvCase(const contract::AccelConfig& config, const ConvCase& c, bool output_first = false) {
  const ConvLayer layer = testing::ToLoweringLayer(c);
  const uint64_t in_bytes = ActivationLayoutOf(config, layer.in_h, layer.in_w, layer.in_c).bytes;
  const uint64_t out_bytes = ActivationLayoutOf(config, layer.OutH(), layer.OutW(), layer.out_c, layer.out_int32).bytes;
  Placement place(config);
  const DramTensor first = place.Add(0, output_first ? out_bytes : in_bytes);
  const DramTensor second = place.Add(0, output_first ? in_bytes : out_bytes);
  Lowered l{c.name, {}, {place.Add(1, WeightImageBytes(config, layer)), place.Add(1, ParamImageBytes(config, layer))}};
  const Status s =
      LowerConv(config, layer, output_first ? second : first, output_first ? first : second, l.constants, &l.program);
  EXPECT_TRUE(s.ok()) << c.name << ": " << s.message();
  l.slot_bytes = place.ends();
  return l;
}

Lowered LowerAddCase(const contract::AccelConfig& config, const AddLayer& layer) {
  const uint64_t bytes = ActivationLayoutOf(config, layer.h, layer.w, layer.c).bytes;
  Placement place(config);
  const DramTensor a = place.Add(0, bytes), b = place.Add(0, bytes), out = place.Add(0, bytes);
  Lowered l;
  l.name = layer.name;
  const Status s = LowerAdd(config, layer, a, b, out, &l.program);
  EXPECT_TRUE(s.ok()) << layer.name << ": " << s.message();
  l.slot_bytes = place.ends();
  return l;
}

Lowered LowerMaxPoolCase(const contract::AccelConfig& config, const MaxPoolLayer& layer) {
  Placement place(config);
  const DramTensor in = place.Add(0, ActivationLayoutOf(config, layer.h, layer.w, layer.c).bytes);
  const DramTensor out = place.Add(0, ActivationLayoutOf(config, layer.OutH(), layer.OutW(), layer.c).bytes);
  Lowered l;
  l.name = layer.name;
  const Status s = LowerMaxPool(config, layer, in, out, &l.program);
  EXPECT_TRUE(s.ok()) << layer.name << ": " << s.message();
  l.slot_bytes = place.ends();
  return l;
}

Status Check(const contract::AccelConfig& config, const std::vector<contract::Command>& commands,
             const Slots& slot_bytes) {
  return CheckDmaBounds(config, commands.data(), commands.size(), slot_bytes);
}

Slots Needed(const contract::AccelConfig& config, const std::vector<contract::Command>& commands) {
  return DmaBytesNeeded(config, commands.data(), commands.size());
}

// Runs the program on the model with buffers of slot_bytes: the command
// stream first, then the other slots (rounded up to 64 bytes), then slot
// `last`, which ends where device memory ends, so that any access past it is
// a bus error. The constant images are written as far as their slot holds
// them; everything else is zero.
RunResult RunWithSlotLast(const contract::AccelConfig& config, const Lowered& l, const Slots& slot_bytes,
                          uint32_t last) {
  const auto round = [](uint64_t bytes) { return (bytes + 63) / 64 * 64; };
  const std::vector<contract::Command>& commands = l.program.commands;
  uint64_t total = round(commands.size() * contract::kCommandBytes);
  for (uint32_t s = 0; s < kBaseSlots; ++s) total += s == last ? slot_bytes[s] : round(slot_bytes[s]);
  DeviceMemory memory(total);
  RunArgs args;
  EXPECT_TRUE(WriteStream(commands, &memory, &args.cmd_addr).ok());
  for (uint32_t s = 0; s < kBaseSlots; ++s) {
    if (s != last) {
      EXPECT_TRUE(memory.Allocate(round(slot_bytes[s]), 64, &args.base[s]).ok());
    }
  }
  EXPECT_TRUE(memory.Allocate(slot_bytes[last], 64, &args.base[last]).ok());
  for (const auto& [at, image] : {std::pair{l.constants.weights, &l.program.weight_image},
                                  std::pair{l.constants.params, &l.program.param_image}}) {
    const uint64_t room = slot_bytes[at.slot] > at.offset ? slot_bytes[at.slot] - at.offset : 0;
    const size_t bytes = static_cast<size_t>(std::min<uint64_t>(image->size(), room));
    EXPECT_TRUE(memory.Write(args.base[at.slot] + at.offset, image->data(), bytes).ok());
  }
  args.count = static_cast<uint32_t>(commands.size());
  AccelModel model(config, &memory);
  RunResult result;
  EXPECT_TRUE(model.Run(args, &result).ok());
  return result;
}

// The lowering's buffers pass; DmaBytesNeeded fits inside them and passes;
// per slot, the model runs with exactly those bytes and faults with one
// fewer, at a command CheckDmaBounds refuses too.
void ExpectModelAgrees(const contract::AccelConfig& config, const Lowered& l) {
  SCOPED_TRACE(std::string(config.name) + " " + l.name);
  const std::vector<contract::Command>& commands = l.program.commands;
  ASSERT_FALSE(commands.empty());
  Status s = Check(config, commands, l.slot_bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  const Slots needed = Needed(config, commands);
  s = Check(config, commands, needed);
  EXPECT_TRUE(s.ok()) << s.message();
  for (uint32_t slot = 0; slot < kBaseSlots; ++slot) {
    EXPECT_LE(needed[slot], l.slot_bytes[slot]) << "slot " << slot;
    if (needed[slot] == 0) continue;
    const RunResult fits = RunWithSlotLast(config, l, needed, slot);
    EXPECT_TRUE(fits.ok()) << "slot " << slot << " of " << needed[slot] << " bytes: " << ErrorName(fits.error) << " "
                           << fits.error_detail;

    Slots cut = needed;
    --cut[slot];
    EXPECT_FALSE(Check(config, commands, cut).ok()) << "slot " << slot << " cut to " << cut[slot] << " bytes";
    const RunResult faults = RunWithSlotLast(config, l, cut, slot);
    EXPECT_EQ(faults.error, contract::ErrorCode::kBusError)
        << "slot " << slot << " cut to " << cut[slot] << " bytes: " << faults.error_detail;
    DmaSpan span;
    ASSERT_LT(faults.error_cmd, commands.size());
    ASSERT_TRUE(DmaSpanOf(config, commands[faults.error_cmd], &span)) << faults.error_detail;
    EXPECT_EQ(span.slot, slot) << faults.error_detail;
    EXPECT_GE(span.last, cut[slot]) << faults.error_detail;
  }
}

// ---------------------------------------------------------------- lowered programs

TEST(DmaBoundsTest, LoweredProgramsNeedExactlyWhatTheModelTouches) {
  const std::vector<ConvCase> convs = {
      ConvOf({"3x3 pad 1", 20, 12, 24, 3, 1, 1}),
      ConvOf({"3x3 stride 2 pad 1", 20, 13, 40, 3, 2, 1}),
      ConvOf({"7x7 stride 2 pad 3", 3, 30, 16, 7, 2, 3}),
      ConvOf({"1x1 stride 2 (subsampled)", 16, 9, 16, 1, 2, 0}),
      ConvOf({"3x3 int32 out", 16, 8, 20, 3, 1, 1}, /*out_int32=*/true),
      ConvOf({"two tiles", 32, 34, 32, 3, 1, 1}),
      ConvOf({"k chunks, streamed weights", 256, 10, 32, 3, 1, 1}),
      ConvOf({"1-pixel gemm", 300, 1, 50, 1, 1, 0}),
  };
  for (const ConvCase& c : convs) {
    for (bool output_first : {false, true}) ExpectModelAgrees(Pynq(), LowerConvCase(Pynq(), c, output_first));
  }

  std::mt19937 rng(31);
  for (const contract::AccelConfig* config : testing::TestConfigs()) {
    for (int i = 0; i < 6; ++i) {
      for (testing::ConvProfile profile :
           {testing::ConvProfile::kSmall, testing::ConvProfile::kMedium, testing::ConvProfile::kGemm}) {
        ExpectModelAgrees(*config, LowerConvCase(*config, testing::RandomConvCase(*config, profile, &rng), i % 2));
      }
      ExpectModelAgrees(*config, LowerAddCase(*config, testing::RandomAddCase(*config, &rng).layer));
      ExpectModelAgrees(*config, LowerMaxPoolCase(*config, testing::RandomMaxPoolCase(*config, &rng).layer));
    }
  }
}

// The arena's last byte is the last tensor's: the output's, which the last
// STORE writes, or the input's, which a stride-1 Conv's last LOAD_ACT reads.
// Every slot's need is then its buffer to the byte, and one byte less names
// that command.
TEST(DmaBoundsTest, ArenaOneByteShortNamesTheLastStoreOrLoad) {
  for (bool output_first : {false, true}) {
    const Lowered l = LowerConvCase(Pynq(), ConvOf({"conv", 20, 12, 24, 3, 1, 1}), output_first);
    EXPECT_EQ(Needed(Pynq(), l.program.commands), l.slot_bytes);
    Slots cut = l.slot_bytes;
    --cut[0];
    const Status s = Check(Pynq(), l.program.commands, cut);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    const std::string end = std::to_string(cut[0]);
    const std::string access = output_first ? " (LOAD_ACT) reads bytes [" : " (STORE) writes bytes [";
    const std::string tail = "] of slot 0, which has " + end + " bytes";
    // "command N (OP) reads|writes bytes [first, end] of slot 0, which has end bytes"
    const std::string& m = s.message();
    const size_t op = m.find(access), comma = m.find(", ", op);
    EXPECT_EQ(m.rfind("command ", 0), 0u);
    EXPECT_NE(op, std::string::npos);
    EXPECT_NE(comma, std::string::npos);
    EXPECT_TRUE(op != std::string::npos && comma != std::string::npos && m.substr(comma + 2) == end + tail)
        << s.message();
  }
}

// A subsampled load (1x1, stride 2 over 8x8) skips the input's last row and
// column; with the input last in the arena, its need ends at the last pixel
// read, (6, 6).
TEST(DmaBoundsTest, SubsampledLoadNeedsOnlyThePixelsItReads) {
  const Lowered l = LowerConvCase(Pynq(), ConvOf({"1x1 stride 2", 16, 8, 16, 1, 2, 0}), /*output_first=*/true);
  const ActivationLayout in = ActivationLayoutOf(Pynq(), 8, 8, 16);
  const uint64_t input_offset = l.slot_bytes[0] - in.bytes;
  EXPECT_EQ(Needed(Pynq(), l.program.commands)[0], input_offset + 6 * in.row_pitch + 6 * in.pixel_pitch + 16);
  ExpectModelAgrees(Pynq(), l);
}

// ---------------------------------------------------------------- hand-made commands

// A DRAM command of type Op at dram_offset of slot; its sizes are zero.
template <typename Op>
Op At(uint32_t slot, uint32_t dram_offset) {
  Op op;
  op.slot = slot;
  op.dram_offset = dram_offset;
  return op;
}

contract::LoadWgt LoadWgtOf(uint32_t slot, uint32_t dram_offset, uint32_t rows) {
  contract::LoadWgt op = At<contract::LoadWgt>(slot, dram_offset);
  op.rows = rows;
  return op;
}

contract::LoadParam LoadParamOf(uint32_t slot, uint32_t dram_offset, uint32_t count) {
  contract::LoadParam op = At<contract::LoadParam>(slot, dram_offset);
  op.count = count;
  return op;
}

// oh x ow pixels, int8 (N bytes each) unless out_int32.
contract::Store StoreOf(uint32_t slot, uint32_t dram_offset, uint32_t oh, uint32_t ow, uint32_t row_pitch,
                        uint32_t pixel_pitch, bool out_int32 = false) {
  contract::Store op = At<contract::Store>(slot, dram_offset);
  op.oh = oh;
  op.ow = ow;
  op.row_pitch = row_pitch;
  op.pixel_pitch = pixel_pitch;
  op.out_int32 = out_int32;
  return op;
}

TEST(DmaBoundsTest, SpanOfEachOpcodeFollowsTheModel) {
  const contract::AccelConfig& config = Pynq();  // N = 16
  std::vector<contract::Command> stream;
  contract::LoadAct act;  // 2 x 3 pixels of 2 blocks, padding all round (not read)
  act.slot = 2;
  act.dram_offset = 64;
  act.y_size = 2;
  act.x_size = 3;
  act.cb = 2;
  act.row_pitch = 1024;
  act.pixel_pitch = 48;
  act.pad_top = act.pad_bottom = act.pad_left = act.pad_right = 3;
  fpga::testing::Append(&stream, act);
  fpga::testing::Append(&stream, LoadWgtOf(1, 128, 5));
  fpga::testing::Append(&stream, LoadParamOf(1, 16, 3));
  fpga::testing::Append(&stream, StoreOf(3, 256, 4, 2, 512, 64));
  fpga::testing::Append(&stream, StoreOf(3, 256, 4, 2, 512, 64, /*out_int32=*/true));

  const DmaSpan expected[] = {
      {2, false, 64, 64 + 1 * 1024 + 2 * 48 + 2 * 16 - 1},
      {1, false, 128, 128 + 5 * 16 - 1},
      {1, false, 16, 16 + 3 * 16 - 1},
      {3, true, 256, 256 + 3 * 512 + 1 * 64 + 16 - 1},
      {3, true, 256, 256 + 3 * 512 + 1 * 64 + 64 - 1},
  };
  for (size_t i = 0; i < stream.size(); ++i) {
    DmaSpan span;
    ASSERT_TRUE(DmaSpanOf(config, stream[i], &span)) << i;
    EXPECT_EQ(span.slot, expected[i].slot) << i;
    EXPECT_EQ(span.write, expected[i].write) << i;
    EXPECT_EQ(span.first, expected[i].first) << i;
    EXPECT_EQ(span.last, expected[i].last) << i;
  }
  EXPECT_EQ(Needed(config, stream), (Slots{0, 128 + 5 * 16, 64 + 1024 + 96 + 32, 256 + 1536 + 64 + 64}));

  // No DRAM access: compute commands, zero sizes, an unknown opcode.
  std::vector<contract::Command> none;
  fpga::testing::Append(&none, fpga::testing::TinyConv());
  fpga::testing::Append(&none, LoadWgtOf(1, 128, 0));
  act.x_size = 0;
  fpga::testing::Append(&none, act);
  none.push_back(contract::Command{});  // opcode 0
  for (const contract::Command& command : none) {
    DmaSpan span;
    EXPECT_FALSE(DmaSpanOf(config, command, &span));
  }
  EXPECT_EQ(Needed(config, none), Slots{});
  EXPECT_TRUE(Check(config, none, Slots{}).ok());
}

TEST(DmaBoundsTest, CommandLeavingItsSlotIsNamed) {
  const contract::AccelConfig& config = Pynq();
  std::vector<contract::Command> stream;
  fpga::testing::Append(&stream, LoadParamOf(1, 0, 4));  // bytes [0, 63]
  fpga::testing::Append(&stream, fpga::testing::TinyConv());
  stream.push_back(contract::Command{});                             // unknown: the device's business
  fpga::testing::Append(&stream, LoadWgtOf(1, 4096, 8));             // bytes [4096, 4223]
  fpga::testing::Append(&stream, StoreOf(0, 1024, 3, 2, 2048, 16));  // bytes [1024, 5151]

  EXPECT_TRUE(Check(config, stream, {5152, 4224, 0, 0}).ok());
  Status s = Check(config, stream, {5152, 4223, 0, 0});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "command 3 (LOAD_WGT) reads bytes [4096, 4223] of slot 1, which has 4223 bytes");
  s = Check(config, stream, {5151, 4224, 0, 0});
  EXPECT_EQ(s.message(), "command 4 (STORE) writes bytes [1024, 5151] of slot 0, which has 5151 bytes");

  // The row pitch alone pushes the store out.
  fpga::testing::Append(&stream, StoreOf(0, 1024, 3, 2, 4096, 16));
  s = Check(config, stream, {5152, 4224, 0, 0});
  EXPECT_EQ(s.message(), "command 5 (STORE) writes bytes [1024, 9247] of slot 0, which has 5152 bytes");

  // A slot without a buffer takes no access at all.
  stream.insert(stream.begin(), contract::Command{});
  ASSERT_TRUE(contract::Encode(LoadWgtOf(2, 0, 1), &stream[0]));
  s = Check(config, stream, {1 << 20, 1 << 20, 0, 0});
  EXPECT_EQ(s.message(), "command 0 (LOAD_WGT) reads bytes [0, 15] of slot 2, which has no buffer");
}

// Offsets and pitches are 32 and 24 bits, their sums and products are not:
// spans are 64-bit and never wrap into a small, passing one.
TEST(DmaBoundsTest, SpansPast32BitsDoNotWrap) {
  const contract::AccelConfig& config = Pynq();
  std::vector<contract::Command> stream;
  contract::LoadAct act;  // (1025 - 1) · 2^22 = 2^32: wraps to 0 in 32 bits
  act.y_size = 1025;
  act.x_size = 1;
  act.cb = 1;
  act.row_pitch = 1 << 22;
  fpga::testing::Append(&stream, act);
  Status s = Check(config, stream, {1 << 20, 0, 0, 0});
  EXPECT_EQ(s.message(), "command 0 (LOAD_ACT) reads bytes [0, 4294967311] of slot 0, which has 1048576 bytes");
  EXPECT_EQ(Needed(config, stream)[0], (uint64_t{1} << 32) + 16);

  // The last N bytes below 4 GiB fit a 4 GiB slot; 4N bytes there do not.
  stream.clear();
  fpga::testing::Append(&stream, StoreOf(0, 0xFFFFFFF0u, 1, 1, 0, 0));
  EXPECT_TRUE(Check(config, stream, {uint64_t{1} << 32, 0, 0, 0}).ok());
  fpga::testing::Append(&stream, StoreOf(0, 0xFFFFFFF0u, 1, 1, 0, 0, /*out_int32=*/true));
  s = Check(config, stream, {uint64_t{1} << 32, 0, 0, 0});
  EXPECT_EQ(s.message(),
            "command 1 (STORE) writes bytes [4294967280, 4294967343] of slot 0, which has 4294967296 bytes");

  // Every field at its maximum.
  contract::LoadAct max;
  max.dram_offset = 0xFFFFFFF8u;
  max.y_size = max.x_size = 4095;
  max.cb = 255;
  max.row_pitch = 0xFFFFF8;
  max.pixel_pitch = 0xFFF8;
  stream.clear();
  fpga::testing::Append(&stream, max);
  DmaSpan span;
  ASSERT_TRUE(DmaSpanOf(config, stream[0], &span));
  EXPECT_EQ(span.last, 0xFFFFFFF8u + 4094ull * 0xFFFFF8 + 4094ull * 0xFFF8 + 255ull * 16 - 1);
  EXPECT_FALSE(Check(config, stream, {span.last, 0, 0, 0}).ok());
  EXPECT_TRUE(Check(config, stream, {span.last + 1, 0, 0, 0}).ok());
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
