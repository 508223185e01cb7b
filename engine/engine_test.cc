// Loading and running plans: results, file and buffer loading, descriptions,
// bindings, threads, and run-time errors.
#include "loom/engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

#include "engine/testing/plan_writer.h"
#include "engine/testing/sample_plan.h"
#include "engine/testing/test_kernels.h"
#include "kernels/common/registry.h"
#include "schemas/plan_format.h"

namespace loom {
namespace {

using testing::PlanWriter;
using testing::SampleExpectedR;
using testing::SampleExpectedY;
using testing::SamplePlan;
using testing::TestKernelRegistry;

std::vector<float> RandomInput(uint32_t seed, size_t n = testing::kSampleSize) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(rng);
  return x;
}

std::shared_ptr<const Engine> LoadSample() {
  const std::vector<uint8_t> plan = SamplePlan();
  std::shared_ptr<const Engine> engine;
  const Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), TestKernelRegistry(), &engine);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return engine;
}

std::vector<float> ReadOutput(const ExecutionContext& ctx, const char* name) {
  const float* p = static_cast<const float*>(ctx.OutputData(name));
  return std::vector<float>(p, p + testing::kSampleSize);
}

std::string WriteTemp(const std::vector<uint8_t>& bytes, const char* tag) {
  std::string path = ::testing::TempDir() + "loom_engine_test_" + tag + "_" + std::to_string(getpid()) + ".plan";
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(EngineTest, RunsSamplePlanFromBuffer) {
  auto engine = LoadSample();
  ASSERT_NE(engine, nullptr);
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  const std::vector<float> x = RandomInput(1);
  ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
  const Status s = ctx->Run();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ReadOutput(*ctx, "r"), SampleExpectedR(x));
  EXPECT_EQ(ReadOutput(*ctx, "y"), SampleExpectedY(x));
  EXPECT_EQ(ctx->OutputData("nope"), nullptr);
  EXPECT_EQ(&ctx->engine(), engine.get());
}

TEST(EngineTest, RunsFromMappedFileAndRepeatedly) {
  const std::string path = WriteTemp(SamplePlan(), "mapped");
  std::shared_ptr<const Engine> engine;
  const Status s = Engine::Load(path, TestKernelRegistry(), &engine);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(engine->info().file_bytes, SamplePlan().size());
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({2}, &ctx).ok());
  for (uint32_t seed = 0; seed < 5; ++seed) {
    const std::vector<float> x = RandomInput(seed);
    ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
    ASSERT_TRUE(ctx->Run().ok());
    EXPECT_EQ(ReadOutput(*ctx, "y"), SampleExpectedY(x)) << "seed " << seed;
  }
  std::remove(path.c_str());
}

TEST(EngineTest, DescribesPlan) {
  auto engine = LoadSample();
  ASSERT_NE(engine, nullptr);
  ASSERT_EQ(engine->inputs().size(), 1u);
  EXPECT_EQ(engine->inputs()[0].name, "x");
  EXPECT_EQ(engine->inputs()[0].dtype, DType::kFloat32);
  EXPECT_EQ(engine->inputs()[0].shape, (Shape{2, 16}));
  EXPECT_EQ(engine->inputs()[0].size_bytes, 128u);
  ASSERT_EQ(engine->outputs().size(), 2u);
  EXPECT_EQ(engine->outputs()[1].name, "y");
  ASSERT_NE(engine->FindInput("x"), nullptr);
  EXPECT_EQ(engine->FindInput("y"), nullptr);
  ASSERT_NE(engine->FindOutput("r"), nullptr);
  ASSERT_EQ(engine->nodes().size(), 3u);
  const NodeDesc& add = engine->nodes()[0];
  EXPECT_EQ(add.name, "add");
  EXPECT_EQ(add.op, "Add");
  EXPECT_EQ(add.kernel, "test.Add");
  EXPECT_EQ(add.device, "cpu");
  EXPECT_EQ(add.inputs, (std::vector<std::string>{"x", "c"}));
  EXPECT_EQ(add.output_shapes, (std::vector<Shape>{{2, 16}}));
  EXPECT_EQ(engine->nodes()[1].fused, (std::vector<std::string>{"Identity"}));
  const PlanInfo& info = engine->info();
  EXPECT_EQ(info.format_major, kPlanFormatMajor);
  EXPECT_EQ(info.producer, "loom test");
  EXPECT_EQ(info.model_hash, "0123456789abcdef");
  EXPECT_EQ(info.constants_bytes, 128u);
  EXPECT_EQ(info.arena_bytes, 4u * 128u);
}

TEST(EngineTest, WritesBoundOutputsInPlace) {
  auto engine = LoadSample();
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  const std::vector<float> x = RandomInput(7);
  std::vector<float> r(testing::kSampleSize, -1.f), y(testing::kSampleSize, -1.f);
  ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * 4).ok());
  ASSERT_TRUE(ctx->SetOutput("r", r.data(), r.size() * 4).ok());
  ASSERT_TRUE(ctx->SetOutput("y", y.data(), y.size() * 4).ok());
  ASSERT_TRUE(ctx->Run().ok());
  EXPECT_EQ(r, SampleExpectedR(x));  // r is also read by the Scale node
  EXPECT_EQ(y, SampleExpectedY(x));
  EXPECT_EQ(ctx->OutputData("y"), y.data());
}

