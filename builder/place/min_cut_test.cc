#include "builder/place/min_cut.h"

#include <gtest/gtest.h>

namespace loom {
namespace place {
namespace {

TEST(MinCutTest, TwoLabelCostsAreSolvedExactly) {
  // Node 0 costs 1 on the source side, 10 on the sink side; node 1 the
  // other way round; separating them costs 3 (0 -> 1) or 100 (1 -> 0).
  MinCut cut(2);
  cut.AddEdge(0, cut.sink(), 1);
  cut.AddEdge(cut.source(), 0, 10);
  cut.AddEdge(1, cut.sink(), 10);
  cut.AddEdge(cut.source(), 1, 1);
  cut.AddEdge(0, 1, 3);
  cut.AddEdge(1, 0, 100);
  EXPECT_EQ(cut.Solve(), 1 + 1 + 3);
  EXPECT_TRUE(cut.OnSourceSide(0));
  EXPECT_FALSE(cut.OnSourceSide(1));
}

TEST(MinCutTest, ExpensiveSeparationKeepsNodesTogether) {
  MinCut cut(2);
  cut.AddEdge(0, cut.sink(), 1);
  cut.AddEdge(cut.source(), 0, 10);
  cut.AddEdge(1, cut.sink(), 10);
  cut.AddEdge(cut.source(), 1, 1);
  cut.AddEdge(0, 1, 50);
  cut.AddEdge(1, 0, 50);
  EXPECT_EQ(cut.Solve(), 11);  // both on one side: 1 + 10 either way
  EXPECT_EQ(cut.OnSourceSide(0), cut.OnSourceSide(1));
}

TEST(MinCutTest, InfiniteEdgesForbidASide) {
  MinCut cut(1);
  cut.AddEdge(cut.source(), 0, 1);                // cheap on the sink side...
  cut.AddEdge(0, cut.sink(), MinCut::kInfinite);  // ...and impossible on the source side
  EXPECT_EQ(cut.Solve(), 1);
  EXPECT_FALSE(cut.OnSourceSide(0));
}

TEST(MinCutTest, MatchesBruteForceOnRandomGraphs) {
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((state >> 33) % 20);
  };
  for (int round = 0; round < 200; ++round) {
    const int n = 1 + round % 7;
    std::vector<int64_t> cost0(n), cost1(n);
    std::vector<std::vector<int64_t>> pair(n, std::vector<int64_t>(n, 0));
    MinCut cut(n);
    for (int i = 0; i < n; ++i) {
      cost0[i] = next();
      cost1[i] = next();
      cut.AddEdge(i, cut.sink(), cost0[i]);
      cut.AddEdge(cut.source(), i, cost1[i]);
      for (int j = 0; j < n; ++j) {
        if (i == j || next() > 6) continue;
        pair[i][j] = next();
        cut.AddEdge(i, j, pair[i][j]);
      }
    }
    int64_t best = -1;
    for (int mask = 0; mask < (1 << n); ++mask) {  // bit set: sink side
      int64_t total = 0;
      for (int i = 0; i < n; ++i) {
        const bool sink_i = (mask >> i) & 1;
        total += sink_i ? cost1[i] : cost0[i];
        for (int j = 0; j < n; ++j)
          if (!sink_i && ((mask >> j) & 1)) total += pair[i][j];
      }
      if (best < 0 || total < best) best = total;
    }
    ASSERT_EQ(cut.Solve(), best) << "round " << round;
  }
}

}  // namespace
}  // namespace place
}  // namespace loom
