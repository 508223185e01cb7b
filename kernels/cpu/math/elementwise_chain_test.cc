// ElementwiseChain against the single-op CPU kernels run one after another:
// every step kind, scalar / per-channel / full operands in both orders, sizes
// around the block size, several threads. The results must be bit-equal (NaN
// equal to NaN): each step runs the same float operations as its own kernel.
// The vector math path is the process's: CMake runs the ElementwiseChain
// tests once per path (LOOM_CPU_ISA).
#include "kernels/cpu/math/elementwise_chain.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

// One step: the chain's encoding and the single op that does the same.
struct TestStep {
  std::string op;
  float p0 = 0.f, p1 = 0.f;  // the chain's params (a binary step's scalar in p0)
  Attributes attrs;          // the single op's attributes
  int operand = 0;           // binary steps: chain input, 0 for the scalar p0
  bool swapped = false;
};

TestStep Unary(const std::string& op, float p0 = 0.f, float p1 = 0.f, Attributes attrs = {}) {
  return {op, p0, p1, std::move(attrs), 0, false};
}
TestStep Binary(const std::string& op, int operand, bool swapped, float scalar = 0.f) {
  return {op, scalar, 0.f, {}, operand, swapped};
}

Attributes Program(const std::vector<TestStep>& steps) {
  Attribute names;
  names.name = "steps";
  names.kind = Attribute::Kind::kStrings;
  std::vector<int64_t> operands, swapped;
  std::vector<float> params;
  for (const TestStep& s : steps) {
    names.strings.push_back(s.op);
    operands.push_back(s.operand);
    swapped.push_back(s.swapped ? 1 : 0);
    params.push_back(s.p0);
    params.push_back(s.p1);
  }
  Attributes a;
  a.Set(names);
  a.SetInts("operands", operands);
  a.SetInts("swapped", swapped);
  a.SetFloats("params", params);
  return a;
}

RunOptions LoomDomain() {
  RunOptions o;
  o.domain = "loom";
  return o;
}
const RunOptions kLoom = LoomDomain();

// The chain over inputs[0] with operands inputs[1...], and the single ops.
void ExpectChainMatches(const std::vector<TestStep>& steps, const std::vector<TestTensor>& inputs, int threads = 1) {
  const Shape& shape = inputs[0].shape;
  RunOptions loom = kLoom;
  loom.threads = threads;
  TestTensor got;
  Status s = RunOne("ElementwiseChain", Program(steps), inputs, DType::kFloat32, shape, &got, loom);
  ASSERT_TRUE(s.ok()) << s.message();

  TestTensor cur = inputs[0];
  for (const TestStep& step : steps) {
    std::vector<TestTensor> in = {cur};
    if (step.op == "Clip") {
      in.push_back(TestTensor::Const<float>({}, {step.p0}));
      in.push_back(TestTensor::Const<float>({}, {step.p1}));
    } else if (IsChainBinaryOp(step.op)) {
      in.push_back(step.operand > 0 ? inputs[static_cast<size_t>(step.operand)]
                                    : TestTensor::Const<float>({}, {step.p0}));
      if (step.swapped) std::swap(in[0], in[1]);
    }
    TestTensor next;
    s = RunOne(step.op, step.attrs, in, DType::kFloat32, shape, &next);
    ASSERT_TRUE(s.ok()) << step.op << ": " << s.message();
    cur = next;
  }
  const std::vector<float> want = cur.As<float>(), have = got.As<float>();
  ASSERT_EQ(have.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const bool same = std::memcmp(&have[i], &want[i], sizeof(float)) == 0 || (have[i] != have[i] && want[i] != want[i]);
    ASSERT_TRUE(same) << steps[0].op << "...: element " << i << " is " << have[i] << ", expected " << want[i];
  }
}

TestTensor Random(const Shape& shape, double lo, double hi, uint32_t seed) {
  return TestTensor::Of<float>(shape, RandomValues<float>(NumElements(shape), lo, hi, seed));
}

// X shapes of 1, 17, the block size - 1, + 0 and + 1, and many blocks elements.
const std::vector<Shape> kShapes = {{1, 1, 1},   {1, 1, 17},  {1, 3, kChainBlock / 3}, {1, 2, kChainBlock / 2},
                                    {1, 5, 205}, {3, 7, 1000}};

