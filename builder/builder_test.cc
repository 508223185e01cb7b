#include "builder/builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "builder/build_internal.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/onnx_models.h"
#include "loom/engine.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"
#include "tools/tensor_io/onnx_testdata_root.h"

namespace loom {
namespace {

using testing::OnnxModel;
using testing::TempDir;

// The verified metadata of plan bytes (nullptr if verification fails).
const plan::Plan* ReadPlan(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < kPlanHeaderBytes) return nullptr;
  plan::FileHeader h;
  std::memcpy(static_cast<void*>(&h), bytes.data(), sizeof(h));
  if (h.metadata_offset() + h.metadata_bytes() > bytes.size()) return nullptr;
  flatbuffers::Verifier v(bytes.data() + h.metadata_offset(), h.metadata_bytes());
  if (!plan::VerifyPlanBuffer(v)) return nullptr;
  return plan::GetPlan(bytes.data() + h.metadata_offset());
}

bool Contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// x -> Conv(W, B) -> BN -> Relu -> y, with a symbolic batch dim.
OnnxModel ConvBnRelu() {
  OnnxModel m(13);
  m.Input("x", {-1, 1, 4, 4}, onnx::TensorProto::FLOAT, {"N"});
  m.Initializer("W", {2, 1, 3, 3}, std::vector<float>(18, 0.5f));
  m.Initializer("B", {2}, {0.1f, 0.2f});
  for (const char* p : {"scale", "bias", "mean", "var"}) m.Initializer(p, {2}, {1.f, 2.f});
  testing::SetIntsAttr(m.Node("Conv", {"x", "W", "B"}, {"c"}, "conv1"), "pads", {1, 1, 1, 1});
  m.Node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn1");
  m.Node("Relu", {"bn"}, {"y"}, "relu1");
  m.Output("y", {-1, 2, 4, 4});
  return m;
}

TEST(BuilderTest, FusesAndWritesAVerifiablePlan) {
  TempDir dir;
  KernelRegistry r = testing::MakeFakeRegistry();
  BuildReport report;
  std::vector<uint8_t> bytes;
  Status s = BuildPlanWithRegistry(ConvBnRelu().Save(dir.File("m.onnx")), {}, r, &bytes, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(report.source_nodes, 3);
  EXPECT_EQ(report.plan_nodes, 1);
  EXPECT_EQ(report.opset, 13);
  EXPECT_EQ(report.plan_bytes, bytes.size());
  EXPECT_EQ(report.arena_bytes, 64u + 128u);  // x (64 B) and y (128 B) live together
  EXPECT_EQ(report.passes_applied,
            (std::vector<std::string>{"eliminate_common_subexpressions: 1 nodes", "fuse_conv_batchnorm: 1 nodes",
                                      "fuse_activation: 1 nodes"}));  // BN's equal parameters shared first
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0], "input 'x': dim 0 'N' set to 1");

  const plan::Plan* p = ReadPlan(bytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->producer()->str(), std::string("loom ") + LOOM_TEST_VERSION);
  EXPECT_EQ(p->model_hash()->size(), 16u);
  EXPECT_EQ(p->model_producer()->str(), "loom-test 1.0");
  ASSERT_EQ(p->nodes()->size(), 1u);
  const plan::Node* conv = p->nodes()->Get(0);
  EXPECT_EQ(conv->op()->str(), "Conv");
  EXPECT_EQ(conv->kernel()->str(), "cpu.Conv");
  EXPECT_EQ(conv->placement_reason()->str(), "cpu: the only device of target 'cpu'");
  ASSERT_EQ(conv->fused()->size(), 2u);
  EXPECT_EQ(conv->fused()->Get(0)->str(), "BatchNormalization");
  EXPECT_EQ(conv->fused()->Get(1)->str(), "Relu");
  EXPECT_EQ(p->tensors()->Get(p->outputs()->Get(0))->name()->str(), "y");
  EXPECT_EQ(p->constants_bytes(), 128u + 8u);  // folded weights (72 B) and bias (8 B), each 64-aligned

