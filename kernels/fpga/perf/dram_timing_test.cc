// ReadChannel / WriteChannel against the DMA rules worked out by hand: the
// latency of one burst, the full rate of long transfers, the window of
// outstanding bursts and requests, 4 KB splitting, and producer-limited writes.
#include "kernels/fpga/perf/dram_timing.h"

#include <gtest/gtest.h>

#include <vector>

namespace loom {
namespace fpga {
namespace perf {
namespace {

const BusShape kBus64{8, 16, 4096};

TEST(DramTimingTest, BurstsSplitAtSixteenBeatsAndFourKilobytes) {
  std::vector<uint64_t> beats;
  ForEachBurst(kBus64, 4096 - 24, 64 + 8 * 16, [&](uint64_t b) { beats.push_back(b); });
  EXPECT_EQ(beats, (std::vector<uint64_t>{3, 16, 5}));
  beats.clear();
  ForEachBurst(kBus64, 0, 8, [&](uint64_t b) { beats.push_back(b); });
  EXPECT_EQ(beats, (std::vector<uint64_t>{1}));
}

TEST(DramTimingTest, OneBurstCostsLatencyPlusBeats) {
  ReadChannel read(DramTiming{}, kBus64);
  uint64_t first = 0;
  const uint64_t last = read.Read(100, 0, 128, &first);
  EXPECT_EQ(last - first, 15u);       // 16 beats, one per cycle
  EXPECT_GE(first, 100u + 40u);       // at least the read latency
  EXPECT_LE(first, 100u + 40u + 4u);  // plus a few pipeline registers
  EXPECT_EQ(read.bytes(), 128u);
}

TEST(DramTimingTest, LongReadsRunAtOneBeatPerCycle) {
  // Four 16-beat bursts in flight cover 40 cycles of latency.
  ReadChannel read(DramTiming{}, kBus64);
  uint64_t first = 0;
  const uint64_t bytes = 64 * 1024;
  const uint64_t last = read.Read(0, 0, bytes, &first);
  EXPECT_EQ(last - first + 1, bytes / 8);
}

TEST(DramTimingTest, OneOutstandingBurstPaysTheLatencyEachTime) {
  DramTiming timing;
  timing.max_outstanding = 1;
  ReadChannel read(timing, kBus64);
  uint64_t first = 0;
  const uint64_t last = read.Read(0, 0, 10 * 128, &first);
  // Each burst's address waits for the previous burst's last beat.
  EXPECT_GE(last - first, 9u * (40 + 16));
  EXPECT_LE(last - first, 9u * (40 + 16 + 2) + 16);
}

TEST(DramTimingTest, SmallRequestsAreBoundByTheOrderFifo) {
  // 64-byte requests, 4 in flight at most: 4 · 8 beats per latency period.
  ReadChannel read(DramTiming{}, kBus64, 4);
  uint64_t last = 0;
  for (int i = 0; i < 400; ++i) last = read.Read(0, i * 64, 64);
  const double beats_per_cycle = 400.0 * 8 / last;
  EXPECT_GT(beats_per_cycle, 0.55);
  EXPECT_LT(beats_per_cycle, 32.0 / 40);
}

TEST(DramTimingTest, WritesFollowTheProducerThenTheResponse) {
  WriteChannel write(DramTiming{}, kBus64);
  // 32 beats, one every 2 cycles from cycle 50: the last beat at 50 + 62, B
  // 10 cycles later, seen one cycle after that.
  const uint64_t done = write.Write(10, 0, 256, 50, 2.0);
  EXPECT_EQ(done, 50u + 62u + 10u + 1u);
  EXPECT_EQ(write.bytes(), 256u);
}

TEST(DramTimingTest, WritesAreBoundByTheBus) {
  WriteChannel write(DramTiming{}, kBus64);
  // A producer faster than the bus: one beat per cycle.
  const uint64_t done = write.Write(0, 0, 8 * 64, 0, 0.25);
  EXPECT_GE(done, 64u + 10u);
  EXPECT_LE(done, 64u + 10u + 4u);
}

}  // namespace
}  // namespace perf
}  // namespace fpga
}  // namespace loom