TEST(ElementwiseChainTest, EveryUnaryStep) {
  Attributes leaky, hsig, elu, swish, gelu_tanh;
  leaky.SetFloat("alpha", 0.3f);
  hsig.SetFloat("alpha", 0.25f);
  hsig.SetFloat("beta", 0.4f);
  elu.SetFloat("alpha", 1.5f);
  swish.SetFloat("alpha", 1.f);
  gelu_tanh.SetString("approximate", "tanh");
  const std::vector<TestStep> unary = {
      Unary("Relu"),
      Unary("Sigmoid"),
      Unary("Tanh"),
      Unary("Exp"),
      Unary("Log"),
      Unary("Abs"),
      Unary("Neg"),
      Unary("Sqrt"),
      Unary("Reciprocal"),
      Unary("Erf"),
      Unary("Floor"),
      Unary("Ceil"),
      Unary("HardSwish"),
      Unary("Gelu"),
      Unary("Softplus"),
      Unary("Elu", 1.f),
      Unary("Clip", -0.5f, 0.75f),
      Unary("LeakyRelu", 0.3f, 0.f, leaky),
      Unary("HardSigmoid", 0.25f, 0.4f, hsig),
      Unary("Elu", 1.5f, 0.f, elu),
      Unary("Gelu", 1.f, 0.f, gelu_tanh),
  };
  for (const Shape& shape : kShapes) {
    const TestTensor x = Random(shape, -6, 6, 1);
    for (const TestStep& step : unary) {
      // Alone, and after a Mul so that the step reads the block in place.
      ExpectChainMatches({step}, {x});
      ExpectChainMatches({Binary("Mul", 0, false, 0.7f), step}, {x});
    }
  }
}

// Swish as ONNX (opset 24) and Loom's domain have it: the unary table's row.
TEST(ElementwiseChainTest, SwishStep) {
  const TestTensor x = Random({2, 700}, -8, 8, 2);
  TestTensor want, got;
  Attributes alpha;
  alpha.SetFloat("alpha", 1.5f);
  ASSERT_TRUE(RunOne("Swish", alpha, {x}, DType::kFloat32, x.shape, &want, kLoom).ok());
  ASSERT_TRUE(
      RunOne("ElementwiseChain", Program({Unary("Swish", 1.5f)}), {x}, DType::kFloat32, x.shape, &got, kLoom).ok());
  EXPECT_EQ(std::memcmp(got.bytes.data(), want.bytes.data(), got.bytes.size()), 0);
}

TEST(ElementwiseChainTest, BinaryStepsEveryOperandKindAndOrder) {
  for (const Shape& shape : kShapes) {
    const TestTensor x = Random(shape, -3, 3, 3);
    std::vector<TestTensor> operands = {
        Random({}, 0.5, 2, 4),             // scalar tensor
        Random({shape[1], 1}, 0.5, 2, 5),  // per channel, axis 1
        Random({shape[2]}, 0.5, 2, 6),     // per channel, last axis
        Random(shape, 0.5, 2, 7),          // full
    };
    if (shape[0] == 1) operands.push_back(Random({shape[1], shape[2]}, -2, 2, 8));  // full, lower rank
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"}) {
      for (bool swapped : {false, true}) {
        ExpectChainMatches({Binary(op, 0, swapped, 1.75f), Unary("Neg")}, {x});
        for (const TestTensor& b : operands) ExpectChainMatches({Binary(op, 1, swapped), Unary("Abs")}, {x, b});
      }
    }
    for (float e : {2.f, 0.5f, -1.f}) ExpectChainMatches({Unary("Abs"), Binary("Pow", 0, false, e)}, {x});
  }
}