TEST(EngineTest, BindingErrorsNameTheTensor) {
  auto engine = LoadSample();
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  std::vector<float> x(testing::kSampleSize + 1, 0.f);

  Status s = ctx->Run();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("input 'x' is not bound"), std::string::npos) << s.message();

  s = ctx->SetInput("x", x.data(), 124);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("124 bytes, expected 128"), std::string::npos) << s.message();

  s = ctx->SetInput("nope", x.data(), 128);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("'nope'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'x'"), std::string::npos) << s.message();

  s = ctx->SetOutput("x", x.data(), 128);  // an input, not an output
  EXPECT_EQ(s.code(), StatusCode::kNotFound);

  s = ctx->SetOutput("y", nullptr, 128);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);

  s = ctx->SetInput("x", reinterpret_cast<const uint8_t*>(x.data()) + 1, 128);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("aligned"), std::string::npos) << s.message();
}

TEST(EngineTest, RejectsBadThreadCounts) {
  auto engine = LoadSample();
  std::unique_ptr<ExecutionContext> ctx;
  EXPECT_EQ(engine->CreateContext({0}, &ctx).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(engine->CreateContext({100000}, &ctx).code(), StatusCode::kInvalidArgument);
}

TEST(EngineTest, ContextKeepsEngineAlive) {
  std::unique_ptr<ExecutionContext> ctx;
  {
    auto engine = LoadSample();
    ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  }
  const std::vector<float> x = RandomInput(3);
  ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * 4).ok());
  ASSERT_TRUE(ctx->Run().ok());
  EXPECT_EQ(ReadOutput(*ctx, "y"), SampleExpectedY(x));
}

TEST(EngineTest, TwoContextsInTwoThreadsShareOneEngine) {
  auto engine = LoadSample();
  ASSERT_NE(engine, nullptr);
  int failures[2] = {0, 0};
  auto worker = [&](int id) {
    std::unique_ptr<ExecutionContext> ctx;
    if (!engine->CreateContext({id + 1}, &ctx).ok()) {
      failures[id] = 1000;
      return;
    }
    for (uint32_t it = 0; it < 300; ++it) {
      const std::vector<float> x = RandomInput(it * 2 + static_cast<uint32_t>(id));
      std::vector<float> y(x.size());
      if (!ctx->SetInput("x", x.data(), x.size() * 4).ok() || !ctx->SetOutput("y", y.data(), y.size() * 4).ok() ||
          !ctx->Run().ok() || y != SampleExpectedY(x)) {
        ++failures[id];
      }
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  EXPECT_EQ(failures[0], 0);
  EXPECT_EQ(failures[1], 0);
}

TEST(EngineTest, RunErrorNamesTheNode) {
  PlanWriter w;
  const int x = w.Activation("x", DType::kFloat32, {4});
  const int y = w.Activation("y", DType::kFloat32, {4});
  w.Input(x);
  w.AddNode("guard", "Check", "test.Check", {x}, {y});
  w.Output(y);
  const std::vector<uint8_t> plan = w.Finish();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Engine::LoadFromBuffer(plan.data(), plan.size(), TestKernelRegistry(), &engine).ok());
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  std::vector<float> in = {1, 2, 3, 4};
  ASSERT_TRUE(ctx->SetInput("x", in.data(), 16).ok());
  ASSERT_TRUE(ctx->Run().ok());
  in[0] = -1;
  const Status s = ctx->Run();
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  // The kernel's bare message, labelled once by the engine.
  EXPECT_EQ(s.message(), "guard (Check): first element is negative");
}

TEST(EngineTest, PrepareErrorNamesTheNodeOnce) {
  for (const std::string name : {"no", ""}) {
    PlanWriter w;
    const int x = w.Activation("x", DType::kFloat32, {4});
    const int y = w.Activation("y", DType::kFloat32, {4});
    w.Input(x);
    w.AddNode(name, "Refuse", "test.Refuse", {x}, {y});
    w.Output(y);
    const std::vector<uint8_t> plan = w.Finish();
    std::shared_ptr<const Engine> engine;
    const Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), TestKernelRegistry(), &engine);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported);
    const std::string label = name.empty() ? "node #0 (Refuse)" : "no (Refuse)";
    EXPECT_EQ(s.message(), label + ": unsupported refused by design");
  }
}

