// The layout pass end to end (builder/passes/layout_nchwc.h): a small
// MobileNet/SqueezeNet-style model built at -O3 runs in the channel-blocked
// layout and gives the outputs of the plan built without the pass; a model
// from a 3-channel image, whose first Conv runs as loom.ConvNchwcStem, gives
// those of the plan built at -O0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "builder/build_internal.h"
#include "builder/testing/nchwc_reference_kernels.h"
#include "builder/testing/onnx_models.h"
#include "loom/engine.h"

namespace loom {
namespace {

using testing::OnnxModel;

// Adds Conv `name` (random W [cout, cin/group, k, k] and B) reading `in`,
// with pads k/2 unless given.
void AddConv(OnnxModel& m, std::mt19937& rng, const std::string& name, const std::string& in, const std::string& out,
             int64_t cin, int64_t cout, int64_t k, int64_t stride = 1, int64_t group = 1,
             std::vector<int64_t> pads = {}) {
  std::normal_distribution<float> dist(0.f, 1.f / std::sqrt(static_cast<float>(cin / group * k * k)));
  std::vector<float> w(static_cast<size_t>(cout * cin / group * k * k)), b(static_cast<size_t>(cout));
  for (float& v : w) v = dist(rng);
  for (float& v : b) v = dist(rng);
  m.Initializer(name + ".w", {cout, cin / group, k, k}, w);
  m.Initializer(name + ".b", {cout}, b);
  onnx::NodeProto* n = m.Node("Conv", {in, name + ".w", name + ".b"}, {out}, name);
  const int64_t p = k / 2;
  testing::SetIntsAttr(n, "pads", pads.empty() ? std::vector<int64_t>{p, p, p, p} : pads);
  if (stride != 1) testing::SetIntsAttr(n, "strides", {stride, stride});
  if (group != 1) testing::SetIntAttr(n, "group", group);
}

// A model of opset 13 with input x of `shape` and the scalars zero and six
// (Clip's bounds).
OnnxModel ModelWithInput(const std::vector<int64_t>& shape) {
  OnnxModel m(13);
  m.Input("x", shape);
  m.Initializer("zero", {}, {0.f});
  m.Initializer("six", {}, {6.f});
  return m;
}

// x [1, 16, 10, 10] -> inverted residual block (1x1 Relu, depthwise 3x3
// Clip, 1x1 + x: output r) -> basic residual block (3x3 16 -> 64 Relu, 3x3
// 64 -> 16 + r, Relu: both 3x3 Convs run through Winograd) -> depthwise 3x3
// stride 2 -> squeeze-excitation
// (4 squeeze channels) -> fire (1x1 squeeze; 1x1 and 3x3 expands
// concatenated) -> 1x1 -> Sigmoid: output y.
OnnxModel MobilenetStyle() {
  std::mt19937 rng(9);
  OnnxModel m = ModelWithInput({1, 16, 10, 10});
  AddConv(m, rng, "expand", "x", "e", 16, 32, 1);
  m.Node("Relu", {"e"}, {"er"});
  AddConv(m, rng, "dw", "er", "d", 32, 32, 3, 1, 32);
  m.Node("Clip", {"d", "zero", "six"}, {"dc"});
  AddConv(m, rng, "project", "dc", "p", 32, 16, 1);
  m.Node("Add", {"p", "x"}, {"r"});
  AddConv(m, rng, "basic1", "r", "b1", 16, 64, 3);
  m.Node("Relu", {"b1"}, {"b1r"});
  AddConv(m, rng, "basic2", "b1r", "b2", 64, 16, 3);
  m.Node("Add", {"b2", "r"}, {"b2a"});
  m.Node("Relu", {"b2a"}, {"b"});
  AddConv(m, rng, "dw2", "b", "d2", 16, 16, 3, 2, 16);
  m.Node("GlobalAveragePool", {"d2"}, {"pool"});
  AddConv(m, rng, "se_reduce", "pool", "sr", 16, 4, 1);
  m.Node("Relu", {"sr"}, {"srr"});
  AddConv(m, rng, "se_expand", "srr", "se", 4, 16, 1);
  m.Node("Sigmoid", {"se"}, {"gate"});
  m.Node("Mul", {"d2", "gate"}, {"s"});
  AddConv(m, rng, "squeeze", "s", "sq", 16, 8, 1);
  m.Node("Relu", {"sq"}, {"sqr"});
  AddConv(m, rng, "e1", "sqr", "f1", 8, 16, 1);
  AddConv(m, rng, "e3", "sqr", "f3", 8, 16, 3);
  testing::SetIntAttr(m.Node("Concat", {"f1", "f3"}, {"cat"}), "axis", 1);
  AddConv(m, rng, "head", "cat", "h", 32, 8, 1);
  m.Node("Sigmoid", {"h"}, {"y"});
  m.Output("y", {1, 8, 5, 5});
  m.Output("r", {1, 16, 10, 10});
  return m;
}

// image [1, 3, 21, 20] -> stem 3x3 / 2 (3 -> 16, pads 1, 1, 0, 0) -> Clip
// -> depthwise 3x3 -> Sigmoid * x (Swish) -> 1x1 (16 -> 24) -> Relu -> 1x1
// (24 -> 8): output y [1, 8, 10, 10]; a 7x7 / 2 stem (3 -> 8, pads 3) -> Relu
// -> 1x1 (8 -> 8) -> Relu: output z [1, 8, 11, 10].
OnnxModel StemStyle() {
  std::mt19937 rng(4);
  OnnxModel m = ModelWithInput({1, 3, 21, 20});
  AddConv(m, rng, "stem", "x", "s", 3, 16, 3, 2, 1, {1, 1, 0, 0});
  m.Node("Clip", {"s", "zero", "six"}, {"sc"});
  AddConv(m, rng, "dw", "sc", "d", 16, 16, 3, 1, 16);
  m.Node("Sigmoid", {"d"}, {"ds"});
  m.Node("Mul", {"d", "ds"}, {"sw"});
  AddConv(m, rng, "expand", "sw", "e", 16, 24, 1);
  m.Node("Relu", {"e"}, {"er"});
  AddConv(m, rng, "project", "er", "y", 24, 8, 1);
  AddConv(m, rng, "stem7", "x", "t", 3, 8, 7, 2);
  m.Node("Relu", {"t"}, {"tr"});
  AddConv(m, rng, "head", "tr", "h", 8, 8, 1);
  m.Node("Relu", {"h"}, {"z"});
  m.Output("y", {1, 8, 10, 10});
  m.Output("z", {1, 8, 11, 10});
  return m;
}

// Every output of `plan` run on `x` with `registry`'s kernels, by name.
std::map<std::string, std::vector<float>> RunPlan(const std::vector<uint8_t>& plan, const KernelRegistry& registry,
                                                  const std::vector<float>& x) {
  std::map<std::string, std::vector<float>> outputs;
  std::shared_ptr<const Engine> engine;
  Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), registry, &engine);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return outputs;
  std::unique_ptr<ExecutionContext> ctx;
  EXPECT_TRUE(engine->CreateContext({}, &ctx).ok());
  EXPECT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
  s = ctx->Run();
  EXPECT_TRUE(s.ok()) << s.message();
  for (const TensorDesc& out : engine->outputs()) {
    const float* data = static_cast<const float*>(ctx->OutputData(out.name));
    if (data) outputs[out.name].assign(data, data + out.size_bytes / sizeof(float));
  }
  return outputs;
}

