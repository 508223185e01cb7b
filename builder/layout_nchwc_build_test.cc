// The layout pass end to end (builder/passes/layout_nchwc.h): a small
// MobileNet/SqueezeNet-style model built at -O3 runs in the channel-blocked
// layout and gives the outputs of the plan built without the pass.
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

// Adds Conv `name` (random W [cout, cin/group, k, k] and B) reading `in`.
void AddConv(OnnxModel& m, std::mt19937& rng, const std::string& name, const std::string& in, const std::string& out,
             int64_t cin, int64_t cout, int64_t k, int64_t stride = 1, int64_t group = 1) {
  std::normal_distribution<float> dist(0.f, 1.f / std::sqrt(static_cast<float>(cin / group * k * k)));
  std::vector<float> w(static_cast<size_t>(cout * cin / group * k * k)), b(static_cast<size_t>(cout));
  for (float& v : w) v = dist(rng);
  for (float& v : b) v = dist(rng);
  m.Initializer(name + ".w", {cout, cin / group, k, k}, w);
  m.Initializer(name + ".b", {cout}, b);
  onnx::NodeProto* n = m.Node("Conv", {in, name + ".w", name + ".b"}, {out}, name);
  const int64_t p = k / 2;
  testing::SetIntsAttr(n, "pads", {p, p, p, p});
  if (stride != 1) testing::SetIntsAttr(n, "strides", {stride, stride});
  if (group != 1) testing::SetIntAttr(n, "group", group);
}

// x [1, 16, 10, 10] -> inverted residual block (1x1 Relu, depthwise 3x3
// Clip, 1x1 + x: output r) -> basic residual block (3x3 16 -> 64 Relu, 3x3
// 64 -> 16 + r, Relu: both 3x3 Convs run through Winograd) -> depthwise 3x3
// stride 2 -> squeeze-excitation
// (4 squeeze channels) -> fire (1x1 squeeze; 1x1 and 3x3 expands
// concatenated) -> 1x1 -> Sigmoid: output y.
OnnxModel MobilenetStyle() {
  std::mt19937 rng(9);
  OnnxModel m(13);
  m.Input("x", {1, 16, 10, 10});
  m.Initializer("zero", {}, {0.f});
  m.Initializer("six", {}, {6.f});
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

  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(16 * 100);
  for (float& v : x) v = dist(rng);
  const auto want = RunPlan(nchw, registry, x), got = RunPlan(blocked, registry, x);
  ASSERT_EQ(want.size(), 2u);
  for (const auto& [name, values] : want) {
    ASSERT_EQ(got.count(name), 1u) << name;
    const std::vector<float>& g = got.at(name);
    ASSERT_EQ(g.size(), values.size()) << name;
    float scale = 0.f;
    for (float v : values) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < values.size(); ++i) ASSERT_NEAR(g[i], values[i], 1e-5f * scale) << name << " at " << i;
  }
}

// With the naive kernels of the contract: checks the pass's rewrite.
TEST(LayoutNchwcBuildTest, RunsLikeNchwWithReferenceKernels) {
  ExpectSameOutputsAsNchw(testing::WithNchwcReferenceKernels(KernelRegistry::Global()));
}

// With Loom's own NCHWc kernels (kernels/cpu/nn): enabled once they are registered.
TEST(LayoutNchwcBuildTest, RunsLikeNchwWithCpuKernels) { ExpectSameOutputsAsNchw(KernelRegistry::Global()); }

}  // namespace
}  // namespace loom
