#include "builder/memory/memory_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "builder/memory/arena_plan.h"
#include "builder/testing/ir_builder.h"

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

TEST(MemoryPlannerTest, RejectsBadLifetimes) {
  LinearMemoryPlanner p;
  EXPECT_FALSE(p.AddBuffer(10, 3, 2).ok());
  EXPECT_FALSE(p.AddBuffer(10, -1, 2).ok());
}

TEST(MemoryPlannerTest, RandomLivenessNeverOverlapsAndGreedyBeatsLinear) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    GreedyMemoryPlanner greedy;
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
      ASSERT_TRUE(linear.AddBuffer(size, first, last).ok());
    }
    ASSERT_TRUE(greedy.Plan().ok());
    ASSERT_TRUE(linear.Plan().ok());
    ASSERT_TRUE(IsValidPlan(greedy, sizes, lifetimes)) << "trial " << trial;
    ASSERT_TRUE(IsValidPlan(linear, sizes, lifetimes)) << "trial " << trial;
    EXPECT_LE(greedy.GetMaxMemory(), linear.GetMaxMemory());
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

TEST(ArenaPlanTest, LivenessOverTheExecutionOrder) {
  testing::IrBuilder b;
  const int x = b.Input("x", {256});  // 1 KiB each
  const int w = b.Const("w", {256}, std::vector<float>(256, 1.f));
  const int a = b.Tensor("a", {256}), c = b.Tensor("c", {256}), d = b.Tensor("d", {256}), y = b.Tensor("y", {256});
  b.Node("Relu", {x}, {a});
  b.Node("Relu", {a}, {c});
  b.Node("Add", {c, w}, {d});
  b.Node("Relu", {d}, {y});
  b.Output(y);
  ArenaPlan greedy, linear;
  ASSERT_TRUE(PlanArena(b.g, PlannerKind::kGreedy, &greedy).ok());
  ASSERT_TRUE(PlanArena(b.g, PlannerKind::kLinear, &linear).ok());
  EXPECT_EQ(greedy.offsets[static_cast<size_t>(w)], -1);  // constants are not in the arena
  EXPECT_EQ(linear.arena_bytes, 3 * 1024u);               // x, the buffer a, c and d share, y
  // x is live from step 0 to its last use; at most two buffers live at once.
  EXPECT_EQ(greedy.arena_bytes, 2 * 1024u);
  auto off = [&](int id) { return greedy.offsets[static_cast<size_t>(id)]; };
  EXPECT_NE(off(x), off(a));  // a graph input never shares
  EXPECT_EQ(off(a), off(c));  // in place: a dies at the Relu that writes c
  EXPECT_EQ(off(c), off(d));  // and c at the Add
  EXPECT_NE(off(d), off(y));  // a graph output never shares
  EXPECT_EQ(greedy.shared_values, 2);
  EXPECT_TRUE(CheckArenaPlan(b.g, greedy).ok());
}

TEST(ArenaPlanTest, ViewsShareAndInPlaceWaitsForTheLastReader) {
  testing::IrBuilder b;
  const int x = b.Input("x", {2, 128});
  const int shape = b.ConstInt64("shape", {1}, {256});
  const int a = b.Tensor("a", {2, 128}), v = b.Tensor("v", {256}), c = b.Tensor("c", {2, 128});
  const int d = b.Tensor("d", {256}), bias = b.Tensor("bias", {128}), e = b.Tensor("e", {2, 128});
  const int y = b.Tensor("y", {2, 128}), z = b.Tensor("z", {256});
  b.Node("Relu", {x}, {a});            // 0
  b.Node("Reshape", {a, shape}, {v});  // 1: v is a view of a
  b.Node("Relu", {a}, {c});            // 2: not in place: v (a's bytes) is read at step 4
  b.Node("ReduceMax", {c}, {bias});    // 3: not elementwise
  b.Node("Relu", {v}, {d});            // 4: in place over v and a
  b.Node("Add", {c, bias}, {e});       // 5: in place over c (bias broadcasts: never written over)
  b.Node("Relu", {e}, {y});            // 6
  b.Node("Relu", {d}, {z});            // 7
  b.Output(y);
  b.Output(z);
  ArenaPlan plan;
  Status s = PlanArena(b.g, PlannerKind::kGreedy, &plan);
  ASSERT_TRUE(s.ok()) << s.message();
  auto off = [&](int id) { return plan.offsets[static_cast<size_t>(id)]; };
  EXPECT_EQ(off(a), off(v));
  EXPECT_NE(off(a), off(c));
  EXPECT_EQ(off(v), off(d));
  EXPECT_EQ(off(c), off(e));
  EXPECT_NE(off(bias), off(e));
  EXPECT_EQ(plan.shared_values, 3);  // v, d, e
  EXPECT_TRUE(CheckArenaPlan(b.g, plan).ok());

  // The checker finds two live tensors that overlap.
  ArenaPlan bad = plan;
  bad.offsets[static_cast<size_t>(c)] = off(a);
  s = CheckArenaPlan(b.g, bad);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("are live at the same time and overlap"), std::string::npos) << s.message();
  bad = plan;
  bad.offsets[static_cast<size_t>(y)] = static_cast<int64_t>(plan.arena_bytes);
  EXPECT_FALSE(CheckArenaPlan(b.g, bad).ok());
}

