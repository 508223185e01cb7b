#include "builder/exec/choose_tactics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "builder/testing/ir_builder.h"

namespace loom {
namespace exec {
namespace {

using testing::IrBuilder;

// Runs of the fake kernel per tactic, since the last reset.
int spin_runs[3] = {0, 0, 0};

void ResetSpinRuns() { std::fill(spin_runs, spin_runs + 3, 0); }
int SpinRuns() { return spin_runs[0] + spin_runs[1] + spin_runs[2]; }

// test.Spin: copies its float input after spinning for a time set by its
// tactic test.tactic (0, its own choice: 3 ms; 1: 0.5 ms; 2: 2 ms). Its
// timing key is the attribute test.key (empty when absent); it refuses the
// tactic given in test.refuse.
class SpinKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    tactic_ = setup.attrs.GetInt("test.tactic", 0);
    if (tactic_ < 0 || tactic_ > 2) return setup.Invalid("test.tactic must be 0, 1 or 2");
    if (tactic_ == setup.attrs.GetInt("test.refuse", -1)) return setup.Unsupported("tactic " + std::to_string(tactic_));
    key_ = setup.attrs.GetString("test.key", "");
    bytes_ = setup.inputs[0].num_bytes();
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    static constexpr double kMs[3] = {3.0, 0.5, 2.0};
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(kMs[tactic_]);
    while (std::chrono::steady_clock::now() < end) {
    }
    std::memcpy(args.outputs[0], args.inputs[0], bytes_);
    ++spin_runs[tactic_];
    return Status::Ok();
  }
  KernelTactics Tactics() const override { return {"test.tactic", {0, 1, 2}, key_}; }

