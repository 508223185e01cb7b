#include "builder/memory/arena_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "builder/testing/ir_builder.h"

namespace loom {
namespace memory {
namespace {

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
  // In place means at the same offset: c shifted by 64 bytes half-overwrites a.
  ArenaPlan bad = greedy;
  bad.offsets[static_cast<size_t>(c)] += off(a) >= 64 ? -64 : 64;
  EXPECT_FALSE(CheckArenaPlan(b.g, bad).ok());
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

// x -> Conv -> Relu (in place) -> r<k>, one branch per call, each 1 KiB.
struct ConcatGraph {
  testing::IrBuilder b;
  int x = -1;

  ConcatGraph(int64_t n = 1) : x(b.Input("x", {n, 3, 8, 8})), n_(n) {}
  // Returns the Relu output; *conv gets the Conv output.
  int Branch(const std::string& name, int* conv = nullptr) {
    const int w = b.Const(name + "_w", {4, 3, 1, 1}, std::vector<float>(12, 0.5f));
    const int c = b.Tensor(name + "_conv", {n_, 4, 8, 8}), r = b.Tensor(name, {n_, 4, 8, 8});
    b.Node("Conv", {x, w}, {c});
    b.Node("Relu", {c}, {r});
    if (conv != nullptr) *conv = c;
    return r;
  }
  int Concat(const std::string& name, const std::vector<int>& inputs, int64_t channels, int64_t axis = 1) {
    const int out = b.Tensor(name, {n_, channels, 8, 8});
    b.node(b.Node("Concat", inputs, {out})).attrs.SetInt("axis", axis);
    return out;
  }
  // A Conv reading `in` that makes the graph output y.
  int Output(int in, int64_t channels) {
    const int w = b.Const("head_w", {2, channels, 1, 1}, std::vector<float>(static_cast<size_t>(2 * channels), 1.f));
    const int y = b.Tensor("y", {n_, 2, 8, 8});
    b.Node("Conv", {in, w}, {y});
    b.Output(y);
    return y;
  }
  ArenaPlan Plan(ConcatElision elision = ConcatElision::kOn) {
    ArenaPlan plan;
    const Status s = PlanArena(b.g, PlannerKind::kGreedy, &plan, elision);
    EXPECT_TRUE(s.ok()) << s.message();
    return plan;
  }