  // -O0 keeps every node; a disabled pass is skipped.
  BuildOptions o0;
  o0.opt_level = 0;
  ASSERT_TRUE(BuildPlanWithRegistry(dir.File("m.onnx"), o0, r, &bytes, &report).ok());
  EXPECT_EQ(report.plan_nodes, 3);
  BuildOptions no_bn;
  no_bn.disabled_passes = {"fuse_activation"};
  ASSERT_TRUE(BuildPlanWithRegistry(dir.File("m.onnx"), no_bn, r, &bytes, &report).ok());
  EXPECT_EQ(report.plan_nodes, 2);
  // -O1 cleans up but does not fuse; -O2 fuses.
  BuildOptions o1;
  o1.opt_level = 1;
  ASSERT_TRUE(BuildPlanWithRegistry(dir.File("m.onnx"), o1, r, &bytes, &report).ok());
  EXPECT_EQ(report.plan_nodes, 3);
  BuildOptions o2;
  o2.opt_level = 2;
  ASSERT_TRUE(BuildPlanWithRegistry(dir.File("m.onnx"), o2, r, &bytes, &report).ok());
  EXPECT_EQ(report.plan_nodes, 1);
}

TEST(BuilderTest, DumpGraphWritesOneDotPerStage) {
  TempDir dir;
  KernelRegistry r = testing::MakeFakeRegistry();
  BuildOptions options;
  options.dump_graph_dir = dir.File("graphs/nested");
  BuildReport report;
  std::vector<uint8_t> bytes;
  Status s = BuildPlanWithRegistry(ConvBnRelu().Save(dir.File("m.onnx")), options, r, &bytes, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  // import, every pass that ran (13 graph, 3 pre-placement, 6 post-placement), placement, final.
  ASSERT_EQ(report.graph_dumps.size(), 25u);
  EXPECT_EQ(std::filesystem::path(report.graph_dumps.front()).filename(), "00-import.dot");
  EXPECT_EQ(std::filesystem::path(report.graph_dumps[8]).filename(), "08-graph-fuse_conv_batchnorm.dot");
  EXPECT_EQ(std::filesystem::path(report.graph_dumps.back()).filename(), "24-final.dot");
  for (const std::string& f : report.graph_dumps) {
    std::ifstream in(f);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, "digraph loom {") << f;
  }
  std::ifstream final_dot(report.graph_dumps.back());
  const std::string text((std::istreambuf_iterator<char>(final_dot)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Conv+BatchNormalization+Relu"), std::string::npos) << text;
  EXPECT_EQ(report.graph_svgs == 0 || report.graph_svgs == 25, true);

  // A directory that cannot be made is an error naming it, before any work.
  std::ofstream(dir.File("file")) << "x";
  options.dump_graph_dir = dir.File("file");
  s = BuildPlanWithRegistry(dir.File("m.onnx"), options, r, &bytes, &report);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--dump-graph: cannot create directory"), std::string::npos) << s.message();
}

TEST(BuilderTest, UnsupportedOpAndKernelRefusals) {
  TempDir dir;
  KernelRegistry r = testing::MakeFakeRegistry();
  OnnxModel m;
  m.Input("x", {2, 3});
  m.Node("Softmax", {"x"}, {"y"}, "softmax1");
  m.Output("y", {2, 3});
  std::vector<uint8_t> bytes;
  Status s = BuildPlanWithRegistry(m.Save(dir.File("m.onnx")), {}, r, &bytes, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(), "softmax1 (Softmax): unsupported op 'Softmax'");

  OnnxModel add;
  add.Input("x", {2, 3});
  add.Input("b", {3});
  add.Node("Add", {"x", "b"}, {"y"}, "add1");  // the fake Add refuses broadcasting
  add.Output("y", {2, 3});
  s = BuildPlanWithRegistry(add.Save(dir.File("a.onnx")), {}, r, &bytes, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message().rfind("add1 (Add): unsupported broadcasting", 0), 0u) << s.message();
  EXPECT_EQ(s.message().find("(Add)", 10), std::string::npos) << s.message();  // labelled once

  BuildOptions bad;
  bad.opt_level = -1;
  EXPECT_FALSE(BuildPlanWithRegistry(dir.File("a.onnx"), bad, r, &bytes, nullptr).ok());
  bad.opt_level = 4;
  EXPECT_FALSE(BuildPlanWithRegistry(dir.File("a.onnx"), bad, r, &bytes, nullptr).ok());
}

TEST(BuilderTest, CustomDomainOpWithAKernel) {
  TempDir dir;
  KernelRegistry r = testing::MakeFakeRegistry();
  OnnxModel m;
  onnx::OperatorSetIdProto* id = m.proto().add_opset_import();
  id->set_domain("com.example");
  id->set_version(3);
  m.Input("x", {2, 5});
  m.Node("Frobnicate", {"x"}, {"f"}, "frob1")->set_domain("com.example");
  m.Node("Relu", {"f"}, {"y"});
  m.Output("y", {2, 5});
  std::vector<uint8_t> bytes;
  BuildReport report;
  Status s = BuildPlanWithRegistry(m.Save(dir.File("m.onnx")), {}, r, &bytes, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_TRUE(Contains(report.notes[0], "dtype not declared, assumed float32")) << report.notes[0];
  const plan::Plan* p = ReadPlan(bytes);
  ASSERT_NE(p, nullptr);
  const plan::Node* frob = p->nodes()->Get(0);
  EXPECT_EQ(frob->domain()->str(), "com.example");
  EXPECT_EQ(frob->opset(), 3);
  EXPECT_EQ(frob->kernel()->str(), "cpu.Frobnicate");
  const plan::Tensor* f = p->tensors()->Get(frob->outputs()->Get(0));
  ASSERT_EQ(f->shape()->size(), 2u);  // from the kernel's InferOutputShapes
  EXPECT_EQ(f->shape()->Get(1), 5);
}

TEST(BuilderTest, ConstantOutputsAreMaterialized) {
  TempDir dir;
  KernelRegistry r = testing::MakeFakeRegistry();
  OnnxModel m;
  m.Input("x", {2});
  m.Initializer("c", {2}, {-1.f, 4.f});
  m.Node("Relu", {"c"}, {"rc"});
  m.Node("Add", {"x", "rc"}, {"y"});
  m.Output("y", {2});
  m.Output("rc", {2});
  std::vector<uint8_t> bytes;
  BuildReport report;
  Status s = BuildPlanWithRegistry(m.Save(dir.File("m.onnx")), {}, r, &bytes, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  const plan::Plan* p = ReadPlan(bytes);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->outputs()->size(), 2u);
  const plan::Tensor* rc = p->tensors()->Get(p->outputs()->Get(1));
  EXPECT_EQ(rc->name()->str(), "rc");
  EXPECT_EQ(rc->storage(), plan::Storage::ARENA);
  ASSERT_EQ(p->nodes()->size(), 2u);
  EXPECT_EQ(p->nodes()->Get(1)->op()->str(), "Identity");
}

TEST(BuilderTest, PlanFileIsWrittenAtomically) {
  TempDir dir;
  KernelRegistry r = testing::MakeFakeRegistry();
  const std::string model = ConvBnRelu().Save(dir.File("m.onnx"));
  const std::string plan = dir.File("m.plan");
  BuildReport report;
  ASSERT_TRUE(BuildPlanFileWithRegistry(model, plan, {}, r, &report).ok());
  const size_t plan_bytes = report.plan_bytes;
  EXPECT_EQ(std::filesystem::file_size(plan), plan_bytes);

  // A failed build leaves the old plan and no temporary file behind.
  testing::WriteBytes(plan, "old plan");
  BuildOptions bad;
  bad.input_shapes["nope"] = {1};
  EXPECT_FALSE(BuildPlanFileWithRegistry(model, plan, bad, r, &report).ok());
  EXPECT_EQ(std::filesystem::file_size(plan), 8u);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 2);
  EXPECT_FALSE(BuildPlanFileWithRegistry(model, dir.File("no/such/dir/m.plan"), {}, r, &report).ok());
  Status s = BuildPlanFileWithRegistry(model, model, {}, r, &report);
  EXPECT_NE(s.message().find("would overwrite the model"), std::string::npos) << s.message();
}

TEST(BuilderTest, ConformanceModelsWithRealKernels) {
  const std::string root = OnnxTestDataRoot() + "/";
  const char* models[] = {"node/test_relu", "simple/test_single_relu_model"};
  for (const char* m : models) {
    const std::string path = root + m + "/model.onnx";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "libonnx-testdata not installed";
    std::vector<uint8_t> bytes;
    BuildReport report;
    Status s = BuildPlan(path, {}, &bytes, &report);
    ASSERT_TRUE(s.ok()) << m << ": " << s.message();
    const plan::Plan* p = ReadPlan(bytes);
    ASSERT_NE(p, nullptr) << m;
    ASSERT_EQ(p->nodes()->size(), 1u);
    EXPECT_EQ(p->nodes()->Get(0)->kernel()->str(), "cpu.Relu");
  }
}

// n floats uniform in [-limit, limit].
std::vector<float> RandomValues(std::mt19937* rng, size_t n, float limit) {
  std::uniform_real_distribution<float> dist(-limit, limit);
  std::vector<float> v(n);
  for (float& f : v) f = dist(*rng);
  return v;
}

// x -> Conv 3x3 -> Relu -> Conv 3x3 -> Add(., x) -> Relu -> y, and a 1x1
// projection Conv over x on the other side of a second Add.
OnnxModel ResidualBlock() {
  OnnxModel m(13);
  m.Input("x", {1, 8, 6, 6});
  std::mt19937 rng(5);
  auto values = [&](size_t n) { return RandomValues(&rng, n, 0.3f); };
  m.Initializer("W1", {8, 8, 3, 3}, values(576));
  m.Initializer("B1", {8}, values(8));
  m.Initializer("W2", {8, 8, 3, 3}, values(576));
  m.Initializer("W3", {8, 8, 1, 1}, values(64));
  m.Initializer("B3", {8}, values(8));
  testing::SetIntsAttr(m.Node("Conv", {"x", "W1", "B1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c1"}, {"r1"}, "relu1");
  testing::SetIntsAttr(m.Node("Conv", {"r1", "W2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  m.Node("Add", {"c2", "x"}, {"s"}, "add1");
  m.Node("Relu", {"s"}, {"r2"}, "relu2");
  m.Node("Conv", {"x", "W3", "B3"}, {"c3"}, "proj");
  m.Node("Add", {"r2", "c3"}, {"y"}, "add2");
  m.Output("y", {1, 8, 6, 6});
  return m;
}

// -O3 with the Convs in the NCHW layout (no layout_nchwc), for tests of the
// NCHW Conv's fusions and derived constants.
BuildOptions NchwOptions() {
  BuildOptions options;
  options.disabled_passes = {"layout_nchwc"};
  return options;
}

// Runs plan bytes on `x` with the CPU kernels; returns the output y (y_size floats).
std::vector<float> RunPlan(const std::vector<uint8_t>& plan, const std::vector<float>& x, size_t y_size) {
  std::shared_ptr<const Engine> engine;
  Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), &engine);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  std::unique_ptr<ExecutionContext> ctx;
  EXPECT_TRUE(engine->CreateContext({}, &ctx).ok());
  EXPECT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
  s = ctx->Run();
  EXPECT_TRUE(s.ok()) << s.message();
  const float* y = static_cast<const float*>(ctx->OutputData("y"));
  return y ? std::vector<float>(y, y + y_size) : std::vector<float>();
}

// Builds `model` at -O0 (into `o0_nodes` nodes) and runs that plan and
// `optimized` on the same random x of `size` floats: the outputs y agree
// within `tolerance`.
void ExpectSameOutputAsO0(const std::string& model, const std::vector<uint8_t>& optimized, int o0_nodes, size_t size,
                          double tolerance) {
  BuildOptions o0;
  o0.opt_level = 0;
  BuildReport report;
  std::vector<uint8_t> plain;
  ASSERT_TRUE(BuildPlan(model, o0, &plain, &report).ok());
  EXPECT_EQ(report.plan_nodes, o0_nodes);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(size);
  for (float& v : x) v = dist(rng);
  const std::vector<float> want = RunPlan(plain, x, x.size()), got = RunPlan(optimized, x, x.size());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], tolerance) << "at " << i;
}

// Conv + residual Add (+ Relu) end to end with the real kernels: fused into
// the Conv (4 inputs in the verified plan), the residual a graph input or a
// Conv output computed earlier; the same output as the unfused -O0 plan.
TEST(BuilderTest, ConvResidualAddFusesAndRuns) {
  TempDir dir;
  const std::string model = ResidualBlock().Save(dir.File("m.onnx"));
  BuildReport report;
  std::vector<uint8_t> fused;
  ASSERT_TRUE(BuildPlan(model, NchwOptions(), &fused, &report).ok());
  EXPECT_EQ(report.plan_nodes, 3);
  EXPECT_NE(std::find(report.passes_applied.begin(), report.passes_applied.end(), "fuse_conv_add: 2 nodes"),
            report.passes_applied.end());
  const plan::Plan* p = ReadPlan(fused);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->nodes()->size(), 3u);
  const plan::Node* conv2 = p->nodes()->Get(1);
  EXPECT_EQ(conv2->name()->str(), "conv2");
  ASSERT_EQ(conv2->inputs()->size(), 4u);
  EXPECT_LT(conv2->inputs()->Get(2), 0);  // no bias
  ASSERT_EQ(conv2->fused()->size(), 2u);
  EXPECT_EQ(conv2->fused()->Get(0)->str(), "Add");
  EXPECT_EQ(conv2->fused()->Get(1)->str(), "Relu");
  const plan::Node* proj = p->nodes()->Get(2);
  EXPECT_EQ(proj->name()->str(), "proj");
  ASSERT_EQ(proj->inputs()->size(), 4u);
  EXPECT_EQ(proj->inputs()->Get(3), conv2->outputs()->Get(0));
  EXPECT_EQ(p->tensors()->Get(proj->outputs()->Get(0))->name()->str(), "y");

  ExpectSameOutputAsO0(model, fused, 7, 8 * 36, 1e-5);
}

// A chain of elementwise ops between two Softmax (per-channel Mul, scalar
// Add, Relu, Sub from a constant, Sigmoid, Pow 2) fuses at -O3 into one
// ElementwiseChain node that writes over its input, and the output equals
// the -O0 plan's (the same float operations).
TEST(BuilderTest, ElementwiseChainFusesAndRuns) {
  TempDir dir;
  OnnxModel m(13);
  m.Input("x", {1, 3, 20, 20});
  m.Initializer("scale", {3, 1, 1}, {0.5f, -2.f, 3.f});
  m.Initializer("half", {}, {0.5f});
  m.Initializer("one", {1}, {1.f});
  m.Initializer("two", {}, {2.f});
  m.Node("Softmax", {"x"}, {"sm"});  // the chain's input, in the arena: the chain may write over it
  m.Node("Mul", {"sm", "scale"}, {"m"});
  m.Node("Add", {"m", "half"}, {"a"});
  m.Node("Relu", {"a"}, {"r"});
  m.Node("Sub", {"one", "r"}, {"s"});
  m.Node("Sigmoid", {"s"}, {"g"});
  m.Node("Pow", {"g", "two"}, {"p"});
  m.Node("Softmax", {"p"}, {"y"});
  m.Output("y", {1, 3, 20, 20});
  const std::string model = m.Save(dir.File("m.onnx"));
  BuildReport report;
  std::vector<uint8_t> fused;
  ASSERT_TRUE(BuildPlan(model, {}, &fused, &report).ok());
  EXPECT_EQ(report.plan_nodes, 3);
  EXPECT_NE(std::find(report.passes_applied.begin(), report.passes_applied.end(), "fuse_elementwise_chain: 6 nodes"),
            report.passes_applied.end());
  const plan::Plan* p = ReadPlan(fused);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->nodes()->size(), 3u);
  const plan::Node* chain = p->nodes()->Get(1);
  EXPECT_EQ(chain->op()->str(), "ElementwiseChain");
  // In place: the chain's output takes the buffer of its X (the first Softmax's output).
  const int x = chain->inputs()->Get(0), y = chain->outputs()->Get(0);
  EXPECT_EQ(p->tensors()->Get(x)->offset(), p->tensors()->Get(y)->offset());

  ExpectSameOutputAsO0(model, fused, 8, 3 * 400, 0.0);
}

