#include "builder/passes/fuse_gelu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "builder/quantize/graph_runner.h"
#include "builder/testing/ir_builder.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

enum class Form { kTorch, kHalfFirst, kHalfOfA, kMulByInverse };

// x[3,7] -> GELU written out in `form` -> y.
struct Written {
  IrBuilder b;
  int x, y, a;
  explicit Written(Form form) {
    x = b.Input("x", {3, 7});
    const int q = b.Tensor("q", {3, 7}), e = b.Tensor("e", {3, 7});
    a = b.Tensor("a", {3, 7});
    const int t = b.Tensor("t", {3, 7});
    y = b.Tensor("y", {3, 7});
    if (form == Form::kMulByInverse) {
      b.Node("Mul", {b.Const("inv_sqrt2", {}, {0.70710677f}), x}, {q}, "scale");
    } else {
      b.Node("Div", {x, b.Const("sqrt2", {}, {1.4142135f})}, {q}, "scale");
    }
    b.Node("Erf", {q}, {e}, "erf");
    b.Node("Add", {e, b.Const("one", {}, {1.f})}, {a}, "add");
    const int half = b.Const("half", {}, {0.5f});
    switch (form) {
      case Form::kTorch:
      case Form::kMulByInverse:
        b.Node("Mul", {x, a}, {t}, "mul");
        b.Node("Mul", {t, half}, {y}, "mul_half");
        break;
      case Form::kHalfFirst: {
        const int h = b.Tensor("h", {3, 7});
        b.Node("Mul", {x, half}, {h}, "half_x");
        b.Node("Mul", {h, a}, {y}, "mul");
        break;
      }
      case Form::kHalfOfA:
        b.Node("Mul", {a, half}, {t}, "half_a");
        b.Node("Mul", {x, t}, {y}, "mul");
        break;
    }
    b.Output(y);
  }
};

int RunPass(ir::Graph& g) {
  PassContext ctx;
  int changes = 0;
  EXPECT_TRUE(MakeFuseGelu()->Run(g, ctx, &changes).ok());
  g.Compact();
  EXPECT_TRUE(g.Validate().ok()) << g.Validate().message();
  return changes;
}

std::vector<float> Evaluate(const ir::Graph& g) {
  std::unique_ptr<quantize::GraphRunner> runner;
  EXPECT_TRUE(quantize::GraphRunner::Create(g, {}, KernelRegistry::Global(), 1, &runner).ok());
  if (!runner) return {};
  HostTensor x;
  x.dtype = DType::kFloat32;
  x.shape = {3, 7};
  x.data.resize(21 * sizeof(float));
  for (int i = 0; i < 21; ++i) x.as<float>()[i] = -5.f + 0.5f * static_cast<float>(i);
  EXPECT_TRUE(runner->Run({x}).ok());
  size_t count = 0;
  const float* y = runner->Float("y", &count);
  return y ? std::vector<float>(y, y + count) : std::vector<float>();
}

TEST(FuseGeluTest, EveryWrittenFormBecomesOneGelu) {
  for (Form form : {Form::kTorch, Form::kHalfFirst, Form::kHalfOfA, Form::kMulByInverse}) {
    SCOPED_TRACE(static_cast<int>(form));
    Written w(form);
    const std::vector<float> want = Evaluate(w.b.g);
    ASSERT_EQ(RunPass(w.b.g), 1);
    ASSERT_EQ(w.b.g.nodes().size(), 1u);
    const ir::Node& n = w.b.g.node(0);
    EXPECT_EQ(n.op, "Gelu");
    EXPECT_EQ(n.inputs, std::vector<int>{w.x});
    EXPECT_EQ(n.outputs, std::vector<int>{w.y});
    const std::vector<float> got = Evaluate(w.b.g);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-6f * (1.f + std::fabs(want[i]))) << i;
  }
}

TEST(FuseGeluTest, NotWithOtherConstantsOrSharedIntermediates) {
  Written shared(Form::kTorch);
  shared.b.Output(shared.a);
  EXPECT_EQ(RunPass(shared.b.g), 0);

  Written other(Form::kTorch);
  other.b.g.value(other.b.node(0).inputs[1]).data = ir::Buffer::CopyOf(std::vector<float>{1.5f}.data(), sizeof(float));
  EXPECT_EQ(RunPass(other.b.g), 0);
}

}  // namespace
}  // namespace passes
}  // namespace loom
