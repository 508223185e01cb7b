// `loom build --int8` through the builder library: a small Conv/Relu/Add/Gemm
// model calibrated from .npy files, run by the engine against the float plan;
// the calibration cache; keep-fp32; the errors of bad calibration input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/testing/onnx_models.h"
#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace {

using testing::OnnxModel;
using testing::TempDir;

std::vector<float> Random(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// x[1,3,8,8] -> Conv(3->8, 3x3, pad 1) -> Relu -> Conv(8->8, 1x1) -> Add(relu) -> GlobalAveragePool
//   -> Flatten -> Gemm(8->4) -> y
std::string SaveModel(const TempDir& dir) {
  OnnxModel m(13);
  m.Input("x", {1, 3, 8, 8});
  m.Initializer("w1", {8, 3, 3, 3}, Random(8 * 27, 1, -0.5f, 0.5f));
  m.Initializer("b1", {8}, Random(8, 2, -0.1f, 0.1f));
  m.Initializer("w2", {8, 8, 1, 1}, Random(64, 3, -0.5f, 0.5f));
  m.Initializer("b2", {8}, Random(8, 4, -0.1f, 0.1f));
  m.Initializer("wg", {4, 8}, Random(32, 5, -1.f, 1.f));
  m.Initializer("bg", {4}, Random(4, 6, -0.1f, 0.1f));
  testing::SetIntsAttr(m.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c1"}, {"r1"}, "relu1");
  m.Node("Conv", {"r1", "w2", "b2"}, {"c2"}, "conv2");
  m.Node("Add", {"c2", "r1"}, {"s"}, "add");
  m.Node("GlobalAveragePool", {"s"}, {"p"}, "pool");
  m.Node("Flatten", {"p"}, {"f"}, "flatten");
  testing::SetIntAttr(m.Node("Gemm", {"f", "wg", "bg"}, {"y"}, "fc"), "transB", 1);
  m.Output("y", {1, 4});
  return m.Save(dir.File("model.onnx"));
}

void SaveCalibration(const std::string& dir, int samples, uint32_t seed) {
  std::filesystem::create_directories(dir);
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = {samples, 3, 8, 8};
  const std::vector<float> v = Random(static_cast<size_t>(samples) * 192, seed, -1.f, 1.f);
  t.data.assign(reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data() + v.size()));
  ASSERT_TRUE(WriteNpy(dir + "/samples.npy", t).ok());
}

std::vector<float> RunPlan(const std::vector<uint8_t>& plan, const std::vector<float>& x) {
  std::shared_ptr<const Engine> engine;
  EXPECT_TRUE(Engine::LoadFromBuffer(plan.data(), plan.size(), &engine).ok());
  if (!engine) return {};
  std::unique_ptr<ExecutionContext> ctx;
  EXPECT_TRUE(engine->CreateContext({}, &ctx).ok());
  std::vector<float> y(4);
  EXPECT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
  EXPECT_TRUE(ctx->SetOutput("y", y.data(), y.size() * sizeof(float)).ok());
  Status s = ctx->Run();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return y;
}

BuildOptions Int8(const std::string& calib) {
  BuildOptions o;
  o.int8.enabled = true;
  o.int8.calib_dir = calib;
  o.int8.progress = false;
  return o;
}

TEST(QuantizerTest, Int8PlanTracksFloatPlan) {
  TempDir dir;
  const std::string model = SaveModel(dir);
  SaveCalibration(dir.File("calib"), 16, 7);
  std::vector<uint8_t> fp32, int8;
  ASSERT_TRUE(BuildPlan(model, BuildOptions(), &fp32, nullptr).ok());
  for (const char* method : {"minmax", "percentile", "entropy"}) {
    BuildOptions o = Int8(dir.File("calib"));
    o.int8.calib_method = method;
    BuildReport report;
    Status s = BuildPlan(model, o, &int8, &report);
    ASSERT_TRUE(s.ok()) << method << ": " << s.ToString();
    EXPECT_TRUE(report.int8.enabled);
    EXPECT_EQ(report.int8.samples, 16);
    EXPECT_GT(report.int8.int8_nodes, 0) << method;
    ASSERT_EQ(report.int8.outputs.size(), 1u);
    EXPECT_GT(report.int8.outputs[0].cosine, 0.98) << method;
    int measured = 0;
    for (const Int8LayerReport& l : report.int8.layers)
      if (l.precision == "int8" && !std::isnan(l.snr_db)) {
        ++measured;
        EXPECT_GT(l.snr_db, 15.0) << method << " " << l.node;
      }
    EXPECT_GT(measured, 0) << method;
    const std::vector<float> x = Random(192, 99, -1.f, 1.f);
    const std::vector<float> a = RunPlan(fp32, x), b = RunPlan(int8, x);
    ASSERT_EQ(a.size(), b.size());
    double dot = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < a.size(); ++i) dot += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
    EXPECT_GT(dot / std::sqrt(aa * bb), 0.98) << method;
  }
}

