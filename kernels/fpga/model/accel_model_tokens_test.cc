// Queues and dependency tokens: a double-buffered stream gives the same
// memory for every schedule, the same stream without its buffer-reuse tokens
// does not, and streams that cannot finish end in DEADLOCK naming the right
// command instead of hanging.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace {

using contract::Command;
using contract::ErrorCode;
using testing::Append;
using testing::Blocks;
using testing::ConvLayer;
using testing::ModelHarness;
using testing::PynqZ2;

constexpr int kTileRows = 4;  // output rows per tile

ConvLayer TiledLayer() {
  ConvLayer l;
  l.c_in = PynqZ2().n + 4;
  l.c_out = PynqZ2().n - 3;
  l.h = 16;
  l.w = 8;
  l.kh = l.kw = 3;
  l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = 1;
  l.x_zero_point = -5;
  std::mt19937 rng(5);
  testing::Randomize(&l, &rng);
  return l;
}

// A 3x3 conv in tiles of kTileRows output rows, VTA-style: tile t's input goes
// to input half t % 2 and its accumulators to half t % 2, so the load of
// tile t + 1 overlaps the compute of tile t and the store of tile t − 1.
// Tokens: load -> compute "tile loaded", compute -> store "tile computed";
// with reuse_tokens also compute -> load "input half free" and store ->
// compute "accumulator half free", without which a fast unit overwrites a
// half still in use.
std::vector<Command> DoubleBufferedStream(ModelHarness* m, const ConvLayer& l, bool reuse_tokens, uint32_t* out) {
  const uint32_t n = m->n(), in_blocks = Blocks(l.c_in, n), tiles = l.h / kTileRows;
  const uint32_t pixel_pitch = in_blocks * n, row_pitch = l.w * pixel_pitch;
  const uint32_t x = m->Put(testing::ToNhwc(l.x, l.c_in, l.h, l.w, n));
  const uint32_t weights = m->Put(testing::TileWeights(l, n));
  const uint32_t params = m->Put(testing::ParamRecords(l, n));
  *out = m->Reserve(size_t(l.h) * l.w * n);

  std::vector<Command> s;
  contract::LoadParam p;
  p.dram_offset = params;
  p.count = n;
  Append(&s, p);
  contract::LoadWgt w;
  w.dram_offset = weights;
  w.rows = in_blocks * 9 * n;
  Append(&s, w);
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t half = t % 2;
    const bool first = t == 0, last = t + 1 == tiles;
    const int y0 = std::max<int>(0, t * kTileRows - 1), y1 = std::min<int>(l.h, (t + 1) * kTileRows + 1);
    contract::LoadAct a;
    a.dram_offset = x + y0 * row_pitch;
    a.sram_row = half * 2048;
    a.y_size = y1 - y0;
    a.x_size = l.w;
    a.cb = in_blocks;
    a.pixel_pitch = pixel_pitch;
    a.row_pitch = row_pitch;
    a.pad_top = first;
    a.pad_bottom = last;
    a.pad_left = a.pad_right = 1;
    a.pad_value = static_cast<uint8_t>(l.x_zero_point);
    a.deps.pop_next = reuse_tokens && t >= 2;
    a.deps.push_next = true;
    Append(&s, a);

    contract::Conv c;
    c.inp_base = half * 2048;
    c.in_w = l.w + 2;
    c.in_cb = c.cb_count = in_blocks;
    c.kh = c.kw = 3;
    c.stride_y = c.stride_x = c.dilation_y = c.dilation_x = 1;
    c.oh = kTileRows;
    c.ow = l.w;
    c.acc_base = half * 1024;
    c.deps.pop_prev = true;
    c.deps.push_prev = reuse_tokens && t + 2 < tiles;
    c.deps.pop_next = reuse_tokens && t >= 2;
    c.deps.push_next = true;
    Append(&s, c);

    contract::Store st;
    st.acc_base = half * 1024;
    st.oh = kTileRows;
    st.ow = l.w;
    st.dram_offset = *out + t * kTileRows * l.w * n;
    st.pixel_pitch = n;
    st.row_pitch = l.w * n;
    st.zero_point = l.stages[0].zero_point;
    st.qmin = l.stages[0].range.min;
    st.qmax = l.stages[0].range.max;
    st.deps.pop_prev = true;
    st.deps.push_prev = reuse_tokens && t + 2 < tiles;
    Append(&s, st);
  }
  return s;
}

struct TiledRun {
  RunResult result;
  std::vector<int32_t> output;  // NCHW
  std::vector<uint8_t> memory;  // the whole device memory afterwards
};

TiledRun RunTiled(const ConvLayer& l, bool reuse_tokens, uint64_t seed) {
  ModelHarness m(PynqZ2(), size_t{1} << 20);
  uint32_t out = 0;
  const std::vector<Command> s = DoubleBufferedStream(&m, l, reuse_tokens, &out);
  TiledRun run;
  run.result = m.Run(s, seed);
  run.output =
      testing::FromNhwc(m.Get(out, size_t(l.h) * l.w * m.n()), l.c_out, l.h, l.w, m.n(), testing::Element::kInt8);
  run.memory.assign(m.memory().data(), m.memory().data() + m.memory().size());
  return run;
}

