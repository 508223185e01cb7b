#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/act_test_util.h"

namespace loom {
namespace int8 {
namespace {

using namespace test;  // NOLINT

// Each output element, found by its coordinate along `axis`, is its input's
// element rescaled to the output's parameters.
std::vector<int8_t> NaiveConcat(const std::vector<TestTensor>& inputs, int axis, float ys, int64_t yz) {
  Shape out = inputs[0].shape;
  out[axis] = 0;
  for (const TestTensor& t : inputs) out[axis] += t.shape[axis];
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out[d];
  for (size_t d = axis + 1; d < out.size(); ++d) inner *= out[d];
  std::vector<int8_t> y;
  for (int64_t o = 0; o < outer; ++o) {
    for (const TestTensor& t : inputs) {
      requant::RescaleParams p;
      EXPECT_TRUE(requant::MakeRescaleParams(t.quant.scale[0], static_cast<int32_t>(t.quant.zero_point[0]), ys,
                                             static_cast<int32_t>(yz), requant::Range(), &p)
                      .ok());
      const std::vector<int8_t> v = t.As<int8_t>();
      const int64_t block = t.shape[axis] * inner;
      for (int64_t i = 0; i < block; ++i) y.push_back(static_cast<int8_t>(requant::Rescale(v[o * block + i], p)));
    }
  }
  return y;
}

Shape ConcatShape(const std::vector<TestTensor>& inputs, int axis) {
  Shape out = inputs[0].shape;
  out[axis] = 0;
  for (const TestTensor& t : inputs) out[axis] += t.shape[axis];
  return out;
}

Attributes Axis(int64_t axis) {
  Attributes a;
  a.SetInt("axis", axis);
  return a;
}

TEST(Int8ConcatTest, MixedParametersMatchNaive) {
  std::mt19937 gen(31);
  struct Case {
    std::vector<Shape> shapes;
    int axis;
  };
  const Case cases[] = {
      {{{2, 3, 4}, {2, 5, 4}}, 1},
      {{{2, 3, 4}, {1, 3, 4}, {3, 3, 4}}, 0},
      {{{2, 3, 4}, {2, 3, 1}, {2, 3, 7}}, 2},
      {{{4}, {0}, {3}}, 0},                       // an empty input
      {{{1, 64, 40, 40}, {1, 32, 40, 40}}, 1},    // large: split across threads
      {{{8, 3000}, {8, 1000}, {8, 10}}, 1},       // long rows
  };
  for (const Case& c : cases) {
    for (int params = 0; params < 3; ++params) {
      const float ys = RandomScale(&gen);
      const int64_t yz = RandomZeroPoint(&gen);
      std::vector<TestTensor> inputs;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        // params 0: all equal to the output (byte copies); 1: every other; 2: all differ.
        const bool same = params == 0 || (params == 1 && i % 2 == 0);
        inputs.push_back(RandomQ(c.shapes[i], same ? ys : RandomScale(&gen), same ? yz : RandomZeroPoint(&gen), &gen));
      }
      const Shape out = ConcatShape(inputs, c.axis);
      const std::vector<int8_t> expected = NaiveConcat(inputs, c.axis, ys, yz);
      for (int threads : {1, 3}) {
        std::vector<int8_t> y;
        ASSERT_TRUE(RunInt8("Concat", Axis(c.axis), inputs, out, ys, yz, &y, 13, threads).ok());
        EXPECT_EQ(y, expected) << ShapeToString(out) << " params " << params << " threads " << threads;
        // A negative axis names the same one.
        ASSERT_TRUE(RunInt8("Concat", Axis(c.axis - static_cast<int>(out.size())), inputs, out, ys, yz, &y).ok());
        EXPECT_EQ(y, expected);
      }
    }
  }
}

TEST(Int8ConcatTest, ConstantInput) {
  std::mt19937 gen(32);
  const TestTensor x = RandomQ({2, 3, 5}, 0.1f, 4, &gen);
  const TestTensor k = Q({2, 1, 5}, RandomInt8(10, &gen), 0.05f, -9, true);
  std::vector<int8_t> y;
  ASSERT_TRUE(RunInt8("Concat", Axis(1), {x, k}, {2, 4, 5}, 0.1f, 4, &y).ok());
  EXPECT_EQ(y, NaiveConcat({x, k}, 1, 0.1f, 4));
}

// The memory planner may place an input at its spot in the output (concat
// elision): a byte-copy input is then skipped, a rescaled one is rescaled in place.
TEST(Int8ConcatTest, InputAlreadyInTheOutput) {
  std::mt19937 gen(33);
  for (bool rescale : {false, true}) {
    const TestTensor a = RandomQ({3, 4}, rescale ? 0.3f : 0.1f, rescale ? 7 : 2, &gen);
    const TestTensor b = RandomQ({2, 4}, 0.2f, -1, &gen);
    const std::vector<int8_t> expected = NaiveConcat({a, b}, 0, 0.1f, 2);
    KernelSetup setup;
    setup.op = "Concat";
    setup.opset = 13;
    setup.attrs = Axis(0);
    setup.inputs = {a.Info(), b.Info()};
    setup.outputs = {QOut({5, 4}, 0.1f, 2).Info()};
    std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById("cpu.Concat.int8")->create();
    ASSERT_TRUE(kernel->Prepare(setup).ok());
    std::vector<int8_t> out(20, 0);
    const std::vector<int8_t> av = a.As<int8_t>();
    std::copy(av.begin(), av.end(), out.begin());  // input 0 lives in the output
    const void* in_ptrs[2] = {out.data(), b.bytes.data()};
    void* out_ptrs[1] = {out.data()};
    KernelArgs args;
    args.inputs = in_ptrs;
    args.outputs = out_ptrs;
    args.num_inputs = 2;
    args.num_outputs = 1;
    ASSERT_TRUE(kernel->Run(args).ok());
    EXPECT_EQ(out, expected) << "rescale " << rescale;
  }
}

TEST(Int8ConcatTest, Refusals) {
  const TestTensor a = Q({2, 3}, std::vector<int8_t>(6, 1), 0.1f, 0);
  const TestTensor fa = TestTensor::Of<float>({2, 3}, std::vector<float>(6, 1.f));
  std::vector<int8_t> y;
  std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, {4, 3})};
  EXPECT_EQ(RunKernel("Concat", Axis(0), {fa, fa}, &fouts, Int8Kernel("Concat", 13)).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunInt8("Concat", Axis(0), {a, a.WithQuant({0.1f, 0.2f, 0.3f}, {0, 0, 0}, 1)}, {4, 3}, 0.1f, 0, &y, 13)
                .code(),
            StatusCode::kUnsupported);
  const TestTensor raw = TestTensor::Of<int8_t>({2, 3}, std::vector<int8_t>(6, 1));
  EXPECT_EQ(RunInt8("Concat", Axis(0), {a, raw}, {4, 3}, 0.1f, 0, &y, 13).code(), StatusCode::kUnsupported);
  // Shapes that do not concatenate are invalid.
  const TestTensor b = Q({2, 4}, std::vector<int8_t>(8, 1), 0.1f, 0);
  EXPECT_EQ(RunInt8("Concat", Axis(0), {a, b}, {4, 3}, 0.1f, 0, &y, 13).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace int8
}  // namespace loom
