#include "builder/passes/fuse_layer_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "builder/quantize/graph_runner.h"
#include "builder/testing/ir_builder.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

// x[2,5,8] -> the decomposed layer norm torch exports before opset 17 -> y.
struct Decomposed {
  IrBuilder b;
  int x, d, y, mean;
  Decomposed(bool affine, bool bias) {
    x = b.Input("x", {2, 5, 8});
    const int m = b.Tensor("mean", {2, 5, 1});
    d = b.Tensor("d", {2, 5, 8});
    const int sq = b.Tensor("sq", {2, 5, 8}), var = b.Tensor("var", {2, 5, 1});
    const int ve = b.Tensor("ve", {2, 5, 1}), sd = b.Tensor("sd", {2, 5, 1}), n = b.Tensor("n", {2, 5, 8});
    mean = b.Node("ReduceMean", {x}, {m}, "mean");
    b.node(mean).attrs.SetInts("axes", {-1});
    b.Node("Sub", {x, m}, {d}, "sub");
    b.Node("Pow", {d, b.Const("two", {}, {2.f})}, {sq}, "pow");
    const int v = b.Node("ReduceMean", {sq}, {var}, "var");
    b.node(v).attrs.SetInts("axes", {2});
    b.Node("Add", {var, b.Const("eps", {}, {1e-6f})}, {ve}, "add_eps");
    b.Node("Sqrt", {ve}, {sd}, "sqrt");
    b.Node("Div", {d, sd}, {n}, "div");
    y = n;
    if (affine) {
      std::vector<float> g(8), beta(8);
      for (int i = 0; i < 8; ++i) g[i] = 0.5f + 0.1f * i, beta[i] = 0.05f * i - 0.2f;
      const int scaled = b.Tensor("scaled", {2, 5, 8});
      b.Node("Mul", {b.Const("gamma", {8}, g), n}, {scaled}, "mul");
      y = scaled;
      if (bias) {
        const int out = b.Tensor("out", {2, 5, 8});
        b.Node("Add", {scaled, b.Const("beta", {8}, beta)}, {out}, "add");
        y = out;
      }
    }
    b.Output(y);
  }
};

int RunPass(ir::Graph& g) {
  PassContext ctx;
  int changes = 0;
  EXPECT_TRUE(MakeFuseLayerNorm()->Run(g, ctx, &changes).ok());
  g.Compact();
  EXPECT_TRUE(g.Validate().ok()) << g.Validate().message();
  return changes;
}

// The graph's output on a random x, through the engine.
std::vector<float> Evaluate(const ir::Graph& g, const std::string& output) {
  std::unique_ptr<quantize::GraphRunner> runner;
  EXPECT_TRUE(quantize::GraphRunner::Create(g, {}, KernelRegistry::Global(), 1, &runner).ok());
  if (!runner) return {};
  HostTensor x;
  x.dtype = DType::kFloat32;
  x.shape = {2, 5, 8};
  x.data.resize(80 * sizeof(float));
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(1.f, 2.f);
  for (size_t i = 0; i < 80; ++i) x.as<float>()[i] = dist(rng);
  EXPECT_TRUE(runner->Run({x}).ok());
  size_t count = 0;
  const float* y = runner->Float(output, &count);
  return y ? std::vector<float>(y, y + count) : std::vector<float>();
}

TEST(FuseLayerNormTest, ReplacesTheChainWithOneNode) {
  for (const bool bias : {false, true}) {
    Decomposed l(true, bias);
    const std::string output = l.b.g.value(l.y).name;
    const std::vector<float> want = Evaluate(l.b.g, output);
    ASSERT_EQ(RunPass(l.b.g), 1);
    ASSERT_EQ(l.b.g.nodes().size(), 1u);
    const ir::Node& n = l.b.g.node(0);
    EXPECT_EQ(n.op, "LayerNormalization");
    EXPECT_EQ(n.inputs.size(), bias ? 3u : 2u);
    EXPECT_EQ(n.inputs[0], l.x);
    EXPECT_EQ(n.outputs, std::vector<int>{l.y});
    EXPECT_FLOAT_EQ(n.attrs.GetFloat("epsilon", 0), 1e-6f);
    EXPECT_EQ(n.attrs.GetInt("axis", 0), -1);
    const std::vector<float> got = Evaluate(l.b.g, output);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f * (1.f + std::fabs(want[i]))) << i;
  }
}

TEST(FuseLayerNormTest, WithoutScaleGetsOnes) {
  Decomposed l(false, false);
  ASSERT_EQ(RunPass(l.b.g), 1);
  const ir::Node& n = l.b.g.node(0);
  ASSERT_EQ(n.inputs.size(), 2u);
  EXPECT_EQ(l.b.ConstValues(n.inputs[1]), std::vector<float>(8, 1.f));
}

TEST(FuseLayerNormTest, NotWhenAnIntermediateIsUsedElsewhere) {
  Decomposed shared(true, true);
  shared.b.Output(shared.d);  // d is also a graph output
  EXPECT_EQ(RunPass(shared.b.g), 0);

  Decomposed other_axis(true, true);
  other_axis.b.node(other_axis.mean).attrs.SetInts("axes", {1});
  EXPECT_EQ(RunPass(other_axis.b.g), 0);
}

}  // namespace
}  // namespace passes
}  // namespace loom