// Kernels are prepared on several threads; whatever their timing, the error
// is the first refusing node's in execution order, and a plan that loads
// runs the same.
TEST(EngineTest, PrepareThreadsKeepTheFirstErrorAndTheResults) {
  for (const bool refuse : {true, false}) {
    PlanWriter w;
    int v = w.Activation("x", DType::kFloat32, {4});
    w.Input(v);
    for (int i = 0; i < 12; ++i) {
      const int next = w.Activation("v" + std::to_string(i), DType::kFloat32, {4});
      const bool refusing = refuse && (i == 5 || i == 9);
      w.AddNode("n" + std::to_string(i), refusing ? "Refuse" : "Relu", refusing ? "test.Refuse" : "test.Relu", {v},
                {next});
      v = next;
    }
    w.Output(v);
    const std::vector<uint8_t> plan = w.Finish();
    for (const int threads : {1, 2, 4, 0}) {
      LoadOptions options;
      options.registry = &TestKernelRegistry();
      options.num_threads = threads;
      std::shared_ptr<const Engine> engine;
      const Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), options, &engine);
      if (refuse) {
        EXPECT_EQ(s.message(), "n5 (Refuse): unsupported refused by design") << threads << " threads";
        continue;
      }
      ASSERT_TRUE(s.ok()) << s.ToString();
      std::unique_ptr<ExecutionContext> ctx;
      ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
      const std::vector<float> in = {-1, 2, -3, 4};
      ASSERT_TRUE(ctx->SetInput("x", in.data(), 16).ok());
      ASSERT_TRUE(ctx->Run().ok());
      const float* out = static_cast<const float*>(ctx->OutputData("v11"));
      EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{0, 2, 0, 4})) << threads << " threads";
    }
  }
}

TEST(EngineTest, OmittedOptionalInputsArriveAsNull) {
  for (const bool use_placeholder : {true, false}) {
    PlanWriter w;
    const int x = w.Activation("x", DType::kFloat32, {3});
    const int none = w.Omitted();
    const int y = w.Activation("y", DType::kFloat32, {3});
    w.Input(x);
    w.AddNode("guard", "Check", "test.Check", {x, use_placeholder ? none : -1}, {y});
    w.Output(y);
    const std::vector<uint8_t> plan = w.Finish();
    std::shared_ptr<const Engine> engine;
    Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), TestKernelRegistry(), &engine);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(engine->nodes()[0].inputs[1], "");
    std::unique_ptr<ExecutionContext> ctx;
    ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
    const std::vector<float> in = {1, 2, 3};
    ASSERT_TRUE(ctx->SetInput("x", in.data(), 12).ok());
    s = ctx->Run();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(static_cast<const float*>(ctx->OutputData("y"))[2], 3.f);
  }
}

TEST(EngineTest, RunsScalarTensors) {
  PlanWriter w;
  const int x = w.Activation("x", DType::kFloat32, {});
  const int y = w.Activation("y", DType::kFloat32, {});
  w.Input(x);
  w.AddNode("relu", "Relu", "test.Relu", {x}, {y});
  w.Output(y);
  const std::vector<uint8_t> plan = w.Finish();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Engine::LoadFromBuffer(plan.data(), plan.size(), TestKernelRegistry(), &engine).ok());
  EXPECT_EQ(engine->inputs()[0].size_bytes, 4u);
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  const float in = -3.f;
  float out = 1.f;
  ASSERT_TRUE(ctx->SetInput("x", &in, 4).ok());
  ASSERT_TRUE(ctx->SetOutput("y", &out, 4).ok());
  ASSERT_TRUE(ctx->Run().ok());
  EXPECT_EQ(out, 0.f);
}

// The same graph on the real CPU kernels, once the kernel groups provide them.
TEST(EngineTest, RunsRealCpuKernels) {
  const KernelRegistry& global = KernelRegistry::Global();
  if (global.FindById("cpu.Add") == nullptr || global.FindById("cpu.Relu") == nullptr)
    GTEST_SKIP() << "cpu.Add or cpu.Relu not registered yet";
  PlanWriter w;
  const Shape shape = {3, 5};
  std::vector<float> c(15);
  for (int i = 0; i < 15; ++i) c[i] = static_cast<float>(i) - 7.f;
  const int x = w.Activation("x", DType::kFloat32, shape);
  const int ct = w.Constant<float>("c", shape, c);
  const int s = w.Activation("s", DType::kFloat32, shape);
  const int y = w.Activation("y", DType::kFloat32, shape);
  w.Input(x);
  w.AddNode("add", "Add", "cpu.Add", {x, ct}, {s});
  w.AddNode("relu", "Relu", "cpu.Relu", {s}, {y});
  w.Output(y);
  const std::vector<uint8_t> plan = w.Finish();
  std::shared_ptr<const Engine> engine;
  const Status st = Engine::LoadFromBuffer(plan.data(), plan.size(), &engine);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({2}, &ctx).ok());
  const std::vector<float> in = RandomInput(11, 15);
  ASSERT_TRUE(ctx->SetInput("x", in.data(), in.size() * 4).ok());
  ASSERT_TRUE(ctx->Run().ok());
  const float* out = static_cast<const float*>(ctx->OutputData("y"));
  for (int i = 0; i < 15; ++i) EXPECT_EQ(out[i], std::max(in[i] + c[i], 0.f)) << i;
}

}  // namespace
}  // namespace loom