// End to end: a 1x1 Conv (+Relu) and a Sigmoid concatenated, then Tanh; the
// plan places both in the Concat's output, the engine runs it, and the result
// matches the reference and the plan where the Concat output is also a graph
// output (no elision).
OnnxModel ConcatModel(bool concat_is_output, const std::vector<float>& w, const std::vector<float>& bias) {
  OnnxModel m(13);
  m.Input("x", {1, 4, 4, 4});
  m.Initializer("W", {4, 4, 1, 1}, w);
  m.Initializer("B", {4}, bias);
  m.Node("Conv", {"x", "W", "B"}, {"conv"}, "conv");
  m.Node("Relu", {"conv"}, {"a"}, "relu");
  m.Node("Sigmoid", {"x"}, {"b"}, "sigmoid");
  testing::SetIntAttr(m.Node("Concat", {"a", "b"}, {"cat"}, "concat"), "axis", 1);
  m.Node("Tanh", {"cat"}, {"y"}, "tanh");
  m.Output("y", {1, 8, 4, 4});
  if (concat_is_output) m.Output("cat", {1, 8, 4, 4});
  return m;
}

TEST(BuilderTest, ConcatInputsWrittenInPlaceRunLikeTheReference) {
  std::mt19937 rng(5);
  const std::vector<float> w = RandomValues(&rng, 16, 1.f), bias = RandomValues(&rng, 4, 1.f);
  const std::vector<float> x = RandomValues(&rng, 64, 1.f);
  TempDir dir;
  BuildReport report, copied_report;
  std::vector<uint8_t> elided, copied;
  ASSERT_TRUE(BuildPlan(ConcatModel(false, w, bias).Save(dir.File("m.onnx")), {}, &elided, &report).ok());
  ASSERT_TRUE(BuildPlan(ConcatModel(true, w, bias).Save(dir.File("o.onnx")), {}, &copied, &copied_report).ok());
  EXPECT_EQ(report.concat_inputs_elided, 2);
  EXPECT_EQ(copied_report.concat_inputs_elided, 0);

  // In the plan: a at the Concat output's offset, b 256 bytes further.
  const plan::Plan* p = ReadPlan(elided);
  ASSERT_NE(p, nullptr);
  const plan::Node* concat = nullptr;
  for (const plan::Node* n : *p->nodes())
    if (n->op()->str() == "Concat") concat = n;
  ASSERT_NE(concat, nullptr);
  auto offset = [&](int32_t t) { return p->tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->offset(); };
  EXPECT_EQ(offset(concat->inputs()->Get(0)), offset(concat->outputs()->Get(0)));
  EXPECT_EQ(offset(concat->inputs()->Get(1)), offset(concat->outputs()->Get(0)) + 256);

  std::vector<float> want(128);
  for (int o = 0; o < 4; ++o) {
    for (int i = 0; i < 16; ++i) {
      float acc = bias[static_cast<size_t>(o)];
      for (int c = 0; c < 4; ++c) acc += w[static_cast<size_t>(o * 4 + c)] * x[static_cast<size_t>(c * 16 + i)];
      want[static_cast<size_t>(o * 16 + i)] = std::tanh(std::max(acc, 0.f));
      const float xi = x[static_cast<size_t>(o * 16 + i)];
      want[static_cast<size_t>(64 + o * 16 + i)] = std::tanh(1.f / (1.f + std::exp(-xi)));
    }
  }
  const std::vector<float> got = RunPlan(elided, x, want.size()), plain = RunPlan(copied, x, want.size());
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(plain.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-5) << "at " << i;
    EXPECT_EQ(got[i], plain[i]) << "at " << i;
  }
}