TEST(ArenaPlanTest, InPlaceAddKeepsTheResidualStreamInOneBuffer) {
  testing::IrBuilder b;
  const int x = b.Input("x", {4, 64});
  const int r0 = b.Tensor("r0", {4, 64}), f0 = b.Tensor("f0", {4, 64}), r1 = b.Tensor("r1", {4, 64});
  const int f1 = b.Tensor("f1", {4, 64}), r2 = b.Tensor("r2", {4, 64}), y = b.Tensor("y", {4, 64});
  b.Node("Relu", {x}, {r0});      // 0: the stream starts
  b.Node("Sigmoid", {r0}, {f0});  // 1: a block reads it
  b.Node("Add", {f0, r0}, {r1});  // 2: both die here; the older r0 takes the sum
  b.Node("Tanh", {r1}, {f1});     // 3
  b.Node("Add", {f1, r1}, {r2});  // 4
  b.Node("Relu", {r2}, {y});      // 5
  b.Output(y);
  ArenaPlan plan;
  Status s = PlanArena(b.g, PlannerKind::kGreedy, &plan);
  ASSERT_TRUE(s.ok()) << s.message();
  auto off = [&](int id) { return plan.offsets[static_cast<size_t>(id)]; };
  EXPECT_EQ(off(r0), off(r1));
  EXPECT_EQ(off(r1), off(r2));
  EXPECT_NE(off(f0), off(r1));
  EXPECT_EQ(plan.arena_bytes, plan.lower_bound_bytes);
}

// ElementwiseChain writes over its X, never over an operand (it reads the
// operands after writing each block), even one in use longer.
TEST(ArenaPlanTest, ElementwiseChainWritesOverItsFirstInputOnly) {
  testing::IrBuilder b;
  const int x = b.Input("x", {4, 64});
  const int older = b.Tensor("older", {4, 64}), a = b.Tensor("a", {4, 64}), c = b.Tensor("c", {4, 64});
  const int y = b.Tensor("y", {4, 64});
  b.Node("Relu", {x}, {older});                                   // 0
  b.Node("Sigmoid", {x}, {a});                                    // 1
  const int chain = b.Node("ElementwiseChain", {a, older}, {c});  // 2: both die here
  b.node(chain).domain = "loom";
  b.node(chain).fused = {"Add", "Relu"};
  b.Node("Relu", {c}, {y});  // 3
  b.Output(y);
  ArenaPlan plan;
  Status s = PlanArena(b.g, PlannerKind::kGreedy, &plan);
  ASSERT_TRUE(s.ok()) << s.message();
  auto off = [&](int id) { return plan.offsets[static_cast<size_t>(id)]; };
  EXPECT_EQ(off(c), off(a));
  EXPECT_NE(off(c), off(older));

  b.node(chain).inputs = {older, a};  // now the operand is `a`
  ASSERT_TRUE(PlanArena(b.g, PlannerKind::kGreedy, &plan).ok());
  EXPECT_EQ(off(c), off(older));
  EXPECT_NE(off(c), off(a));
}

}  // namespace
}  // namespace memory
}  // namespace loom