 private:
  int64_t n_;
};

int64_t Offset(const ArenaPlan& plan, int id) { return plan.offsets[static_cast<size_t>(id)]; }

TEST(ConcatElisionTest, BranchOutputsAreWrittenIntoTheirSlices) {
  for (int64_t axis : {1, -3}) {
    ConcatGraph g;
    int c1 = -1, c2 = -1;
    const int r1 = g.Branch("r1", &c1), r2 = g.Branch("r2", &c2);
    const int cat = g.Concat("cat", {r1, r2}, 8, axis);
    g.Output(cat, 8);
    const ArenaPlan plan = g.Plan(), copied = g.Plan(ConcatElision::kOff);
    EXPECT_EQ(plan.concat_inputs_elided, 2) << "axis " << axis;
    EXPECT_EQ(Offset(plan, r1), Offset(plan, cat));
    EXPECT_EQ(Offset(plan, r2), Offset(plan, cat) + 1024);
    EXPECT_EQ(Offset(plan, c1), Offset(plan, r1));  // the in-place group moves with its input
    EXPECT_EQ(Offset(plan, c2), Offset(plan, r2));
    EXPECT_EQ(plan.shared_values, 4);  // c1, r1, c2, r2 in cat's buffer
    EXPECT_EQ(copied.concat_inputs_elided, 0);
    EXPECT_EQ(copied.shared_values, 2);  // r1 over c1, r2 over c2
    // x (768 bytes) beside cat's buffer (2 KiB) while the branches run, against
    // both branches and cat live at the Concat without elision.
    EXPECT_EQ(plan.lower_bound_bytes, 768u + 2048u);
    EXPECT_EQ(copied.lower_bound_bytes, 4096u);
    EXPECT_LT(plan.arena_bytes, copied.arena_bytes);
  }
}

TEST(ConcatElisionTest, NotWhenADimBeforeTheAxisIsNotOne) {
  ConcatGraph g(2);
  const int r1 = g.Branch("r1"), r2 = g.Branch("r2");
  g.Output(g.Concat("cat", {r1, r2}, 8), 8);
  EXPECT_EQ(g.Plan().concat_inputs_elided, 0);
}

TEST(ConcatElisionTest, NotAtAMisalignedSlice) {
  testing::IrBuilder b;
  const int x1 = b.Input("x1", {1, 3, 4}), x2 = b.Input("x2", {1, 16, 4});
  const int p = b.Tensor("p", {1, 3, 4}), q = b.Tensor("q", {1, 16, 4});
  const int cat = b.Tensor("cat", {1, 19, 4}), y = b.Tensor("y", {1, 19, 4});
  b.Node("Sigmoid", {x2}, {q});  // would start at byte 48
  b.Node("Sigmoid", {x1}, {p});  // 48 bytes
  b.node(b.Node("Concat", {p, q}, {cat})).attrs.SetInt("axis", 1);
  b.Node("Tanh", {cat}, {y});
  b.Output(y);
  ArenaPlan plan;
  ASSERT_TRUE(PlanArena(b.g, PlannerKind::kGreedy, &plan).ok());
  EXPECT_EQ(plan.concat_inputs_elided, 1);
  EXPECT_EQ(Offset(plan, p), Offset(plan, cat));
  EXPECT_NE(Offset(plan, q), Offset(plan, cat) + 48);
}

TEST(ConcatElisionTest, NotWhenItRaisesTheLowerBound) {
  ConcatGraph g;
  const int r1 = g.Branch("r1");  // 1 KiB, made first
  const int wide = g.b.Tensor("wide", {1, 32, 8, 8}), r2 = g.b.Tensor("r2", {1, 4, 8, 8});
  g.b.Node("Conv", {g.x, g.b.Const("w_wide", {32, 3, 1, 1}, std::vector<float>(96, 1.f))}, {wide});  // 8 KiB
  g.b.Node("Conv", {wide, g.b.Const("w_r2", {4, 32, 1, 1}, std::vector<float>(128, 1.f))}, {r2});
  const int cat = g.Concat("cat", {r1, r2}, 8);
  g.Output(cat, 8);
  // Either input in cat's 2 KiB buffer would make it live beside `wide`,
  // where the input alone took 1 KiB.
  const ArenaPlan plan = g.Plan(), copied = g.Plan(ConcatElision::kOff);
  EXPECT_EQ(plan.concat_inputs_elided, 0);
  EXPECT_EQ(plan.lower_bound_bytes, copied.lower_bound_bytes);
}

TEST(ConcatElisionTest, NotGraphInputsOrOutputs) {
  ConcatGraph g;
  const int r1 = g.Branch("r1"), r2 = g.Branch("r2");
  g.b.Output(r1);
  const int cat = g.Concat("cat", {g.x, r1, r2}, 11);  // x: 768 bytes, a multiple of 64
  g.Output(cat, 11);
  const ArenaPlan plan = g.Plan();
  EXPECT_EQ(plan.concat_inputs_elided, 1);
  EXPECT_EQ(Offset(plan, r2), Offset(plan, cat) + 768 + 1024);
  EXPECT_NE(Offset(plan, g.x), Offset(plan, cat));
  EXPECT_NE(Offset(plan, r1), Offset(plan, cat) + 768);
}

TEST(ConcatElisionTest, NotARepeatedInput) {
  ConcatGraph g;
  const int r1 = g.Branch("r1");
  g.Output(g.Concat("cat", {r1, r1}, 8), 8);
  EXPECT_EQ(g.Plan().concat_inputs_elided, 0);
}

TEST(ConcatElisionTest, NotIntoAGraphOutput) {
  ConcatGraph g;
  const int r1 = g.Branch("r1"), r2 = g.Branch("r2");
  const int cat = g.Concat("cat", {r1, r2}, 8);
  g.b.Output(cat);  // the caller may bind it to its own memory
  g.Output(cat, 8);
  EXPECT_EQ(g.Plan().concat_inputs_elided, 0);
}

TEST(ConcatElisionTest, AnInputReadByTwoConcatsGoesToTheLastOne) {
  ConcatGraph g;
  int c1 = -1;
  const int r1 = g.Branch("r1", &c1), r2 = g.Branch("r2"), r3 = g.Branch("r3");
  const int cat1 = g.Concat("cat1", {r1, r2}, 8), cat2 = g.Concat("cat2", {r1, r3}, 8);
  const int sum = g.b.Tensor("sum", {1, 8, 8, 8});
  g.b.Node("Add", {cat1, cat2}, {sum});
  g.Output(sum, 8);
  const ArenaPlan plan = g.Plan();
  EXPECT_EQ(plan.concat_inputs_elided, 3);
  EXPECT_EQ(Offset(plan, r2), Offset(plan, cat1) + 1024);
  EXPECT_EQ(Offset(plan, r1), Offset(plan, cat2));  // cat1 reads it before, so it stays out of cat1
  EXPECT_EQ(Offset(plan, r3), Offset(plan, cat2) + 1024);
  // The checker refuses r1 in cat1's first slice: cat2 reads it after cat1.
  ArenaPlan bad = plan;
  bad.offsets[static_cast<size_t>(r1)] = Offset(plan, cat1);
  bad.offsets[static_cast<size_t>(c1)] = Offset(plan, cat1);
  EXPECT_FALSE(CheckArenaPlan(g.b.g, bad).ok());
}

TEST(ConcatElisionTest, ANestedConcatMovesWithItsInputs) {
  ConcatGraph g;
  const int r1 = g.Branch("r1"), r2 = g.Branch("r2"), r3 = g.Branch("r3");
  const int cat1 = g.Concat("cat1", {r1, r2}, 8), cat2 = g.Concat("cat2", {r3, cat1}, 12);
  g.Output(cat2, 12);
  const ArenaPlan plan = g.Plan();
  EXPECT_EQ(plan.concat_inputs_elided, 4);
  EXPECT_EQ(Offset(plan, r3), Offset(plan, cat2));
  EXPECT_EQ(Offset(plan, cat1), Offset(plan, cat2) + 1024);
  EXPECT_EQ(Offset(plan, r1), Offset(plan, cat1));
  EXPECT_EQ(Offset(plan, r2), Offset(plan, cat1) + 1024);
}

TEST(ConcatElisionTest, TheCheckerAcceptsOnlyAnInputAtItsSlice) {
  ConcatGraph g;
  int c1 = -1, c2 = -1;
  const int r1 = g.Branch("r1", &c1), r2 = g.Branch("r2", &c2);
  const int cat = g.Concat("cat", {r1, r2}, 8);
  g.Output(cat, 8);
  const ArenaPlan plan = g.Plan();
  ASSERT_EQ(plan.concat_inputs_elided, 2);
  EXPECT_TRUE(CheckArenaPlan(g.b.g, plan).ok());
  auto place = [](ArenaPlan* p, std::vector<int> ids, int64_t offset) {
    for (int id : ids) p->offsets[static_cast<size_t>(id)] = offset;
  };
  auto expect_overlap = [&](const ArenaPlan& bad, const std::string& what) {
    const Status s = CheckArenaPlan(g.b.g, bad);
    EXPECT_EQ(s.code(), StatusCode::kInternal) << what;
    EXPECT_NE(s.message().find("are live at the same time and overlap"), std::string::npos) << what << s.message();
  };
  // Both inputs in the first slice: r1 and r2 are live together.
  ArenaPlan bad = plan;
  place(&bad, {c2, r2}, Offset(plan, cat));
  expect_overlap(bad, "r2 over r1");
  // Each input in the other's slice: inside cat, but not at its place.
  bad = plan;
  place(&bad, {c1, r1}, Offset(plan, cat) + 1024);
  place(&bad, {c2, r2}, Offset(plan, cat));
  expect_overlap(bad, "swapped slices");
  // The graph input over the first branch's Conv output.
  bad = plan;
  place(&bad, {g.x}, Offset(plan, c1));
  expect_overlap(bad, "x over r1's group");

  // With a batch of 2 the inputs are strided in the output: no slice to sit in.
  ConcatGraph g2(2);
  int c = -1;
  const int r = g2.Branch("r1", &c);
  const int cat2 = g2.Concat("cat", {r, g2.Branch("r2")}, 8);
  g2.Output(cat2, 8);
  bad = g2.Plan();
  place(&bad, {c, r}, Offset(bad, cat2));
  EXPECT_FALSE(CheckArenaPlan(g2.b.g, bad).ok());
}

// A DenseNet block as the channel-blocked layout leaves it: every layer
// concatenates the block's input and all earlier layers' outputs (each kept
// until the block's last Concat, a staircase of long-lived buffers), copies
// them through a BatchNormalization, and adds `growth` channels; the block's
// Concat then goes through a chain of same-size conversions (FromNchwc,
// BatchNormalization, ToNchwc). Largest-first greedy places the big,
// short-lived copies first and the staircase on top of them. Returns the
// block's Concat output; *last gets the last layer's output.
int DenseBlock(testing::IrBuilder* b, int64_t in_channels, int64_t growth, int layers, int* last) {
  auto tensor = [&](const std::string& name, int64_t channels) { return b->Tensor(name, {1, channels, 8, 8}); };
  auto conv = [&](const std::string& name, int in, int64_t in_ch, int64_t out_ch) {
    const int w = b->Const(name + "_w", {out_ch, in_ch, 1, 1}, std::vector<float>(static_cast<size_t>(out_ch * in_ch)));
    const int out = tensor(name, out_ch);
    b->Node("Conv", {in, w}, {out});
    return out;
  };
  auto unary = [&](const std::string& op, const std::string& name, int in, int64_t channels) {
    const int out = tensor(name, channels);
    b->Node(op, {in}, {out});
    return out;
  };
  auto concat = [&](const std::string& name, const std::vector<int>& inputs, int64_t channels) {
    const int out = tensor(name, channels);
    b->node(b->Node("Concat", inputs, {out})).attrs.SetInt("axis", 1);
    return out;
  };
  const int x = b->Input("x", {1, 3, 8, 8});
  std::vector<int> features = {conv("stem", x, 3, in_channels)};
  int64_t channels = in_channels;
  for (int k = 0; k < layers; ++k) {
    const std::string layer = "layer" + std::to_string(k);
    const int cat = features.size() == 1 ? features[0] : concat(layer + "_cat", features, channels);
    const int norm = unary("BatchNormalization", layer + "_norm", cat, channels);
    const int bottleneck = conv(layer + "_conv1", norm, channels, 4 * growth);
    features.push_back(conv(layer + "_conv2", bottleneck, 4 * growth, growth));
    channels += growth;
  }
  *last = features.back();
  const int cat = concat("block_cat", features, channels);
  const int from = unary("FromNchwc", "block_from", cat, channels);
  const int norm = unary("BatchNormalization", "block_norm", from, channels);
  const int to = unary("ToNchwc", "block_to", norm, channels);
  const int y = conv("transition", to, channels, channels / 2);
  b->Output(y);
  return cat;
}

// Without refinement the best classic order needs 1.27x the bound for 4
// layers of 8 channels (the same buffers are in memory_planner_test.cc) and
// 1.19x for 6; the refined order reaches it.
TEST(ArenaPlanTest, DenseBlockReachesTheLowerBound) {
  for (int layers : {4, 6}) {
    for (int64_t growth : {8, 32}) {
      testing::IrBuilder b;
      int last = -1;
      const int cat = DenseBlock(&b, 2 * growth, growth, layers, &last);
      ArenaPlan plan;
      const Status s = PlanArena(b.g, PlannerKind::kGreedy, &plan);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(plan.concat_inputs_elided, 1) << layers << " layers";  // the last layer's output, into block_cat
      EXPECT_EQ(Offset(plan, last), Offset(plan, cat) + (2 + layers - 1) * growth * 64 * 4);
      EXPECT_EQ(plan.arena_bytes, plan.lower_bound_bytes) << layers << " layers, growth " << growth;
      EXPECT_TRUE(CheckArenaPlan(b.g, plan).ok());
    }
  }
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