// A cpu-target plan carries its Convs' packed weights (derived constants,
// kernels/common/kernel.h) unless --no-prepack; the engine's kernels use them
// and the outputs are the same bit for bit.
TEST(BuilderTest, PrepackStoresDerivedConstantsThatRunTheSame) {
  TempDir dir;
  const std::string model = ResidualBlock().Save(dir.File("m.onnx"));
  BuildReport packed_report, plain_report;
  std::vector<uint8_t> packed, plain;
  ASSERT_TRUE(BuildPlan(model, NchwOptions(), &packed, &packed_report).ok());
  BuildOptions no_prepack = NchwOptions();
  no_prepack.prepack = false;
  ASSERT_TRUE(BuildPlan(model, no_prepack, &plain, &plain_report).ok());
  EXPECT_EQ(packed_report.derived_nodes, 3);
  EXPECT_GT(packed_report.derived_bytes, 0u);
  EXPECT_EQ(plain_report.derived_nodes, 0);
  EXPECT_GE(packed_report.constants_bytes, plain_report.constants_bytes + packed_report.derived_bytes);
  const plan::Plan* p = ReadPlan(packed);
  ASSERT_NE(p, nullptr);
  int derived = 0;
  for (const plan::Node* n : *p->nodes()) {
    if (n->derived() == nullptr) continue;
    for (const plan::DerivedConstant* d : *n->derived()) {
      EXPECT_NE(d->key()->str().find("conv"), std::string::npos) << d->key()->str();
      const plan::Tensor* t = p->tensors()->Get(d->tensor());
      EXPECT_EQ(t->storage(), plan::Storage::CONSTANT);
      EXPECT_EQ(t->dtype(), plan::DType::UINT8);
      ++derived;
    }
  }
  EXPECT_EQ(derived, 3);
  EXPECT_EQ(ReadPlan(plain)->nodes()->Get(0)->derived(), nullptr);

  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> x(8 * 36);
  for (float& v : x) v = dist(rng);
  const std::vector<float> want = RunPlan(plain, x, x.size());
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(RunPlan(packed, x, x.size()), want);
}