TEST(TokenTest, DoubleBufferedStreamGivesTheSameMemoryForEverySchedule) {
  const ConvLayer l = TiledLayer();
  const std::vector<int32_t> expected = testing::ReferenceConv(l);
  const TiledRun first = RunTiled(l, true, 0);
  ASSERT_TRUE(first.result.ok()) << first.result.error_detail;
  EXPECT_EQ(first.output, expected);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const TiledRun run = RunTiled(l, true, seed);
    ASSERT_TRUE(run.result.ok()) << "seed " << seed << ": " << run.result.error_detail;
    EXPECT_TRUE(run.memory == first.memory) << "seed " << seed;
  }
}

TEST(TokenTest, WithoutBufferReuseTokensSomeScheduleCorruptsTheOutput) {
  // Shows the seeds explore real interleavings: the race is found.
  const ConvLayer l = TiledLayer();
  const std::vector<int32_t> expected = testing::ReferenceConv(l);
  int corrupted = 0;
  for (uint64_t seed = 0; seed <= 20; ++seed) {
    const TiledRun run = RunTiled(l, false, seed);
    ASSERT_TRUE(run.result.ok()) << run.result.error_detail;
    corrupted += run.output != expected;
  }
  EXPECT_GT(corrupted, 0);
}

TEST(TokenTest, PopWithoutAPushDeadlocksAtThatCommand) {
  for (uint64_t seed : {0, 1, 2, 3}) {
    ModelHarness m(PynqZ2());
    const uint32_t data = m.Reserve(1024);
    std::vector<Command> s;
    Append(&s, testing::TinyLoad(data));  // pushes nothing
    Append(&s, testing::TinyLoad(data));
    contract::Conv c = testing::TinyConv();
    c.deps.pop_prev = true;
    Append(&s, c);
    const RunResult result = m.Run(s, seed);
    EXPECT_EQ(result.error, ErrorCode::kDeadlock);
    EXPECT_EQ(result.error_cmd, 2u);
    EXPECT_NE(result.error_detail.find("command 2 (CONV): deadlock"), std::string::npos) << result.error_detail;
    EXPECT_NE(result.error_detail.find("waits for a load->compute token"), std::string::npos) << result.error_detail;
    EXPECT_EQ(result.commands[static_cast<int>(contract::Queue::kLoad)], 2u);
  }
}

// `loads` loads that each wait for a compute->load token, then `loads`
// computes that each give one.
std::vector<Command> LoadsBeforeTheirTokens(ModelHarness* m, uint32_t loads) {
  const uint32_t data = m->Reserve(1024);
  std::vector<Command> s;
  for (uint32_t i = 0; i < loads; ++i) {
    contract::LoadWgt load = testing::TinyLoad(data);
    load.deps.pop_next = true;
    Append(&s, load);
  }
  for (uint32_t i = 0; i < loads; ++i) {
    contract::Conv c = testing::TinyConv();
    c.deps.push_prev = true;
    Append(&s, c);
  }
  return s;
}

TEST(TokenTest, AFullQueueThatNeedsALaterCommandDeadlocks) {
  const uint32_t depth = PynqZ2().queue_depth;
  {
    ModelHarness m(PynqZ2());
    const RunResult result = m.Run(LoadsBeforeTheirTokens(&m, depth));  // the loads fit in the queue
    ASSERT_TRUE(result.ok()) << result.error_detail;
    EXPECT_EQ(result.commands[static_cast<int>(contract::Queue::kLoad)], depth);
  }
  for (uint64_t seed : {0, 1, 2}) {
    ModelHarness m(PynqZ2());
    const RunResult result = m.Run(LoadsBeforeTheirTokens(&m, depth + 1), seed);  // fetch stalls on load depth+1
    EXPECT_EQ(result.error, ErrorCode::kDeadlock);
    EXPECT_EQ(result.error_cmd, 0u);
    EXPECT_NE(
        result.error_detail.find("fetch: command " + std::to_string(depth) + " waits for room in the full load queue"),
        std::string::npos)
        << result.error_detail;
  }
}

TEST(TokenTest, AFullTokenFifoBlocksThePusher) {
  const uint32_t depth = PynqZ2().queue_depth;
  // depth + 1 computes push compute->load tokens that nobody takes: the last one cannot.
  ModelHarness m(PynqZ2());
  std::vector<Command> s;
  for (uint32_t i = 0; i <= depth; ++i) {
    contract::Conv c = testing::TinyConv();
    c.deps.push_prev = true;
    Append(&s, c);
  }
  RunResult result = m.Run(s);
  EXPECT_EQ(result.error, ErrorCode::kDeadlock);
  EXPECT_EQ(result.error_cmd, depth);
  EXPECT_NE(result.error_detail.find("waits for room in the full compute->load token FIFO"), std::string::npos)
      << result.error_detail;

  // With loads after them that take the tokens, the blocked compute resumes.
  const uint32_t data = m.Reserve(1024);
  for (uint32_t i = 0; i <= depth; ++i) {
    contract::LoadWgt load = testing::TinyLoad(data);
    load.deps.pop_next = true;
    Append(&s, load);
  }
  for (uint64_t seed : {0, 1, 2}) {
    result = m.Run(s, seed);
    ASSERT_TRUE(result.ok()) << result.error_detail;
    EXPECT_EQ(result.commands[static_cast<int>(contract::Queue::kCompute)], depth + 1);
  }
}

}  // namespace
}  // namespace fpga
}  // namespace loom