// Whether `value` is close to `want` within `tolerance` of want's largest magnitude, output by output.
void ExpectSameOutputs(const std::map<std::string, std::vector<float>>& want,
                       const std::map<std::string, std::vector<float>>& got, float tolerance) {
  ASSERT_EQ(want.size(), 2u);
  for (const auto& [name, values] : want) {
    ASSERT_EQ(got.count(name), 1u) << name;
    const std::vector<float>& g = got.at(name);
    ASSERT_EQ(g.size(), values.size()) << name;
    float scale = 0.f;
    for (float v : values) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < values.size(); ++i) ASSERT_NEAR(g[i], values[i], tolerance * scale) << name << " at " << i;
  }
}

std::vector<float> RandomInput(size_t n) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(rng);
  return x;
}

// Builds the model at -O3 with and without layout_nchwc: the pass converts
// nodes, and both plans give the same outputs within 1e-5 of the largest.
void ExpectSameOutputsAsNchw(const KernelRegistry& registry) {
  testing::TempDir dir;
  const std::string model = MobilenetStyle().Save(dir.File("m.onnx"));
  BuildOptions blocked_options, nchw_options;
  nchw_options.disabled_passes = {"layout_nchwc"};
  BuildReport blocked_report, nchw_report;
  std::vector<uint8_t> blocked, nchw;
  Status s = BuildPlanWithRegistry(model, blocked_options, registry, &blocked, &blocked_report);
  ASSERT_TRUE(s.ok()) << s.message();
  s = BuildPlanWithRegistry(model, nchw_options, registry, &nchw, &nchw_report);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::vector<std::string>& applied = blocked_report.passes_applied;
  EXPECT_TRUE(std::any_of(applied.begin(), applied.end(),
                          [](const std::string& a) { return a.rfind("layout_nchwc: ", 0) == 0; }));
  EXPECT_GT(blocked_report.plan_nodes, nchw_report.plan_nodes);  // the conversions

  const std::vector<float> x = RandomInput(16 * 100);
  ExpectSameOutputs(RunPlan(nchw, registry, x), RunPlan(blocked, registry, x), 1e-5f);
}