// Structured fuzzing: valid protobufs with nonsense in them (dims, types,
// attributes, wiring, opsets). Every build must return a Status, never crash;
// a refusal is clean, and a plan that builds loads and runs in the engine.
// FUZZ_SEED and FUZZ_TRIALS in the environment run a longer campaign.
struct Outcomes {
  int refused = 0;
  int ran = 0;
};

// A build either refuses the model with a clean status (one line, not an
// internal error) or writes a plan that the engine loads and runs.
void ExpectRefusedOrRuns(const Status& built, const std::vector<uint8_t>& plan, const KernelRegistry& registry,
                         const std::string& what, Outcomes* outcomes) {
  if (!built.ok()) {
    EXPECT_NE(built.code(), StatusCode::kInternal) << what << ": " << built.message();
    EXPECT_FALSE(built.message().empty()) << what;
    EXPECT_EQ(built.message().find('\n'), std::string::npos) << what << ": " << built.message();
    ++outcomes->refused;
    return;
  }
  std::shared_ptr<const Engine> engine;
  Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), registry, &engine);
  ASSERT_TRUE(s.ok()) << what << ": the engine refused a plan the builder wrote: " << s.message();
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({}, &ctx).ok()) << what;
  std::vector<std::vector<uint64_t>> inputs;
  for (const TensorDesc& in : engine->inputs()) {
    inputs.emplace_back((in.size_bytes + 7) / 8, 0);
    ASSERT_TRUE(ctx->SetInput(in.name, inputs.back().data(), in.size_bytes).ok()) << what << ": input " << in.name;
  }
  s = ctx->Run();
  EXPECT_TRUE(s.ok()) << what << ": a plan the builder wrote failed to run: " << s.message();
  ++outcomes->ran;
}