 private:
  int64_t tactic_ = 0;
  std::string key_;
  size_t bytes_ = 0;
};

KernelRegistry SpinRegistry() {
  KernelRegistry r;
  r.AddCpu("Spin", MakeKernel<SpinKernel>, "test", "test");
  return r;
}

// A test.Spin node reading a new input of `shape`, with timing key `key`
// (none if empty).
int AddSpin(IrBuilder& b, const std::string& name, const Shape& shape, const std::string& key) {
  const int x = b.Input(name + ".x", shape);
  const int y = b.Tensor(name + ".y", shape);
  const int n = b.Node("Spin", {x}, {y}, name);
  b.node(n).domain = "test";
  b.node(n).kernel_id = "cpu.Spin.test";
  if (!key.empty()) b.node(n).attrs.SetString("test.key", key);
  b.Output(y);
  return n;
}

// Three rounds of the three tactics after a warm-up run of each: 12 runs per
// node timed.
TacticOptions Rounds3() {
  TacticOptions o;
  o.min_rounds = o.max_rounds = 3;
  o.evict_bytes = size_t{64} << 10;
  return o;
}

int64_t TacticOf(const ir::Node& node) { return node.attrs.GetInt("test.tactic", -1); }

// The fastest tactic (1) replaces the kernel's own choice (0); the node
// carries it, and the choice reports every tactic's time.
TEST(ChooseTacticsTest, TakesTheFastestTactic) {
  const KernelRegistry r = SpinRegistry();
  IrBuilder b;
  const int n = AddSpin(b, "spin1", {1, 4}, "a");
  ResetSpinRuns();
  TacticStats stats;
  ASSERT_TRUE(ChooseTactics(&b.g, r, Rounds3(), &stats).ok());
  EXPECT_EQ(TacticOf(b.g.node(n)), 1);
  EXPECT_EQ(stats.timed, 1);
  EXPECT_GT(stats.seconds, 0.0);
  ASSERT_EQ(stats.choices.size(), 1u);
  const TacticChoice& c = stats.choices[0];
  EXPECT_EQ(c.node, "spin1 (Spin)");
  EXPECT_EQ(c.attribute, "test.tactic");
  EXPECT_EQ(c.values, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(c.value, 1);
  EXPECT_EQ(c.default_value, 0);
  EXPECT_FALSE(c.copy);
  ASSERT_EQ(c.ms.size(), 3u);
  EXPECT_GE(c.ms[1], 0.5);
  EXPECT_LT(c.ms[1], c.ms[2]);
  EXPECT_GE(c.ms[2], 2.0);
  EXPECT_LT(c.ms[2], c.ms[0]);
  EXPECT_GE(c.ms[0], 3.0);
  for (int t = 0; t < 3; ++t) EXPECT_EQ(spin_runs[t], 4) << "tactic " << t;
}

// Nodes of one timing key are timed once, whatever their shapes; without a
// key, nodes of the same kernel, attributes and tensor types are. Copies
// take the first node's choice and times.
TEST(ChooseTacticsTest, TimesOneNodePerTimingKey) {
  const KernelRegistry r = SpinRegistry();
  IrBuilder b;
  AddSpin(b, "a1", {1, 4}, "a");
  AddSpin(b, "a2", {2, 8}, "a");
  AddSpin(b, "b1", {1, 4}, "b");
  AddSpin(b, "plain1", {1, 4}, "");
  AddSpin(b, "plain2", {1, 4}, "");
  AddSpin(b, "plain3", {2, 8}, "");
  ResetSpinRuns();
  TacticStats stats;
  ASSERT_TRUE(ChooseTactics(&b.g, r, Rounds3(), &stats).ok());
  EXPECT_EQ(stats.timed, 4);
  EXPECT_EQ(SpinRuns(), 4 * 12);
  ASSERT_EQ(stats.choices.size(), 6u);
  const std::vector<bool> copies = {false, true, false, false, true, false};
  const std::vector<size_t> first = {0, 0, 2, 3, 3, 5};
  for (size_t i = 0; i < stats.choices.size(); ++i) {
    const TacticChoice& c = stats.choices[i];
    SCOPED_TRACE(c.node);
    EXPECT_EQ(c.node, b.g.node(static_cast<int>(i)).Label());
    EXPECT_EQ(c.copy, copies[i]);
    EXPECT_EQ(c.value, 1);
    EXPECT_EQ(c.ms, stats.choices[first[i]].ms);
    EXPECT_EQ(TacticOf(b.g.node(static_cast<int>(i))), 1);
  }
  EXPECT_NE(stats.choices[0].ms, stats.choices[2].ms);  // timed apart
}

// A node that carries the attribute keeps it and is neither timed nor
// reported; a later node of its timing key is timed itself.
TEST(ChooseTacticsTest, LeavesANodeWithTheAttributeAlone) {
  const KernelRegistry r = SpinRegistry();
  IrBuilder b;
  const int set = AddSpin(b, "set", {1, 4}, "a");
  b.node(set).attrs.SetInt("test.tactic", 2);
  const int open = AddSpin(b, "open", {1, 4}, "a");
  ResetSpinRuns();
  TacticStats stats;
  ASSERT_TRUE(ChooseTactics(&b.g, r, Rounds3(), &stats).ok());
  EXPECT_EQ(TacticOf(b.g.node(set)), 2);
  EXPECT_EQ(TacticOf(b.g.node(open)), 1);
  ASSERT_EQ(stats.choices.size(), 1u);
  EXPECT_EQ(stats.choices[0].node, "open (Spin)");
  EXPECT_FALSE(stats.choices[0].copy);
  EXPECT_EQ(stats.timed, 1);
  EXPECT_EQ(SpinRuns(), 12);
}

// Within keep_default_within of the fastest, the kernel's own choice stays
// (and is written into the node).
TEST(ChooseTacticsTest, KeepsTheKernelsChoiceWithinTheMargin) {
  const KernelRegistry r = SpinRegistry();
  IrBuilder b;
  const int n = AddSpin(b, "spin1", {1, 4}, "");
  TacticOptions options = Rounds3();
  options.keep_default_within = 10.0;  // 3 ms is within 11 x 0.5 ms
  TacticStats stats;
  ASSERT_TRUE(ChooseTactics(&b.g, r, options, &stats).ok());
  EXPECT_EQ(TacticOf(b.g.node(n)), 0);
  ASSERT_EQ(stats.choices.size(), 1u);
  EXPECT_EQ(stats.choices[0].value, 0);
  EXPECT_EQ(stats.choices[0].default_value, 0);
  ASSERT_EQ(stats.choices[0].ms.size(), 3u);
  EXPECT_LT(stats.choices[0].ms[1], stats.choices[0].ms[0]);
}

// Dead nodes and nodes off the CPU are not timed.
TEST(ChooseTacticsTest, SkipsDeadAndDeviceNodes) {
  const KernelRegistry r = SpinRegistry();
  IrBuilder b;
  const int dead = AddSpin(b, "dead", {1, 4}, "");
  b.node(dead).dead = true;
  const int fpga = AddSpin(b, "fpga", {1, 4}, "");
  b.node(fpga).device = Device::kFpga;
  ResetSpinRuns();
  TacticStats stats;
  ASSERT_TRUE(ChooseTactics(&b.g, r, Rounds3(), &stats).ok());
  EXPECT_TRUE(stats.choices.empty());
  EXPECT_EQ(stats.timed, 0);
  EXPECT_EQ(SpinRuns(), 0);
  EXPECT_EQ(TacticOf(b.g.node(dead)), -1);
  EXPECT_EQ(TacticOf(b.g.node(fpga)), -1);
}

// A tactic the kernel offers but refuses, and an unregistered kernel, are
// errors naming the node.
TEST(ChooseTacticsTest, ErrorsNameTheNode) {
  const KernelRegistry r = SpinRegistry();
  IrBuilder b;
  const int n = AddSpin(b, "spin1", {1, 4}, "");
  b.node(n).attrs.SetInt("test.refuse", 2);
  TacticStats stats;
  Status st = ChooseTactics(&b.g, r, Rounds3(), &stats);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(st.message().rfind("spin1 (Spin): ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find("tactic test.tactic = 2 offered but refused"), std::string::npos) << st.message();

  b.node(n).attrs.Erase("test.refuse");
  b.node(n).kernel_id = "cpu.Nothing";
  st = ChooseTactics(&b.g, r, Rounds3(), &stats);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("spin1 (Spin): kernel 'cpu.Nothing' is not registered"), std::string::npos)
      << st.message();
}

// The real kernels: two 3x3 stride-1 loom.ConvNchwc of the same shapes (one
// with bias and Relu) share one timing of loom.winograd's three values; a
// 1x1 conv offers none.
TEST(ChooseTacticsTest, TimesWinogradTilesOfConvNchwc) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto random = [&](size_t n) {
    std::vector<float> v(n);
    for (float& f : v) f = dist(rng);
    return v;
  };
  IrBuilder b;
  const Shape blocked = {1, 4, 12, 12, 8};
  int x = b.Input("x", blocked);
  auto conv = [&](const std::string& name, int64_t k, bool epilogue) {
    const int w = b.Const(name + ".w", {4, 4, k, k, 8, 8}, random(static_cast<size_t>(32 * 32 * k * k)));
    std::vector<int> inputs = {x, w};
    if (epilogue) inputs.push_back(b.Const(name + ".b", {32}, random(32)));
    const int y = b.Tensor(name + ".y", blocked);
    const int n = b.Node("ConvNchwc", inputs, {y}, name);
    ir::Node& node = b.node(n);
    node.domain = "loom";
    node.kernel_id = "cpu.ConvNchwc.loom";
    node.attrs.SetInts("kernel_shape", {k, k});
    node.attrs.SetInts("strides", {1, 1});
    node.attrs.SetInts("dilations", {1, 1});
    const int64_t p = k / 2;
    node.attrs.SetInts("pads", {p, p, p, p});
    if (epilogue) node.attrs.SetString("loom.activation", "Relu");
    x = y;
    return n;
  };
  const int conv1 = conv("conv1", 3, false);
  const int conv2 = conv("conv2", 3, true);
  const int pointwise = conv("pointwise", 1, false);
  b.Output(x);
  TacticStats stats;
  const Status st = ChooseTactics(&b.g, KernelRegistry::Global(), TacticOptions(), &stats);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(stats.choices.size(), 2u);
  EXPECT_EQ(stats.timed, 1);
  const TacticChoice& first = stats.choices[0];
  EXPECT_EQ(first.node, "conv1 (ConvNchwc)");
  EXPECT_EQ(first.attribute, "loom.winograd");
  std::vector<int64_t> sorted = first.values;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(first.default_value, first.values[0]);
  ASSERT_EQ(first.ms.size(), 3u);
  for (double ms : first.ms) EXPECT_GT(ms, 0.0);
  EXPECT_NE(std::find(first.values.begin(), first.values.end(), first.value), first.values.end());
  EXPECT_EQ(b.g.node(conv1).attrs.GetInt("loom.winograd", -1), first.value);
  EXPECT_EQ(stats.choices[1].node, "conv2 (ConvNchwc)");
  EXPECT_TRUE(stats.choices[1].copy);
  EXPECT_EQ(b.g.node(conv2).attrs.GetInt("loom.winograd", -1), first.value);
  EXPECT_FALSE(b.g.node(pointwise).attrs.Has("loom.winograd"));
}

}  // namespace
}  // namespace exec
}  // namespace loom