// With the naive kernels of the contract: checks the pass's rewrite.
TEST(LayoutNchwcBuildTest, RunsLikeNchwWithReferenceKernels) {
  ExpectSameOutputsAsNchw(testing::WithNchwcReferenceKernels(KernelRegistry::Global()));
}

// With Loom's own NCHWc kernels (kernels/cpu/nn): enabled once they are registered.
TEST(LayoutNchwcBuildTest, RunsLikeNchwWithCpuKernels) { ExpectSameOutputsAsNchw(KernelRegistry::Global()); }

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// The plan's ops, in order.
std::vector<std::string> PlanOps(const std::vector<uint8_t>& plan, const KernelRegistry& registry) {
  std::shared_ptr<const Engine> engine;
  std::vector<std::string> ops;
  if (!Engine::LoadFromBuffer(plan.data(), plan.size(), registry, &engine).ok()) return ops;
  for (const NodeDesc& n : engine->nodes()) ops.push_back(n.op);
  return ops;
}

// StemStyle at -O3 with Loom's kernels: both first Convs run as
// ConvNchwcStem and no ToNchwc is left; the outputs are those of -O0.
TEST(LayoutNchwcBuildTest, StemRunsLikeO0WithCpuKernels) {
  const KernelRegistry& registry = KernelRegistry::Global();
  testing::TempDir dir;
  const std::string model = StemStyle().Save(dir.File("stem.onnx"));
  BuildOptions o3, o0;
  o0.opt_level = 0;
  BuildReport report;
  std::vector<uint8_t> blocked, plain;
  Status s = BuildPlanWithRegistry(model, o3, registry, &blocked, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  s = BuildPlanWithRegistry(model, o0, registry, &plain, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::vector<std::string> ops = PlanOps(blocked, registry);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "ConvNchwcStem"), 2);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "ToNchwc"), 0);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "FromNchwc"), 2);
  const std::vector<float> x = RandomInput(3 * 21 * 20);
  ExpectSameOutputs(RunPlan(plain, registry, x), RunPlan(blocked, registry, x), 1e-5f);
}

}  // namespace
}  // namespace loom