TEST(BuilderTest, MutatedModelsAreRefusedCleanlyOrRun) {
  TempDir dir;
  Outcomes outcomes;
  KernelRegistry fake = testing::MakeFakeRegistry();
  std::mt19937 rng(static_cast<unsigned>(getenv("FUZZ_SEED") ? atoi(getenv("FUZZ_SEED")) : 99));
  const int64_t kDims[] = {-7, -1, 0, 1, 2, 3, 4, 1 << 20, int64_t{1} << 40, INT64_MAX};
  const int trials = getenv("FUZZ_TRIALS") ? atoi(getenv("FUZZ_TRIALS")) : 300;
  for (int trial = 0; trial < trials; ++trial) {
    OnnxModel m = ConvBnRelu();
    onnx::GraphProto* g = m.proto().mutable_graph();
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < mutations; ++k) {
      switch (rng() % 7) {
        case 0: {
          auto* shape = g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
          shape->mutable_dim(static_cast<int>(rng() % 4))->set_dim_value(kDims[rng() % 10]);
          break;
        }
        case 1: {
          onnx::TensorProto* t = g->mutable_initializer(static_cast<int>(rng() % g->initializer_size()));
          if (t->dims_size()) t->set_dims(static_cast<int>(rng() % t->dims_size()), kDims[rng() % 10]);
          break;
        }
        case 2:
          g->mutable_initializer(static_cast<int>(rng() % g->initializer_size()))->set_data_type(rng() % 20);
          break;
        case 3: {
          onnx::NodeProto* n = g->mutable_node(static_cast<int>(rng() % g->node_size()));
          testing::SetIntsAttr(n, rng() % 2 ? "strides" : "pads", {kDims[rng() % 10], kDims[rng() % 10]});
          break;
        }
        case 4: {
          onnx::NodeProto* a = g->mutable_node(static_cast<int>(rng() % g->node_size()));
          onnx::NodeProto* b = g->mutable_node(static_cast<int>(rng() % g->node_size()));
          if (a->input_size() && b->input_size()) a->mutable_input(0)->swap(*b->mutable_input(0));
          break;
        }
        case 5:
          m.proto().mutable_opset_import(0)->set_version(static_cast<int64_t>(rng() % 20));
          break;
        default:
          g->mutable_node(static_cast<int>(rng() % g->node_size()))->set_op_type(rng() % 2 ? "Softmax" : "Relu");
          break;
      }
    }
    const std::string path = m.Save(dir.File("fuzz.onnx"));
    std::vector<uint8_t> bytes;
    const std::string what = "trial " + std::to_string(trial);
    ExpectRefusedOrRuns(BuildPlanWithRegistry(path, {}, fake, &bytes, nullptr), bytes, fake, what + " (fake kernels)",
                        &outcomes);
    ExpectRefusedOrRuns(BuildPlan(path, {}, &bytes, nullptr), bytes, KernelRegistry::Global(), what, &outcomes);
  }
  // The mutations must exercise both outcomes, or the test checks nothing.
  EXPECT_GT(outcomes.refused, 0);
  EXPECT_GT(outcomes.ran, 0);
}

