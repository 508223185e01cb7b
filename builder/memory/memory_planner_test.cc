#include "builder/memory/memory_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace loom {
namespace memory {
namespace {

TEST(MemoryPlannerTest, GreedyReusesMemoryOfDeadBuffers) {
  GreedyMemoryPlanner p;
  ASSERT_TRUE(p.AddBuffer(1000, 0, 1).ok());
  ASSERT_TRUE(p.AddBuffer(1000, 1, 2).ok());
  ASSERT_TRUE(p.AddBuffer(1000, 2, 3).ok());  // can take buffer 0's place
  ASSERT_TRUE(p.Plan().ok());
  EXPECT_EQ(p.GetOffset(0) % 64, 0u);
  EXPECT_NE(p.GetOffset(0), p.GetOffset(1));
  EXPECT_NE(p.GetOffset(1), p.GetOffset(2));
  EXPECT_EQ(p.GetMaxMemory(), 2 * 1024u);   // 1000 rounds up to 1024
  EXPECT_EQ(p.GetLowerBound(), 2 * 1024u);  // two live at steps 1 and 2
}

TEST(MemoryPlannerTest, SmallBuffersReuseADeadBigOne) {
  GreedyMemoryPlanner p;
  ASSERT_TRUE(p.AddBuffer(4096, 0, 0).ok());  // 0: placed first at 0, dies early
  ASSERT_TRUE(p.AddBuffer(256, 1, 5).ok());
  ASSERT_TRUE(p.AddBuffer(64, 2, 2).ok());
  ASSERT_TRUE(p.Plan().ok());
  const std::vector<size_t> sizes = {4096, 256, 64};
  EXPECT_TRUE(IsValidPlan(p, sizes, {{0, 0}, {1, 5}, {2, 2}}));
  EXPECT_EQ(p.GetMaxMemory(), 4096u);
  EXPECT_EQ(p.GetLowerBound(), 4096u);
}

TEST(MemoryPlannerTest, TriesSeveralOrdersAndKeepsTheBest) {
  // Largest-first placement alone needs 576 bytes here; longest-lived first reaches the bound.
  GreedyMemoryPlanner p;
  const std::vector<size_t> sizes = {64, 192, 256, 128, 128};
  const std::vector<std::pair<int, int>> lifetimes = {{0, 3}, {3, 4}, {0, 1}, {3, 4}, {1, 5}};
  for (size_t i = 0; i < sizes.size(); ++i)
    ASSERT_TRUE(p.AddBuffer(sizes[i], lifetimes[i].first, lifetimes[i].second).ok());
  ASSERT_TRUE(p.Plan().ok());
  EXPECT_TRUE(IsValidPlan(p, sizes, lifetimes));
  EXPECT_EQ(p.GetLowerBound(), 512u);
  EXPECT_EQ(p.GetMaxMemory(), 512u);
}

TEST(MemoryPlannerTest, RefinementPlacesADenseBlockAtTheBound) {
  // The buffers of a DenseBlock of arena_plan_test.cc (4 layers of 8
  // channels, in KiB): the staircase of layer outputs kept until the block's
  // Concat (the stem's and each conv2's output) and the larger copies and
  // conversions between them.
  // Every classic order puts the staircase on top of the copies.
  const std::vector<std::pair<size_t, std::pair<int, int>>> kib_lifetime = {
      {4, {0, 16}},  {4, {1, 2}},    {8, {2, 3}},    {2, {3, 16}},   {6, {4, 5}},    {6, {5, 6}},    {8, {6, 7}},
      {2, {7, 16}},  {8, {8, 9}},    {8, {9, 10}},   {8, {10, 11}},  {2, {11, 16}},  {10, {12, 13}}, {10, {13, 14}},
      {8, {14, 15}}, {12, {15, 17}}, {12, {17, 18}}, {12, {18, 19}}, {12, {19, 20}}, {6, {20, 20}},  {1, {0, 0}}};
  std::vector<size_t> sizes;
  std::vector<std::pair<int, int>> lifetimes;
  GreedyMemoryPlanner classic(/*max_refine_rounds=*/0), refined;
  for (const auto& [kib, lifetime] : kib_lifetime) {
    sizes.push_back(kib * 1024);
    lifetimes.push_back(lifetime);
    ASSERT_TRUE(classic.AddBuffer(kib * 1024, lifetime.first, lifetime.second).ok());
    ASSERT_TRUE(refined.AddBuffer(kib * 1024, lifetime.first, lifetime.second).ok());
  }
  ASSERT_TRUE(classic.Plan().ok());
  ASSERT_TRUE(refined.Plan().ok());
  EXPECT_TRUE(IsValidPlan(classic, sizes, lifetimes));
  EXPECT_TRUE(IsValidPlan(refined, sizes, lifetimes));
  EXPECT_EQ(refined.GetLowerBound(), 30u * 1024);
  EXPECT_EQ(classic.GetMaxMemory(), 38u * 1024);
  EXPECT_EQ(refined.GetMaxMemory(), 30u * 1024);
}

TEST(MemoryPlannerTest, RejectsBadLifetimes) {
  LinearMemoryPlanner p;
  EXPECT_FALSE(p.AddBuffer(10, 3, 2).ok());
  EXPECT_FALSE(p.AddBuffer(10, -1, 2).ok());
}

TEST(MemoryPlannerTest, RandomLivenessNeverOverlapsAndGreedyBeatsLinear) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    GreedyMemoryPlanner greedy, classic(/*max_refine_rounds=*/0);
    LinearMemoryPlanner linear;
    std::vector<size_t> sizes;
    std::vector<std::pair<int, int>> lifetimes;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const size_t size = rng() % 5 == 0 ? 0 : 1 + rng() % 5000;
      const int first = static_cast<int>(rng() % 30);
      const int last = first + static_cast<int>(rng() % 10);
      sizes.push_back(size);
      lifetimes.push_back({first, last});
      ASSERT_TRUE(greedy.AddBuffer(size, first, last).ok());
      ASSERT_TRUE(classic.AddBuffer(size, first, last).ok());
      ASSERT_TRUE(linear.AddBuffer(size, first, last).ok());
    }
    ASSERT_TRUE(greedy.Plan().ok());
    ASSERT_TRUE(classic.Plan().ok());
    ASSERT_TRUE(linear.Plan().ok());
    ASSERT_TRUE(IsValidPlan(greedy, sizes, lifetimes)) << "trial " << trial;
    ASSERT_TRUE(IsValidPlan(linear, sizes, lifetimes)) << "trial " << trial;
    EXPECT_LE(greedy.GetMaxMemory(), linear.GetMaxMemory());
    EXPECT_LE(greedy.GetMaxMemory(), classic.GetMaxMemory());  // refining keeps the best plan seen
    // The bound: the most bytes live at one step, which no plan goes below.
    size_t most = 0;
    for (int step = 0; step < 40; ++step) {
      size_t live = 0;
      for (size_t i = 0; i < sizes.size(); ++i)
        if (lifetimes[i].first <= step && step <= lifetimes[i].second) live += (sizes[i] + 63) / 64 * 64;
      most = std::max(most, live);
    }
    EXPECT_EQ(greedy.GetLowerBound(), most) << "trial " << trial;
    EXPECT_LE(greedy.GetLowerBound(), greedy.GetMaxMemory());
  }
}

}  // namespace
}  // namespace memory
}  // namespace loom