// A longer program with two tensor operands, one used twice; NaN and inf in X.
TEST(ElementwiseChainTest, LongChainLargeAndThreaded) {
  const Shape shape = {2, 6, 9001};
  TestTensor x = Random(shape, -4, 4, 9);
  float* xv = reinterpret_cast<float*>(x.bytes.data());
  xv[5] = std::numeric_limits<float>::quiet_NaN();
  xv[6] = std::numeric_limits<float>::infinity();
  xv[7] = -std::numeric_limits<float>::infinity();
  const TestTensor scale = Random({6, 1}, 0.5, 1.5, 10), full = Random(shape, -1, 1, 11);
  Attributes gelu_tanh;
  gelu_tanh.SetString("approximate", "tanh");
  const std::vector<TestStep> steps = {
      Binary("Mul", 1, false),
      Binary("Add", 2, true),
      Unary("Relu"),
      Binary("Sub", 0, true, 3.f),
      Unary("Sigmoid"),
      Binary("Max", 2, false),
      Unary("Clip", 0.f, std::numeric_limits<float>::infinity()),
      Binary("Pow", 0, false, 2.f),
      Unary("Gelu", 1.f, 0.f, gelu_tanh),
      Binary("Div", 1, true),
      Unary("Tanh"),
  };
  for (int threads : {1, 3}) ExpectChainMatches(steps, {x, scale, full}, threads);
}

TEST(ElementwiseChainTest, ClassifiesOperands) {
  int64_t c = 0, inner = 0;
  EXPECT_EQ(ClassifyChainOperand({}, {2, 3}, &c, &inner), ChainOperand::kScalar);
  EXPECT_EQ(ClassifyChainOperand({1, 1, 1}, {2, 3}, &c, &inner), ChainOperand::kNone);  // rank grows
  EXPECT_EQ(ClassifyChainOperand({3, 4}, {2, 3, 4}, &c, &inner), ChainOperand::kNone);
  EXPECT_EQ(ClassifyChainOperand({1, 3, 4}, {1, 3, 4}, &c, &inner), ChainOperand::kFull);
  EXPECT_EQ(ClassifyChainOperand({3, 1, 1}, {2, 3, 4, 5}, &c, &inner), ChainOperand::kChannel);
  EXPECT_EQ(c, 3);
  EXPECT_EQ(inner, 20);
  EXPECT_EQ(ClassifyChainOperand({2, 1}, {2, 3}, &c, &inner), ChainOperand::kChannel);
  EXPECT_EQ(ClassifyChainOperand({2, 3}, {2, 1}, &c, &inner), ChainOperand::kNone);
}

// Malformed programs and nodes: a clean error, never a crash.
TEST(ElementwiseChainTest, RefusesBadPrograms) {
  const TestTensor x = Random({2, 3}, -1, 1, 12), b = Random({2, 3}, -1, 1, 13);
  const Attributes relu = Program({Unary("Relu")});
  auto run = [&](const Attributes& attrs, const std::vector<TestTensor>& in, const Shape& out = {2, 3}) {
    TestTensor y;
    return RunOne("ElementwiseChain", attrs, in, DType::kFloat32, out, &y, kLoom);
  };
  auto invalid = [&](const Attributes& attrs, const std::vector<TestTensor>& in, const std::string& what) {
    const Status s = run(attrs, in);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << what << ": " << s.message();
    EXPECT_FALSE(s.message().empty());
  };
  EXPECT_TRUE(run(relu, {x}).ok());
  invalid({}, {x}, "no steps");
  Attributes text;
  text.SetString("steps", "Relu");
  invalid(text, {x}, "steps a string");
  invalid(Program({Unary("Conv")}), {x}, "unknown op");
  invalid(Program({Unary("IsNaN")}), {x}, "bool output");
  invalid(Program({Binary("Add", 2, false)}), {x, b}, "operand out of range");
  invalid(Program({Binary("Add", -1, false)}), {x}, "negative operand");
  invalid(Program({Unary("Relu")}), {x, b}, "unused input");
  invalid(Program({Binary("Add", 1, false)}), {x, Random({3, 2}, -1, 1, 14)}, "operand shape");
  TestStep relu_operand = Unary("Relu");
  relu_operand.operand = 1;
  invalid(Program({relu_operand, Binary("Add", 1, false)}), {x, b}, "unary step with an operand");
  Attributes bad = relu;
  bad.SetInts("swapped", {2});
  invalid(bad, {x}, "swapped 2");
  bad = relu;
  bad.SetInts("operands", {0, 0});
  invalid(bad, {x}, "operands too long");
  bad = relu;
  bad.SetFloats("params", {1.f});
  invalid(bad, {x}, "params too short");
  EXPECT_EQ(run(relu, {x}, {3, 2}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(run(relu, {TestTensor::Of<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})}).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace math
}  // namespace loom