// view(x.size(0), -1) as PyTorch exports it, with a symbolic batch: the
// Shape -> Gather -> Unsqueeze -> Concat chain folds with the real kernels,
// and the Gemm's shape comes from ONNX's per-node inference.
TEST(BuilderTest, ShapeChainWithRealKernels) {
  if (KernelRegistry::Global().FindByOp("Gather").empty() || KernelRegistry::Global().FindByOp("Concat").empty())
    GTEST_SKIP() << "tensor kernels not registered";
  TempDir dir;
  OnnxModel m(13);
  m.Input("x", {-1, 2, 3}, onnx::TensorProto::FLOAT, {"batch"});
  m.Initializer("w", {4, 6}, std::vector<float>(24, 0.5f));
  m.InitializerInt64("zero", {}, {0});
  m.InitializerInt64("axes", {1}, {0});
  m.InitializerInt64("minus_one", {1}, {-1});
  m.Node("Shape", {"x"}, {"shape"});
  m.Node("Gather", {"shape", "zero"}, {"n"});
  m.Node("Unsqueeze", {"n", "axes"}, {"n1"});
  testing::SetIntAttr(m.Node("Concat", {"n1", "minus_one"}, {"target"}), "axis", 0);
  m.Node("Reshape", {"x", "target"}, {"flat"});
  testing::SetIntAttr(m.Node("Gemm", {"flat", "w"}, {"y"}), "transB", 1);
  m.Output("y", {-1, 4});
  BuildOptions options;
  options.input_shapes["x"] = {5, 2, 3};
  std::vector<uint8_t> bytes;
  BuildReport report;
  Status s = BuildPlan(m.Save(dir.File("m.onnx")), options, &bytes, &report);
  ASSERT_TRUE(s.ok()) << s.message();
  const plan::Plan* p = ReadPlan(bytes);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->nodes()->size(), 2u);  // Reshape, Gemm
  EXPECT_EQ(p->nodes()->Get(0)->op()->str(), "Reshape");
  const plan::Tensor* y = p->tensors()->Get(p->outputs()->Get(0));
  ASSERT_EQ(y->shape()->size(), 2u);
  EXPECT_EQ(y->shape()->Get(0), 5);
  EXPECT_EQ(y->shape()->Get(1), 4);
}

}  // namespace
}  // namespace loom
