// LowerConv: a worked two-tile example with its exact command sequence,
// randomized Conv and Gemm layers on every configuration run through the
// functional model under several schedules and compared bit for bit with the
// naive reference, and the layers it must refuse.
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "kernels/fpga/lowering/command_stream.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"

namespace loom {
namespace fpga {
namespace lowering {
namespace {

using testing::ConvCase;
using testing::ConvProfile;

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }

// "OPCODE key fields [flags]", for golden sequences and the report.
std::string Summary(const contract::Command& c) {
  std::ostringstream s;
  switch (contract::OpcodeOf(c)) {
    case contract::Opcode::kLoadAct: {
      contract::LoadAct op;
      contract::Decode(c, &op);
      s << "LOAD_ACT row " << op.sram_row << " " << op.y_size << "x" << op.x_size << " pad " << op.pad_top << ","
        << op.pad_bottom << "," << op.pad_left << "," << op.pad_right;
      break;
    }
    case contract::Opcode::kLoadWgt: {
      contract::LoadWgt op;
      contract::Decode(c, &op);
      s << "LOAD_WGT row " << op.sram_row << " rows " << op.rows;
      break;
    }
    case contract::Opcode::kLoadParam: {
      contract::LoadParam op;
      contract::Decode(c, &op);
      s << "LOAD_PARAM " << op.count;
      break;
    }
    case contract::Opcode::kConv: {
      contract::Conv op;
      contract::Decode(c, &op);
      s << "CONV inp " << op.inp_base << " wgt " << op.wgt_base << " acc " << op.acc_base << " cb " << op.cb_begin
        << "+" << op.cb_count << " " << op.oh << "x" << op.ow << (op.accumulate ? " accumulate" : "");
      break;
    }
    case contract::Opcode::kStore: {
      contract::Store op;
      contract::Decode(c, &op);
      s << "STORE acc " << op.acc_base << " " << op.oh << "x" << op.ow << " param " << op.param_row;
      break;
    }
    default:
      s << contract::OpcodeName(contract::OpcodeOf(c));
  }
  const contract::Deps d = contract::DepsOf(c);
  s << (d.pop_prev ? " pop_prev" : "") << (d.pop_next ? " pop_next" : "") << (d.push_prev ? " push_prev" : "")
    << (d.push_next ? " push_next" : "");
  return s.str();
}

ConvCase ExampleCase(const char* name, int c_in, int h, int w, int c_out) {
  ConvCase c;
  c.name = name;
  c.ref.c_in = c_in;
  c.ref.h = h;
  c.ref.w = w;
  c.ref.c_out = c_out;
  c.ref.kh = c.ref.kw = 3;
  c.ref.pad_top = c.ref.pad_bottom = c.ref.pad_left = c.ref.pad_right = 1;
  std::mt19937 rng(5);
  testing::RandomizeValues(&c, &rng);
  return c;
}

// Lowers the case for pynq_z2, checks its stats and prints its commands.
std::vector<std::string> Sequence(const ConvCase& c, uint32_t tiles, uint32_t chunks, bool resident) {
  Program program;
  const Status s = LowerConv(Pynq(), testing::ToLoweringLayer(c), {1, 0}, {2, 0}, {{3, 0}, {3, 1 << 20}}, &program);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(program.stats.tiles, tiles);
  EXPECT_EQ(program.stats.k_chunks, chunks);
  EXPECT_EQ(program.stats.weights_resident, resident);
  EXPECT_TRUE(CheckTokenBalance(program.commands, Pynq().queue_depth).ok());
  std::vector<std::string> lines;
  for (const contract::Command& command : program.commands) lines.push_back(Summary(command));
  return lines;
}

// 3x3 pad 1, 32 -> 32 channels on 24x48 (N = 16): 1152 output pixels exceed
// half the accumulators, so two full-width tiles of 12 rows; the weights
// (2 · 2 · 9 · 16 rows) stay resident.
TEST(ConvLoweringTest, TwoTileExampleCommandSequence) {
  const ConvCase c = ExampleCase("two_tiles", 32, 24, 48, 32);
  const std::vector<std::string> expected = {
      "LOAD_PARAM 32",
      "LOAD_ACT row 0 13x48 pad 1,0,1,1",  // tile 0 (rows 0..11) + 1 halo row, into input half 0
      "LOAD_WGT row 0 rows 288 push_next",  // output block 0's weights, resident
      "CONV inp 0 wgt 0 acc 0 cb 0+2 12x48 pop_prev push_next",
      "LOAD_ACT row 2048 13x48 pad 0,1,1,1",  // tile 1 into input half 1 while tile 0 computes
      "STORE acc 0 12x48 param 0 pop_prev push_prev",
      "LOAD_WGT row 288 rows 288 push_next",  // output block 1's weights
      "CONV inp 0 wgt 288 acc 1024 cb 0+2 12x48 pop_prev push_next",
      "STORE acc 1024 12x48 param 16 pop_prev push_prev",
      "CONV inp 2048 wgt 0 acc 0 cb 0+2 12x48 pop_next push_next",  // tile 1: waits for the store of acc 0
      "STORE acc 0 12x48 param 0 pop_prev",
      "CONV inp 2048 wgt 288 acc 1024 cb 0+2 12x48 pop_next push_next",
      "STORE acc 1024 12x48 param 16 pop_prev",
  };
  EXPECT_EQ(Sequence(c, 2, 1, true), expected);
  EXPECT_TRUE(testing::RunConvCase(Pynq(), c, {0, 1, 2, 3}));
}

// 3x3 pad 1, 256 -> 32 channels on 10x10: one tile, but 2 output blocks ×
// 16 input blocks · 9 taps · 16 rows exceed the weight buffer, so two K
// chunks of 8 blocks per output block, double-buffered in the weight halves.
TEST(ConvLoweringTest, KChunkExampleCommandSequence) {
  const ConvCase c = ExampleCase("k_chunks", 256, 10, 10, 32);
  const std::vector<std::string> expected = {
      "LOAD_PARAM 32",
      "LOAD_ACT row 0 10x10 pad 1,1,1,1",
      "LOAD_WGT row 0 rows 1152 push_next",  // block 0, chunk 0 into weight half 0
      "CONV inp 0 wgt 0 acc 0 cb 0+8 10x10 pop_prev push_prev",
      "LOAD_WGT row 2048 rows 1152 push_next",  // chunk 1 into weight half 1
      "CONV inp 0 wgt 2048 acc 0 cb 8+8 10x10 accumulate pop_prev push_prev push_next",
      "STORE acc 0 10x10 param 0 pop_prev",
      "LOAD_WGT row 0 rows 1152 pop_next push_next",  // half 0 is free once chunk 0's CONV ran
      "CONV inp 0 wgt 0 acc 1024 cb 0+8 10x10 pop_prev",
      "LOAD_WGT row 2048 rows 1152 pop_next push_next",
      "CONV inp 0 wgt 2048 acc 1024 cb 8+8 10x10 accumulate pop_prev push_next",
      "STORE acc 1024 10x10 param 16 pop_prev",
  };
  EXPECT_EQ(Sequence(c, 1, 2, false), expected);
  EXPECT_TRUE(testing::RunConvCase(Pynq(), c, {0, 1, 2, 3}));
}

// Randomized layers of one profile on every configuration; prints the count.
void RunRandomConvs(ConvProfile profile, const char* what, int per_config_pynq, int per_config_other,
                     uint32_t seed) {
  const auto start = std::chrono::steady_clock::now();
  std::mt19937 rng(seed);
  int layers = 0, runs = 0, tiled = 0, chunked = 0, streamed = 0;
  for (const contract::AccelConfig* config : testing::TestConfigs()) {
    const bool pynq = std::string(config->name) == Pynq().name;  // kConfigs has one copy per file
    const int count = testing::SweepCount(pynq ? per_config_pynq : per_config_other);
    for (int i = 0; i < count; ++i) {
      const ConvCase c = testing::RandomConvCase(*config, profile, &rng);
      const std::vector<uint64_t> seeds = {0, rng() | 1, rng() | 1};
      ProgramStats stats;
      ASSERT_TRUE(testing::RunConvCase(*config, c, seeds, &stats)) << "case " << i;
      ++layers;
      runs += static_cast<int>(seeds.size());
      tiled += stats.tiles > 1;
      chunked += stats.k_chunks > 1;
      streamed += !stats.weights_resident;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ lowering ] %d %s bit-exact (%d model runs, 3 configurations; %d with several tiles, %d with several K "
      "chunks, %d with streamed weights) in %.1f s\n",
      layers, what, runs, tiled, chunked, streamed, seconds);
}

TEST(ConvLoweringRandomTest, SmallLayers) { RunRandomConvs(ConvProfile::kSmall, "small Conv layers", 800, 500, 1); }
TEST(ConvLoweringRandomTest, MediumLayers) {
  RunRandomConvs(ConvProfile::kMedium, "medium Conv layers (several tiles)", 100, 60, 4);
}
TEST(ConvLoweringRandomTest, WideLayers) {
  RunRandomConvs(ConvProfile::kWide, "wide Conv layers (C up to 512)", 40, 25, 2);
}
TEST(ConvLoweringRandomTest, GemmLayers) { RunRandomConvs(ConvProfile::kGemm, "Gemm layers", 150, 100, 3); }

// The field limits: 15x15 kernels (whose weights for one channel block
// exceed half the weight buffer, so CONVs cover runs of kernel rows), stride
// and dilation 7, padding up to the extent, on pynq_z2 and kv260.
TEST(ConvLoweringTest, ExtremeWindows) {
  struct Shape {
    int c_in, h, w, c_out, k, stride, dilation, pad;
  };
  const Shape shapes[] = {
      {20, 20, 20, 20, 15, 1, 1, 7},  // 15x15: 3600 weight rows per block (N = 16)
      {40, 18, 17, 24, 15, 2, 1, 14}, // pads near 15
      {12, 30, 30, 10, 3, 7, 7, 14},  // stride 7, dilation 7: extent 15
      {8, 40, 9, 8, 1, 7, 1, 0},      // 1-tap, stride 7: subsampled load
  };
  std::mt19937 rng(15);
  for (const contract::AccelConfig* config : {&Pynq(), contract::FindConfig("kv260")}) {
    for (const Shape& s : shapes) {
      ConvCase c;
      c.name = std::string(config->name) + " k" + std::to_string(s.k) + " s" + std::to_string(s.stride) + " d" +
               std::to_string(s.dilation);
      c.ref.c_in = s.c_in;
      c.ref.h = s.h;
      c.ref.w = s.w;
      c.ref.c_out = s.c_out;
      c.ref.kh = c.ref.kw = s.k;
      c.ref.stride_y = c.ref.stride_x = s.stride;
      c.ref.dilation_y = c.ref.dilation_x = s.dilation;
      c.ref.pad_top = c.ref.pad_left = s.pad;
      c.ref.pad_bottom = c.ref.pad_right = s.pad / 2;
      testing::RandomizeValues(&c, &rng);
      EXPECT_TRUE(testing::RunConvCase(*config, c, {0, 1, 2}));
    }
  }
}

TEST(ConvLoweringTest, GemmLayerHelperShapesAConv) {
  ConvLayer gemm = GemmLayer(7, 100, 30, "fc");
  EXPECT_EQ(gemm.in_h, 1u);
  EXPECT_EQ(gemm.in_w, 7u);
  EXPECT_EQ(gemm.in_c, 100u);
  EXPECT_EQ(gemm.out_c, 30u);
  EXPECT_EQ(gemm.OutH(), 1u);
  EXPECT_EQ(gemm.OutW(), 7u);
  EXPECT_EQ(gemm.weights.size(), 3000u);
  EXPECT_EQ(gemm.Macs(), 7u * 100 * 30);
  for (size_t i = 0; i < gemm.multipliers.size(); ++i) gemm.multipliers[i] = {1 << 30, -3};
  Program program;
  EXPECT_TRUE(LowerConv(Pynq(), gemm, {0, 0}, {0, 4096}, {{0, 8192}, {0, 65536}}, &program).ok());
  EXPECT_EQ(program.stats.array_macs, 7u * 112 * 32);
}

// The layers the accelerator cannot run get a message naming the layer and the limit.
TEST(ConvLoweringTest, RefusesWhatTheAcceleratorCannotRun) {
  auto lower = [](ConvLayer layer) {
    layer.weights.assign(size_t{layer.out_c} * layer.in_c * layer.window.kh * layer.window.kw, 1);
    layer.bias.assign(layer.out_c, 0);
    layer.multipliers.assign(layer.out_c, {1 << 30, 0});
    Program program;
    return LowerConv(Pynq(), layer, {0, 0}, {1, 0}, {{2, 0}, {3, 0}}, &program);
  };
  ConvLayer base;
  base.name = "conv7";
  base.in_h = base.in_w = 20;
  base.in_c = base.out_c = 16;

  ConvLayer layer = base;
  layer.window.kh = 17;
  Status s = lower(layer);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("conv7 (Conv): kernel 17x1, the accelerator supports at most 15x15"), std::string::npos)
      << s.message();

  layer = base;
  layer.window.stride_x = 8;
  s = lower(layer);
  EXPECT_NE(s.message().find("stride 1x8"), std::string::npos) << s.message();

  layer = base;
  layer.window.kh = layer.window.kw = 3;
  layer.window.pad_top = 3;
  s = lower(layer);
  EXPECT_NE(s.message().find("pad_top 3"), std::string::npos) << s.message();

  layer = base;  // 3x3 over 250 channel blocks: 2250 rows for one output pixel
  layer.window.kh = layer.window.kw = 3;
  layer.in_c = 4000;
  layer.in_h = 3;
  layer.in_w = 20;
  s = lower(layer);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("even a single output pixel needs 2250 input buffer rows"), std::string::npos)
      << s.message();

  layer = base;
  layer.in_c = 4096;  // 256 channel blocks: more than the 8-bit cb fields
  s = lower(layer);
  EXPECT_NE(s.message().find("256 channel blocks"), std::string::npos) << s.message();

  layer = base;
  layer.window.kh = layer.window.kw = 3;
  layer.in_h = 1;  // 3x3 without padding over a 1-row image
  s = lower(layer);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);

  layer = base;
  layer.output_range = {10, 5};
  s = lower(layer);
  EXPECT_NE(s.message().find("qmax 5 outside [10, 255]"), std::string::npos) << s.message();

  Program program;
  s = LowerConv(Pynq(), base, {0, 0}, {1, 0}, {{2, 0}, {3, 0}}, &program);  // no weights
  EXPECT_NE(s.message().find("0 weights"), std::string::npos) << s.message();

  layer = base;
  layer.weights.assign(16 * 16, 1);
  layer.bias.assign(16, 0);
  layer.multipliers.assign(16, {1 << 30, 0});
  s = LowerConv(Pynq(), layer, {0, 4}, {1, 0}, {{2, 0}, {3, 0}}, &program);
  EXPECT_NE(s.message().find("input at slot 0 offset 4"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
