// A QDQ model (QuantizeLinear -> DequantizeLinear around a Conv whose int8
// weights are dequantized per channel, then DynamicQuantizeLinear) through the
// builder and the engine: the weights' DequantizeLinear folds into a float
// constant, the rest runs on the quant kernels and matches a naive reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/testing/onnx_models.h"
#include "kernels/common/registry.h"
#include "loom/engine.h"

namespace loom {
namespace {

using testing::OnnxModel;
using testing::TempDir;

template <typename T>
void AddInitializer(OnnxModel* m, const std::string& name, int elem_type, const std::vector<int64_t>& dims,
                    const std::vector<T>& values) {
  onnx::TensorProto* t = m->proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elem_type);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

uint8_t Saturate(float v, float lo, float hi) { return static_cast<uint8_t>(std::min(hi, std::max(lo, v))); }

TEST(QdqModelTest, BuildsFoldsWeightsAndRuns) {
  if (KernelRegistry::Global().FindByOp("QuantizeLinear").empty() ||
      KernelRegistry::Global().FindByOp("DynamicQuantizeLinear").empty() ||
      KernelRegistry::Global().FindByOp("Conv").empty())
    GTEST_SKIP() << "quant or nn kernels not registered";
  const float x_scale = 0.05f, w_scale[2] = {0.5f, 0.25f};
  const uint8_t x_zp = 128;
  const std::vector<int8_t> w_q = {2, -4, 7, 3};  // [2, 2, 1, 1]
  OnnxModel m(13);
  m.Input("x", {1, 2, 2, 2});
  m.Initializer("x_scale", {}, {x_scale});
  AddInitializer<uint8_t>(&m, "x_zp", onnx::TensorProto::UINT8, {}, {x_zp});
  AddInitializer<int8_t>(&m, "w_q", onnx::TensorProto::INT8, {2, 2, 1, 1}, w_q);
  m.Initializer("w_scale", {2}, {w_scale[0], w_scale[1]});
  AddInitializer<int8_t>(&m, "w_zp", onnx::TensorProto::INT8, {2}, {0, 1});
  m.Node("QuantizeLinear", {"x", "x_scale", "x_zp"}, {"xq"}, "quant");
  m.Node("DequantizeLinear", {"xq", "x_scale", "x_zp"}, {"xd"}, "dequant");
  testing::SetIntAttr(m.Node("DequantizeLinear", {"w_q", "w_scale", "w_zp"}, {"w"}, "dequant_w"), "axis", 0);
  m.Node("Conv", {"xd", "w"}, {"c"}, "conv");
  m.Node("DynamicQuantizeLinear", {"c"}, {"y", "y_scale", "y_zp"}, "dyn");
  m.Output("y", {1, 2, 2, 2}, onnx::TensorProto::UINT8);
  m.Output("y_scale", {});
  m.Output("y_zp", {}, onnx::TensorProto::UINT8);
  TempDir dir;
  std::vector<uint8_t> plan;
  Status s = BuildPlan(m.Save(dir.File("qdq.onnx")), {}, &plan, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();

  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Engine::LoadFromBuffer(plan.data(), plan.size(), KernelRegistry::Global(), &engine).ok());
  std::vector<std::string> ops;
  for (const NodeDesc& n : engine->nodes()) ops.push_back(n.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"QuantizeLinear", "DequantizeLinear", "Conv", "DynamicQuantizeLinear"}));

  const std::vector<float> x = {-1.f, 0.125f, 2.5f, 7.f, 0.f, -6.6f, 0.075f, 1.f};  // [1, 2, 2, 2]
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({}, &ctx).ok());
  ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
  s = ctx->Run();
  ASSERT_TRUE(s.ok()) << s.message();

  // Naive reference: fake-quantize x, 1x1 conv with the dequantized weights,
  // then DynamicQuantizeLinear.
  std::vector<float> xd(8), c(8);
  for (size_t i = 0; i < 8; ++i) {
    const float q = Saturate(std::rint(x[i] / x_scale) + x_zp, 0.f, 255.f);
    xd[i] = (q - x_zp) * x_scale;
  }
  const float w_zp[2] = {0.f, 1.f};
  for (int o = 0; o < 2; ++o) {
    for (int p = 0; p < 4; ++p) {
      float acc = 0.f;
      for (int i = 0; i < 2; ++i) acc += xd[i * 4 + p] * ((w_q[o * 2 + i] - w_zp[o]) * w_scale[o]);
      c[o * 4 + p] = acc;
    }
  }
  float lo = 0.f, hi = 0.f;
  for (float v : c) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float scale = (hi == lo ? 1.f : hi - lo) / 255.f;
  const float zp = std::rint(std::min(255.f, std::max(0.f, 0.f - lo / scale)));
  std::vector<uint8_t> expected(8);
  for (size_t i = 0; i < 8; ++i) expected[i] = Saturate(std::rint(c[i] / scale) + zp, 0.f, 255.f);

  std::vector<uint8_t> y(8);
  std::memcpy(y.data(), ctx->OutputData("y"), 8);
  float y_scale = 0.f;
  std::memcpy(&y_scale, ctx->OutputData("y_scale"), sizeof(float));
  EXPECT_EQ(y, expected);
  EXPECT_FLOAT_EQ(y_scale, scale);
  EXPECT_EQ(*static_cast<const uint8_t*>(ctx->OutputData("y_zp")), static_cast<uint8_t>(zp));
}

}  // namespace
}  // namespace loom
