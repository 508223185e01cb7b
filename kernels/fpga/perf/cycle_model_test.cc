// The cycle model on streams built by hand (closed forms, tokens, fetch, the
// errors) and on lowered layers (utilization bounds). Its error against the
// RTL is measured in hw/sim/tests/rtl_device_test.cc.
#include "kernels/fpga/perf/cycle_model.h"

#include <gtest/gtest.h>

#include "kernels/fpga/lowering/lowering.h"

namespace loom {
namespace fpga {
namespace perf {
namespace {

namespace c = contract;

const c::AccelConfig& Pynq() { return *c::FindConfig("pynq_z2"); }

template <typename Op>
c::Command Encoded(const Op& op) {
  c::Command command{};
  EXPECT_TRUE(c::Encode(op, &command));
  return command;
}

c::Conv ConvOf(uint32_t oh, uint32_t ow, uint32_t cb_count, uint32_t k) {
  c::Conv op;
  op.in_w = ow + k - 1;
  op.in_cb = cb_count;
  op.cb_count = cb_count;
  op.kh = op.kw = k;
  op.stride_y = op.stride_x = op.dilation_y = op.dilation_x = 1;
  op.oh = oh;
  op.ow = ow;
  return op;
}

CycleEstimate Estimate(const std::vector<c::Command>& stream, CycleModelOptions options = {}) {
  CycleEstimate estimate;
  const Status status = EstimateCycles(Pynq(), stream, options, &estimate);
  EXPECT_TRUE(status.ok()) << status.message();
  return estimate;
}

TEST(CycleModelTest, ConvTakesItsTilePeriodsPlusFillAndDrain) {
  // 3x3 over 2 channel blocks, 10 x 20 pixels: 18 tiles of 200 cycles.
  const CycleEstimate e = Estimate({Encoded(ConvOf(10, 20, 2, 3))});
  const uint64_t n = Pynq().n;
  EXPECT_EQ(e.busy[1], 1 /* head to unit */ + 1 + n + 18 * 200 + 35);
  EXPECT_EQ(e.array_macs, n * n * 200 * 18);
  EXPECT_GT(e.cycles, e.busy[1]);
  // Tiles smaller than N pixels still take N cycles each but the last.
  const CycleEstimate small = Estimate({Encoded(ConvOf(2, 3, 1, 3))});
  EXPECT_EQ(small.busy[1], 1 + 1 + n + 8 * n + 6 + 35);
}

TEST(CycleModelTest, TokensOrderTheUnits) {
  c::LoadWgt load;
  load.rows = 9 * 16;
  load.deps.push_next = true;
  c::Conv conv = ConvOf(8, 8, 1, 3);
  conv.deps.pop_prev = true;
  CycleModelOptions options;
  options.record_commands = true;
  const CycleEstimate e = Estimate({Encoded(load), Encoded(conv)}, options);
  ASSERT_EQ(e.commands.size(), 2u);
  EXPECT_EQ(e.commands[0].opcode, c::Opcode::kLoadWgt);
  EXPECT_GT(e.commands[1].start, e.commands[0].done);  // CONV waited for the weights
  // Without the token the CONV starts as soon as it is dispatched.
  conv.deps.pop_prev = false;
  load.deps.push_next = false;
  const CycleEstimate free = Estimate({Encoded(load), Encoded(conv)}, options);
  EXPECT_LT(free.commands[1].start, free.commands[0].done);
  EXPECT_LT(free.cycles, e.cycles);
}

TEST(CycleModelTest, DmaBoundStreamsFollowTheMemory) {
  c::LoadWgt load;
  load.rows = 4096;  // 64 KB
  const CycleEstimate fast = Estimate({Encoded(load)});
  EXPECT_GE(fast.busy[0], 64u * 1024 / 8);
  EXPECT_LE(fast.busy[0], 64u * 1024 / 8 + 60);
  EXPECT_EQ(fast.dma_read_bytes, 64u * 1024 + c::kCommandBytes);
  CycleModelOptions slow;
  slow.dram.max_outstanding = 1;
  EXPECT_GT(Estimate({Encoded(load)}, slow).busy[0], 3 * fast.busy[0]);
}

TEST(CycleModelTest, FetchKeepsLongStreamsGoing) {
  // More commands than a queue holds: fetch waits for room, every command runs.
  std::vector<c::Command> stream;
  for (int i = 0; i < 100; ++i) stream.push_back(Encoded(ConvOf(4, 4, 1, 1)));
  CycleModelOptions options;
  options.record_commands = true;
  const CycleEstimate e = Estimate(stream, options);
  ASSERT_EQ(e.commands.size(), 100u);
  for (size_t i = 1; i < e.commands.size(); ++i) EXPECT_GT(e.commands[i].start, e.commands[i - 1].done);
  EXPECT_GE(e.cycles, 100u * (1 + 16 + 16 + 35));
}

TEST(CycleModelTest, BadStreamsAreErrorsNamingTheCommand) {
  CycleEstimate e;
  c::Conv conv = ConvOf(2, 2, 1, 1);
  conv.deps.pop_prev = true;  // no load ever pushes
  Status s = EstimateCycles(Pynq(), {Encoded(ConvOf(2, 2, 1, 1)), Encoded(conv)}, {}, &e);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("command 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("deadlock"), std::string::npos) << s.message();

  c::Command bad{};
  c::SetBits(bad, c::kOpcodeField.lsb, c::kOpcodeField.width, 15);
  s = EstimateCycles(Pynq(), {Encoded(ConvOf(2, 2, 1, 1)), bad}, {}, &e);
  EXPECT_NE(s.message().find("command 1: unknown opcode 15"), std::string::npos) << s.message();

  c::LoadWgt load;
  load.rows = 16;
  load.deps.pop_prev = true;  // the load unit has no previous neighbour
  s = EstimateCycles(Pynq(), {Encoded(load)}, {}, &e);
  EXPECT_NE(s.message().find("command 0: token flag"), std::string::npos) << s.message();
}

TEST(CycleModelTest, LoweredConvKeepsTheArrayBusy) {
  // A 64-channel 3x3 layer at 28 x 28: loads and stores hide behind CONVs.
  const c::AccelConfig& config = Pynq();
  lowering::ConvLayer layer;
  layer.in_h = layer.in_w = 28;
  layer.in_c = layer.out_c = 64;
  layer.window.kh = layer.window.kw = 3;
  layer.window.pad_top = layer.window.pad_bottom = layer.window.pad_left = layer.window.pad_right = 1;
  layer.weights.assign(64 * 64 * 9, 1);
  layer.bias.assign(64, 0);
  layer.multipliers.assign(64, {1 << 30, -3});
  lowering::Program program;
  const lowering::ActivationLayout in = lowering::ActivationLayoutOf(config, 28, 28, 64);
  const Status s =
      lowering::LowerConv(config, layer, {1, 0}, {2, 0}, {{3, 0}, {3, static_cast<uint32_t>(in.bytes * 64)}}, &program);
  ASSERT_TRUE(s.ok()) << s.message();
  const CycleEstimate e = Estimate(program.commands);
  EXPECT_EQ(e.array_macs, program.stats.array_macs);
  EXPECT_GT(e.ArrayUtilization(config.n), 0.85);
  EXPECT_LT(e.ArrayUtilization(config.n), 1.0);
  EXPECT_EQ(e.dma_read_bytes, program.stats.dma_read_bytes + program.commands.size() * c::kCommandBytes);
  EXPECT_EQ(e.dma_write_bytes, program.stats.dma_write_bytes);
}

}  // namespace
}  // namespace perf
}  // namespace fpga
}  // namespace loom