TEST(QuantizerTest, CacheIsWrittenThenReadAndRefusedForAnotherModel) {
  TempDir dir;
  const std::string model = SaveModel(dir);
  SaveCalibration(dir.File("calib"), 8, 3);
  BuildOptions o = Int8(dir.File("calib"));
  o.int8.calib_cache = dir.File("ranges.txt");
  std::vector<uint8_t> first, second;
  BuildReport report;
  ASSERT_TRUE(BuildPlan(model, o, &first, &report).ok());
  EXPECT_FALSE(report.int8.ranges_from_cache);
  ASSERT_TRUE(std::filesystem::exists(o.int8.calib_cache));
  o.int8.calib_dir.clear();  // the cache alone is enough
  ASSERT_TRUE(BuildPlan(model, o, &second, &report).ok());
  EXPECT_TRUE(report.int8.ranges_from_cache);
  EXPECT_EQ(first, second);

  // The same cache for a changed model.
  OnnxModel other(13);
  other.Input("x", {1, 3, 8, 8});
  other.Node("Relu", {"x"}, {"y"});
  other.Output("y", {1, 3, 8, 8});
  const std::string other_path = other.Save(dir.File("other.onnx"));
  Status s = BuildPlan(other_path, o, &second, &report);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("was made for model"), std::string::npos) << s.ToString();
}

TEST(QuantizerTest, KeepFp32LeavesTheNodeFloat) {
  TempDir dir;
  const std::string model = SaveModel(dir);
  SaveCalibration(dir.File("calib"), 4, 5);
  BuildOptions o = Int8(dir.File("calib"));
  o.int8.keep_fp32 = {"fc"};
  std::vector<uint8_t> plan;
  BuildReport report;
  ASSERT_TRUE(BuildPlan(model, o, &plan, &report).ok());
  bool found = false;
  for (const Int8LayerReport& l : report.int8.layers)
    if (l.node == "fc") {
      found = true;
      EXPECT_EQ(l.precision, "fp32");
      EXPECT_EQ(l.reason, "--keep-fp32");
    }
  EXPECT_TRUE(found);
  o.int8.keep_fp32 = {"no_such_node"};
  Status s = BuildPlan(model, o, &plan, &report);
  EXPECT_NE(s.message().find("no node named 'no_such_node'"), std::string::npos) << s.ToString();
}

TEST(QuantizerTest, MinSnrKeepsNoisyLayersFloat) {
  TempDir dir;
  const std::string model = SaveModel(dir);
  SaveCalibration(dir.File("calib"), 4, 5);
  BuildOptions o = Int8(dir.File("calib"));
  o.int8.min_snr_db = 1000.0;  // no int8 layer is that exact
  std::vector<uint8_t> plan;
  BuildReport report;
  ASSERT_TRUE(BuildPlan(model, o, &plan, &report).ok());
  int kept = 0;
  for (const Int8LayerReport& l : report.int8.layers)
    if (l.precision == "fp32") {
      ++kept;
      EXPECT_NE(l.reason.find("--int8-min-snr"), std::string::npos) << l.reason;
    }
  EXPECT_GT(kept, 0);
}

TEST(QuantizerTest, BadCalibrationInputIsOneClearError) {
  TempDir dir;
  const std::string model = SaveModel(dir);
  std::vector<uint8_t> plan;
  auto error = [&](BuildOptions o) {
    Status s = BuildPlan(model, o, &plan, nullptr);
    EXPECT_FALSE(s.ok());
    return s.message();
  };
  BuildOptions o = Int8("");
  EXPECT_NE(error(o).find("--int8 needs calibration data"), std::string::npos);
  std::filesystem::create_directories(dir.File("empty"));
  EXPECT_NE(error(Int8(dir.File("empty"))).find("holds no .npy files"), std::string::npos);
  // Wrong shape.
  std::filesystem::create_directories(dir.File("shape"));
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = {2, 3, 4, 4};
  t.data.assign(2 * 3 * 16 * 4, 0);
  ASSERT_TRUE(WriteNpy(dir.File("shape/a.npy"), t).ok());
  EXPECT_NE(error(Int8(dir.File("shape"))).find("expected Nx3x8x8"), std::string::npos);
  // Wrong dtype.
  std::filesystem::create_directories(dir.File("dtype"));
  t.dtype = DType::kFloat64;
  t.shape = {1, 3, 8, 8};
  t.data.assign(192 * 8, 0);
  ASSERT_TRUE(WriteNpy(dir.File("dtype/a.npy"), t).ok());
  EXPECT_NE(error(Int8(dir.File("dtype"))).find("dtype float64"), std::string::npos);
  // NaN.
  std::filesystem::create_directories(dir.File("nan"));
  t.dtype = DType::kFloat32;
  std::vector<float> v(192, 0.5f);
  v[17] = std::nanf("");
  t.data.assign(reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data() + v.size()));
  ASSERT_TRUE(WriteNpy(dir.File("nan/a.npy"), t).ok());
  EXPECT_NE(error(Int8(dir.File("nan"))).find("NaN"), std::string::npos);
  // Unknown method.
  o = Int8(dir.File("nan"));
  o.int8.calib_method = "average";
  EXPECT_NE(error(o).find("--calib-method 'average'"), std::string::npos);
}

}  // namespace
}  // namespace loom
