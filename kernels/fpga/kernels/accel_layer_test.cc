// AccelLayerFromSetup against the CPU int8 kernels: randomized Conv, Gemm,
// MatMul, Add and MaxPool nodes, presented as the builder presents an int8
// node (a KernelSetup of the tensors, fused activations as loom.activation*
// attributes), run by the node's CPU int8 kernel and, lowered, by the
// functional model on pynq_z2 and kv260; the outputs must agree bit for bit.
// Then the nodes the accelerator refuses, with their reasons, and the shape
// helpers.
#include "kernels/fpga/kernels/accel_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/act_test_util.h"
#include "kernels/cpu/int8/linear_test_util.h"
#include "kernels/cpu/testing/kernel_tester.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"
#include "kernels/fpga/model/testing/model_test_util.h"

namespace loom {
namespace fpga {
namespace {

using int8::linear_test::Clamp;
using int8::linear_test::LinearQuant;
using int8::linear_test::RandomBias;
using int8::linear_test::RandomInt8;
using int8::linear_test::RandomLinearQuant;
using int8::linear_test::WithClamp;
using int8::test::Q;
using int8::test::QOut;
using int8::test::RandomScale;
using int8::test::RandomZeroPoint;
using loom::testing::MakeKernelSetup;
using loom::testing::TestTensor;
using lowering::DramTensor;
using lowering::testing::Bench;

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }
const contract::AccelConfig& Kv260() { return *contract::FindConfig("kv260"); }

int Uniform(std::mt19937* rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(*rng); }
bool Chance(std::mt19937* rng, int percent) { return Uniform(rng, 0, 99) < percent; }

// One node as the builder hands it to a kernel.
struct Node {
  std::string op;
  Attributes attrs;
  std::vector<TestTensor> inputs;
  std::vector<TestTensor> outputs;
  std::string name;  // what the case is, for messages

  KernelSetup Setup() const { return MakeKernelSetup(op, attrs, inputs, outputs); }
};

// ---------------------------------------------------------------- running

// (c, h, w) planes of a tensor of accelerator shape `hwc`, as ToNhwc takes
// them: a 4-D tensor's row-major data already is; a 2-D or 3-D one is pixels
// of channels ([w][c]), transposed.
std::vector<int32_t> ToPlanes(const std::vector<int8_t>& values, size_t rank, const Hwc& hwc) {
  std::vector<int32_t> planes(values.begin(), values.end());
  if (rank == 4) return planes;
  for (uint32_t x = 0; x < hwc.w; ++x)
    for (uint32_t c = 0; c < hwc.c; ++c) planes[size_t{c} * hwc.w + x] = values[size_t{x} * hwc.c + c];
  return planes;
}

std::vector<int8_t> FromPlanes(const std::vector<int32_t>& planes, size_t rank, const Hwc& hwc) {
  std::vector<int8_t> values(planes.begin(), planes.end());
  if (rank == 4) return values;
  for (uint32_t x = 0; x < hwc.w; ++x)
    for (uint32_t c = 0; c < hwc.c; ++c)
      values[size_t{x} * hwc.c + c] = static_cast<int8_t>(planes[size_t{c} * hwc.w + x]);
  return values;
}

std::vector<int8_t> RunCpu(const Node& node) {
  std::vector<TestTensor> outputs = node.outputs;
  const Status status =
      loom::testing::RunKernel(node.op, node.attrs, node.inputs, &outputs, int8::linear_test::Int8Options(node.op));
  EXPECT_TRUE(status.ok()) << node.name << ": CPU: " << status.ToString();
  return outputs[0].As<int8_t>();
}

// Lowers the node's layer, places its activations NHWC-padded in device
// memory (slots 1 and 2, the output in 3, constant images in 0), runs it on
// the model under two schedules and reads the output back.
::testing::AssertionResult RunAccel(const contract::AccelConfig& config, const Node& node, std::vector<int8_t>* y) {
  AccelLayer layer;
  const Status made = AccelLayerFromSetup(node.Setup(), config, &layer);
  if (!made.ok()) return ::testing::AssertionFailure() << node.name << ": " << made.ToString();
  const uint32_t n = config.n;
  Bench bench(config);
  std::vector<DramTensor> inputs;
  for (size_t i = 0; i < layer.activation_inputs.size(); ++i) {
    const TestTensor& t = node.inputs[static_cast<size_t>(layer.activation_inputs[i])];
    const Hwc& hwc = layer.inputs[i];
    const std::vector<uint8_t> bytes =
        fpga::testing::ToNhwc(ToPlanes(t.As<int8_t>(), t.shape.size(), hwc), hwc.c, hwc.h, hwc.w, n);
    if (bytes.size() != PaddedBytes(config, hwc))
      return ::testing::AssertionFailure()
             << node.name << ": PaddedBytes " << PaddedBytes(config, hwc) << ", the packed input has " << bytes.size();
    inputs.push_back(bench.Put(static_cast<uint32_t>(1 + i), bytes));
  }
  const Hwc& out_hwc = layer.output;
  const size_t out_bytes = PaddedBytes(config, out_hwc);
  const DramTensor out = bench.Reserve(3, out_bytes);
  lowering::ConstantPlacement constants;
  if (layer.kind == AccelLayer::Kind::kConv) {
    constants.weights = bench.Reserve(0, lowering::WeightImageBytes(config, layer.conv));
    constants.params = bench.Reserve(0, lowering::ParamImageBytes(config, layer.conv));
  }
  lowering::Program program;
  const Status lowered = LowerAccelLayer(config, layer, inputs, out, constants, &program);
  if (!lowered.ok()) return ::testing::AssertionFailure() << node.name << ": " << lowered.ToString();
  bench.Load(program, constants);
  const size_t rank = node.outputs[0].shape.size();
  for (uint64_t seed : {1, 2}) {
    bench.Write(out, std::vector<uint8_t>(out_bytes, 0xCD));
    const RunResult result = bench.Run(seed);
    if (!result.ok())
      return ::testing::AssertionFailure() << node.name << ", seed " << seed << ": "
                                           << contract::ErrorName(result.error) << " " << result.error_detail;
    std::vector<int8_t> got = FromPlanes(fpga::testing::FromNhwc(bench.Get(out, out_bytes), out_hwc.c, out_hwc.h,
                                                                 out_hwc.w, n, fpga::testing::Element::kInt8),
                                         rank, out_hwc);
    if (seed != 1 && got != *y) return ::testing::AssertionFailure() << node.name << ": schedules disagree";
    *y = std::move(got);
  }
  const std::string guard = bench.BrokenGuard();
  if (!guard.empty()) return ::testing::AssertionFailure() << node.name << ": " << guard;
  return ::testing::AssertionSuccess();
}

// The CPU kernel and the accelerator agree on `node` bit for bit.
void ExpectSame(const contract::AccelConfig& config, const Node& node, bool expect_spread = false) {
  SCOPED_TRACE(std::string(config.name) + " " + node.name);
  const std::vector<int8_t> want = RunCpu(node);
  if (expect_spread) int8::linear_test::ExpectSpread(want);
  std::vector<int8_t> got;
  ASSERT_TRUE(RunAccel(config, node, &got));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(int{got[i]}, int{want[i]}) << "output element " << i << " of " << want.size();
}

// ---------------------------------------------------------------- random nodes

// A fused activation: none, Relu, or a Clip around the output's range (one
// bound open sometimes).
Clamp RandomClamp(std::mt19937* rng) {
  Clamp c;
  const int kind = Uniform(rng, 0, 9);
  if (kind >= 4) c.kind = Clamp::kRelu;
  if (kind >= 7) {
    c.kind = Clamp::kClip;
    c.lo = Chance(rng, 20) ? -std::numeric_limits<float>::infinity() : -0.5f * static_cast<float>(Uniform(rng, 0, 8));
    c.hi = Chance(rng, 20) ? std::numeric_limits<float>::infinity() : static_cast<float>(Uniform(rng, 1, 12));
  }
  return c;
}

// Clip bounds are real values: scale them to the output so they cut inside
// its int8 range.
void ScaleClamp(LinearQuant* q) {
  if (q->clamp.kind != Clamp::kClip) return;
  q->clamp.lo *= 10.f * q->y_scale;
  q->clamp.hi *= 10.f * q->y_scale;
}

std::string ClampName(const Clamp& c) {
  return c.kind == Clamp::kRelu ? " relu" : c.kind == Clamp::kClip ? " clip" : "";
}

// Random quantization of a linear node (per tensor or per channel, a random
// fused activation).
LinearQuant RandomQuant(int64_t channels, int64_t depth, std::mt19937* rng) {
  LinearQuant q = RandomLinearQuant(channels, depth, Chance(rng, 60), RandomClamp(rng), rng);
  ScaleClamp(&q);
  return q;
}

// Constant symmetric int8 weights of `shape` with q's scales along `axis`.
TestTensor Weights(Shape shape, std::mt19937* rng, const LinearQuant& q, int axis) {
  const std::vector<int8_t> w = RandomInt8(NumElements(shape), rng);
  return TestTensor::Const<int8_t>(std::move(shape), w)
      .WithQuant(q.w_scales, std::vector<int64_t>(q.w_scales.size(), 0), axis);
}

// Random weights of a node the accelerator refuses anyway.
TestTensor RandomWeights(const Shape& shape, std::mt19937* rng) {
  return Weights(shape, rng, RandomLinearQuant(shape[0], NumElements(shape) / shape[0], true, Clamp{}, rng), 0);
}

// A linear node (Conv, Gemm, MatMul) with random values quantized as `q`:
// X of `x_shape`, W of `w_shape` (scales along `w_axis`), the int32 bias of
// `bias_shape` (as many values as output channels), Y of `y_shape`, q's
// clamp fused.
Node LinearNode(const std::string& op, const Attributes& attrs, const Shape& x_shape, const Shape& w_shape, int w_axis,
                const Shape& bias_shape, const Shape& y_shape, const LinearQuant& q, std::mt19937* rng) {
  Node node;
  node.op = op;
  node.attrs = WithClamp(attrs, q.clamp);
  const int64_t channels = NumElements(bias_shape);
  node.inputs = {Q(x_shape, RandomInt8(NumElements(x_shape), rng), q.x_scale, q.x_zero_point),
                 Weights(w_shape, rng, q, w_axis),
                 TestTensor::Const<int32_t>(bias_shape, RandomBias(channels, NumElements(w_shape) / channels, rng))};
  node.outputs = {QOut(y_shape, q.y_scale, q.y_zero_point)};
  node.name = op + " " + ShapeToString(x_shape) + " by " + ShapeToString(w_shape) + " bias " +
              ShapeToString(bias_shape) + (q.w_scales.size() > 1 ? " per-channel" : " per-tensor") + ClampName(q.clamp);
  return node;
}

// Output size of one axis of an ONNX window with explicit pads or auto_pad.
int64_t OutSize(int64_t in, int64_t k, int64_t s, int64_t d, const std::string& auto_pad, int64_t pads) {
  const int64_t extent = (k - 1) * d + 1;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return (in + s - 1) / s;
  if (auto_pad == "VALID") return in >= extent ? (in - extent) / s + 1 : 0;
  return in + pads >= extent ? (in + pads - extent) / s + 1 : 0;
}

// A random 2-D window (kernel, strides, dilations, pads or auto_pad) over an
// h × w input that gives at least one output, with pads the accelerator
// takes (below the dilated extent, at most 3). Sets the attributes and the
// output size.
struct RandomWindow {
  int64_t kh = 1, kw = 1, out_h = 0, out_w = 0;
  std::string name;
};
RandomWindow MakeWindow(std::mt19937* rng, const std::vector<int>& kernels, int max_stride, int64_t h, int64_t w,
                        Attributes* attrs) {
  static const char* kAutoPads[] = {"", "", "", "SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"};
  for (;;) {
    RandomWindow r;
    r.kh = kernels[static_cast<size_t>(Uniform(rng, 0, static_cast<int>(kernels.size()) - 1))];
    r.kw = Chance(rng, 70) ? r.kh : kernels[static_cast<size_t>(Uniform(rng, 0, static_cast<int>(kernels.size()) - 1))];
    const int64_t sy = Uniform(rng, 1, max_stride), sx = Chance(rng, 70) ? sy : Uniform(rng, 1, max_stride);
    const int64_t dy = Chance(rng, 15) ? 2 : 1, dx = Chance(rng, 70) ? dy : Uniform(rng, 1, 2);
    const std::string auto_pad = kAutoPads[Uniform(rng, 0, 6)];
    const int64_t ey = (r.kh - 1) * dy + 1, ex = (r.kw - 1) * dx + 1;
    std::vector<int64_t> pads = {Uniform(rng, 0, static_cast<int>(std::min<int64_t>(ey - 1, 3))),
                                 Uniform(rng, 0, static_cast<int>(std::min<int64_t>(ex - 1, 3))),
                                 Uniform(rng, 0, static_cast<int>(std::min<int64_t>(ey - 1, 3))),
                                 Uniform(rng, 0, static_cast<int>(std::min<int64_t>(ex - 1, 3)))};
    const bool explicit_pads = auto_pad.empty() && Chance(rng, 85);
    if (!explicit_pads) pads.assign(4, 0);
    r.out_h = OutSize(h, r.kh, sy, dy, auto_pad, pads[0] + pads[2]);
    r.out_w = OutSize(w, r.kw, sx, dx, auto_pad, pads[1] + pads[3]);
    if (r.out_h < 1 || r.out_w < 1) continue;
    if (Chance(rng, 50)) attrs->SetInts("kernel_shape", {r.kh, r.kw});
    if (sy != 1 || sx != 1 || Chance(rng, 30)) attrs->SetInts("strides", {sy, sx});
    if (dy != 1 || dx != 1) attrs->SetInts("dilations", {dy, dx});
    if (explicit_pads) attrs->SetInts("pads", pads);
    if (!auto_pad.empty()) attrs->SetString("auto_pad", auto_pad);
    std::ostringstream name;
    name << "k" << r.kh << "x" << r.kw << " s" << sy << "x" << sx << " d" << dy << "x" << dx << " "
         << (auto_pad.empty() ? "pads " + IntsToString(pads) : auto_pad);
    r.name = name.str();
    return r;
  }
}

Node RandomConv(std::mt19937* rng) {
  const int64_t c = Uniform(rng, 1, 40), m = Uniform(rng, 1, 40);
  const int64_t h = Uniform(rng, 1, 14), w = Uniform(rng, 1, 14);
  Attributes attrs;
  const RandomWindow win = MakeWindow(rng, {1, 1, 2, 3, 3, 3, 5, 7}, 3, h, w, &attrs);
  Node node = LinearNode("Conv", attrs, {1, c, h, w}, {m, c, win.kh, win.kw}, 0, {m}, {1, m, win.out_h, win.out_w},
                         RandomQuant(m, c * win.kh * win.kw, rng), rng);
  node.name += " " + win.name;
  return node;
}

Node RandomGemm(std::mt19937* rng) {
  const int64_t m = Uniform(rng, 1, 40), k = Uniform(rng, 1, 300), n = Uniform(rng, 1, 60);
  const bool trans_b = Chance(rng, 50);
  Attributes attrs;
  if (trans_b || Chance(rng, 30)) attrs.SetInt("transB", trans_b ? 1 : 0);
  if (Chance(rng, 30)) {
    attrs.SetFloat("alpha", 1.f);
    attrs.SetFloat("beta", 1.f);
  }
  return LinearNode("Gemm", attrs, {m, k}, trans_b ? Shape{n, k} : Shape{k, n}, trans_b ? 0 : 1,
                    Chance(rng, 50) ? Shape{1, n} : Shape{n}, {m, n}, RandomQuant(n, k, rng), rng);
}

Node RandomMatMul(std::mt19937* rng) {
  const int64_t m = Uniform(rng, 1, 40), k = Uniform(rng, 1, 300), n = Uniform(rng, 1, 60);
  const bool three_d = Chance(rng, 50);
  return LinearNode("MatMul", {}, three_d ? Shape{1, m, k} : Shape{m, k}, {k, n}, 1, {n},
                    three_d ? Shape{1, m, n} : Shape{m, n}, RandomQuant(n, k, rng), rng);
}

Node RandomAdd(std::mt19937* rng) {
  Node node;
  node.op = "Add";
  Shape shape;
  switch (Uniform(rng, 0, 3)) {
    case 0:
      shape = {Uniform(rng, 1, 40), Uniform(rng, 1, 70)};
      break;
    case 1:
      shape = {1, Uniform(rng, 1, 40), Uniform(rng, 1, 70)};
      break;
    default:
      shape = {1, Uniform(rng, 1, 70), Uniform(rng, 1, 16), Uniform(rng, 1, 16)};
  }
  const int64_t size = NumElements(shape);
  const float y_scale = RandomScale(rng);
  const int64_t y_zero_point = RandomZeroPoint(rng);
  Clamp clamp = RandomClamp(rng);
  clamp.lo *= 20.f * y_scale;
  clamp.hi *= 20.f * y_scale;
  node.attrs = WithClamp(node.attrs, clamp);
  node.inputs = {Q(shape, RandomInt8(size, rng), RandomScale(rng), RandomZeroPoint(rng)),
                 Q(shape, RandomInt8(size, rng), RandomScale(rng), RandomZeroPoint(rng))};
  node.outputs = {QOut(shape, y_scale, y_zero_point)};
  node.name = "Add " + ShapeToString(shape) + ClampName(clamp);
  return node;
}

Node RandomMaxPool(std::mt19937* rng) {
  Node node;
  node.op = "MaxPool";
  const int64_t c = Uniform(rng, 1, 70), h = Uniform(rng, 1, 20), w = Uniform(rng, 1, 20);
  const RandomWindow win = MakeWindow(rng, {1, 2, 2, 3, 3, 4}, 3, h, w, &node.attrs);
  node.attrs.SetInts("kernel_shape", {win.kh, win.kw});
  if (Chance(rng, 20)) node.attrs.SetInt("ceil_mode", 0);
  if (Chance(rng, 20)) node.attrs.SetInt("storage_order", Uniform(rng, 0, 1));
  const float scale = RandomScale(rng);
  const int64_t zero_point = RandomZeroPoint(rng);
  node.inputs = {Q({1, c, h, w}, RandomInt8(c * h * w, rng), scale, zero_point)};
  node.outputs = {QOut({1, c, win.out_h, win.out_w}, scale, zero_point)};
  node.name = "MaxPool " + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + " " + win.name;
  return node;
}

const contract::AccelConfig* const kConfigs[] = {&Pynq(), &Kv260()};

template <typename MakeNode>
void SweepRandom(uint32_t seed, int count, MakeNode make, bool linear) {
  std::mt19937 rng(seed);
  for (const contract::AccelConfig* config : kConfigs) {
    for (int i = 0; i < count; ++i) {
      const Node node = make(&rng);
      const bool clamped = node.attrs.Has("loom.activation");
      ExpectSame(*config, node, linear && !clamped);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(AccelLayerTest, ConvMatchesCpu) { SweepRandom(101, 60, RandomConv, true); }
TEST(AccelLayerTest, GemmMatchesCpu) { SweepRandom(102, 20, RandomGemm, true); }
TEST(AccelLayerTest, MatMulMatchesCpu) { SweepRandom(103, 20, RandomMatMul, true); }
TEST(AccelLayerTest, AddMatchesCpu) { SweepRandom(104, 24, RandomAdd, false); }
TEST(AccelLayerTest, MaxPoolMatchesCpu) { SweepRandom(105, 24, RandomMaxPool, false); }

// A layer large enough for several spatial tiles and K chunks on both
// configurations (ResNet's layer2 shape, 3x3, 128 -> 128).
TEST(AccelLayerTest, TiledConvMatchesCpu) {
  std::mt19937 rng(106);
  Attributes attrs;
  attrs.SetInts("pads", {1, 1, 1, 1});
  const Node node = LinearNode("Conv", attrs, {1, 128, 28, 28}, {128, 128, 3, 3}, 0, {128}, {1, 128, 28, 28},
                               RandomLinearQuant(128, 128 * 9, true, Clamp{Clamp::kRelu}, &rng), &rng);
  for (const contract::AccelConfig* config : kConfigs) ExpectSame(*config, node);
}

// ---------------------------------------------------------------- layers

TEST(AccelLayerTest, FillsTheLayer) {
  std::mt19937 rng(7);
  const int64_t m = 3, k = 5, n = 4;
  const LinearQuant q = RandomLinearQuant(n, k, true, Clamp{Clamp::kRelu}, &rng);
  const Node node = LinearNode("Gemm", {}, {m, k}, {k, n}, 1, {1, n}, {m, n}, q, &rng);
  const std::vector<int8_t> b = node.inputs[1].As<int8_t>();
  const std::vector<int32_t> bias = node.inputs[2].As<int32_t>();
  AccelLayer layer;
  ASSERT_TRUE(AccelLayerFromSetup(node.Setup(), Pynq(), &layer).ok());
  ASSERT_EQ(layer.kind, AccelLayer::Kind::kConv);
  const lowering::ConvLayer& conv = layer.conv;
  EXPECT_EQ(conv.in_h, 1u);
  EXPECT_EQ(conv.in_w, m);
  EXPECT_EQ(conv.in_c, k);
  EXPECT_EQ(conv.out_c, n);
  EXPECT_FALSE(conv.act_unsigned);
  EXPECT_FALSE(conv.out_int32);
  EXPECT_EQ(conv.input_zero_point, q.x_zero_point);
  EXPECT_EQ(conv.bias, bias);  // the zero-point correction is already in it
  for (int64_t o = 0; o < n; ++o) {
    for (int64_t i = 0; i < k; ++i) EXPECT_EQ(conv.weights[o * k + i], b[i * n + o]) << "B transposed";
    const requant::OutputStage stage = q.Stage(o);
    EXPECT_EQ(conv.multipliers[o].multiplier, stage.m.multiplier);
    EXPECT_EQ(conv.multipliers[o].shift, stage.m.shift);
    EXPECT_EQ(conv.output_zero_point, stage.zero_point);
    EXPECT_EQ(conv.output_range.min, stage.range.min);
    EXPECT_EQ(conv.output_range.max, stage.range.max);
  }
  EXPECT_GE(conv.output_range.min, q.y_zero_point) << "Relu clamps at the zero point";
  EXPECT_EQ(layer.activation_inputs, std::vector<int>{0});
  EXPECT_EQ(layer.Macs(), uint64_t(m * k * n));
  EXPECT_EQ(layer.output.w, m);
  EXPECT_EQ(layer.output.c, n);
}

TEST(AccelLayerTest, Shapes) {
  Hwc hwc;
  ASSERT_TRUE(HwcOf({1, 3, 5, 7}, &hwc).ok());
  EXPECT_EQ(hwc.h, 5u);
  EXPECT_EQ(hwc.w, 7u);
  EXPECT_EQ(hwc.c, 3u);
  ASSERT_TRUE(HwcOf({4, 9}, &hwc).ok());
  EXPECT_EQ(hwc.h, 1u);
  EXPECT_EQ(hwc.w, 4u);
  EXPECT_EQ(hwc.c, 9u);
  ASSERT_TRUE(HwcOf({1, 6, 2}, &hwc).ok());
  EXPECT_EQ(hwc.w, 6u);
  EXPECT_EQ(hwc.c, 2u);
  EXPECT_EQ(HwcOf({2, 6, 2}, &hwc).code(), StatusCode::kUnsupported);
  EXPECT_EQ(HwcOf({1, 0, 2, 2}, &hwc).code(), StatusCode::kUnsupported);
  EXPECT_EQ(HwcOf({6}, &hwc).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(HwcOf({1, 1, 1, 1, 1}, &hwc).code(), StatusCode::kInvalidArgument);

  EXPECT_EQ(PaddedBytes(Pynq(), {5, 7, 3}), 5u * 7 * 16);
  EXPECT_EQ(PaddedBytes(Pynq(), {5, 7, 17}), 5u * 7 * 32);
  EXPECT_EQ(PaddedBytes(Kv260(), {5, 7, 17}), 5u * 7 * 32);
  EXPECT_EQ(PaddedBytes(Kv260(), {1, 1, 33}), 64u);
  EXPECT_EQ(PaddedBytes(Pynq(), {65536, 65536, 1}), uint64_t{1} << 36) << "no 32-bit overflow";
}

// ---------------------------------------------------------------- refusals

// A valid 3x3 Conv (8 -> 8 channels on 6x6) to break one way at a time.
Node BaseConv() {
  std::mt19937 rng(9);
  Attributes attrs;
  attrs.SetInts("pads", {1, 1, 1, 1});
  return LinearNode("Conv", attrs, {1, 8, 6, 6}, {8, 8, 3, 3}, 0, {8}, {1, 8, 6, 6},
                    RandomLinearQuant(8, 72, true, Clamp{}, &rng), &rng);
}

Node BaseMaxPool() {
  Node node;
  node.op = "MaxPool";
  node.attrs.SetInts("kernel_shape", {3, 3});
  node.attrs.SetInts("strides", {2, 2});
  node.inputs = {Q({1, 4, 7, 7}, std::vector<int8_t>(196, 1), 0.1f, 3)};
  node.outputs = {QOut({1, 4, 3, 3}, 0.1f, 3)};
  return node;
}

Node BaseAdd() {
  Node node;
  node.op = "Add";
  node.inputs = {Q({1, 4, 3, 3}, std::vector<int8_t>(36, 1), 0.1f, 3),
                 Q({1, 4, 3, 3}, std::vector<int8_t>(36, 2), 0.2f, -5)};
  node.outputs = {QOut({1, 4, 3, 3}, 0.3f, 0)};
  return node;
}

// The reason the accelerator gives for `node`, or "" when it takes it.
std::string Refusal(const Node& node, StatusCode code = StatusCode::kUnsupported) {
  AccelLayer layer;
  const Status status = AccelLayerFromSetup(node.Setup(), Pynq(), &layer);
  EXPECT_EQ(status.code(), code) << status.ToString();
  return status.message();
}

TEST(AccelLayerTest, TakesTheBaseNodes) {
  for (const Node& node : {BaseConv(), BaseMaxPool(), BaseAdd()}) {
    AccelLayer layer;
    const Status status = AccelLayerFromSetup(node.Setup(), Pynq(), &layer);
    EXPECT_TRUE(status.ok()) << node.op << ": " << status.ToString();
  }
}

TEST(AccelLayerTest, RefusesConvs) {
  std::mt19937 rng(11);
  Node node = BaseConv();
  node.attrs.SetInt("group", 8);
  node.inputs[1] = RandomWeights({8, 1, 3, 3}, &rng);
  EXPECT_EQ(Refusal(node), "depthwise conv (group 8)");

  node = BaseConv();
  node.attrs.SetInt("group", 2);
  node.inputs[1] = RandomWeights({8, 4, 3, 3}, &rng);
  EXPECT_EQ(Refusal(node), "grouped conv (group 2)");

  node = BaseConv();
  node.attrs.SetInts("pads", {1, 1});
  node.inputs[0] = Q({1, 8, 6}, RandomInt8(48, &rng), 0.1f, 0);
  node.inputs[1] = RandomWeights({8, 8, 3}, &rng);
  node.outputs = {QOut({1, 8, 6}, 0.5f, 0)};
  EXPECT_EQ(Refusal(node), "1-D conv");

  node = BaseConv();
  node.attrs.SetInts("pads", {1, 1, 1, 1, 1, 1});
  node.inputs[0] = Q({1, 8, 4, 4, 4}, RandomInt8(512, &rng), 0.1f, 0);
  node.inputs[1] = RandomWeights({8, 8, 3, 3, 3}, &rng);
  node.outputs = {QOut({1, 8, 4, 4, 4}, 0.5f, 0)};
  EXPECT_EQ(Refusal(node), "3-D conv");

  node = BaseConv();
  node.inputs[0] = Q({2, 8, 6, 6}, RandomInt8(576, &rng), 0.1f, 0);
  node.outputs[0].shape = {2, 8, 6, 6};
  EXPECT_EQ(Refusal(node), "batch 2");

  node = BaseConv();
  node.inputs[0].dtype = DType::kUInt8;
  EXPECT_EQ(Refusal(node), "uint8 activations");

  node = BaseConv();
  node.inputs[0] = TestTensor::Of<float>({1, 8, 6, 6}, std::vector<float>(288, 0.5f));
  node.inputs[1] = TestTensor::Const<float>({8, 8, 3, 3}, std::vector<float>(576, 0.25f));
  node.inputs[2] = TestTensor::Const<float>({8}, std::vector<float>(8, 0.f));
  node.outputs = {TestTensor::Empty(DType::kFloat32, {1, 8, 6, 6})};
  EXPECT_EQ(Refusal(node), "float32 activations");

  node = BaseConv();
  node.inputs[1].constant = false;
  EXPECT_EQ(Refusal(node), "non-constant weight W (int8 weights are packed once)");

  node = BaseConv();
  node.inputs[2].constant = false;
  EXPECT_EQ(Refusal(node), "non-constant bias");

  node = BaseConv();
  node.inputs[1].quant.zero_point[3] = 2;
  EXPECT_EQ(Refusal(node), "asymmetric weight W (zero point 2, expected 0)");

  node = BaseConv();
  node.attrs = Attributes();
  node.inputs[0] = Q({1, 8, 20, 20}, RandomInt8(3200, &rng), 0.1f, 0);
  node.inputs[1] = RandomWeights({8, 8, 17, 17}, &rng);
  node.outputs = {QOut({1, 8, 4, 4}, 0.5f, 0)};
  EXPECT_EQ(Refusal(node), "kernel 17x17, the accelerator supports at most 15x15");

  node = BaseConv();
  node.attrs.SetString("loom.activation", "Sigmoid");
  EXPECT_EQ(Refusal(node), "fused activation 'Sigmoid' on an int8 Conv");

  // Malformed, not just beyond the accelerator.
  node = BaseConv();
  node.outputs[0].shape = {1, 8, 5, 5};
  EXPECT_NE(Refusal(node, StatusCode::kInvalidArgument), "");
}

TEST(AccelLayerTest, RefusesTensorsBeyond32BitOffsets) {
  // Only the weights need data: 16 channels of a 65536 x 65536 image are 64 GiB.
  Node node = BaseConv();
  node.attrs.SetInts("pads", {0, 0, 0, 0});
  std::mt19937 rng(13);
  node.inputs[0] = Q({1, 8, 1, 1}, std::vector<int8_t>(8, 0), 0.1f, 0);
  node.inputs[0].shape = {1, 8, 65536, 65536};
  node.inputs[1] = RandomWeights({8, 8, 1, 1}, &rng);
  node.outputs = {QOut({1, 8, 1, 1}, 0.5f, 0)};
  node.outputs[0].shape = {1, 8, 65536, 65536};
  EXPECT_EQ(Refusal(node), "input of 68719476736 bytes exceeds the accelerator's 32-bit offsets");
}

TEST(AccelLayerTest, RefusesGemmsAndMatMuls) {
  std::mt19937 rng(15);
  const LinearQuant q = RandomLinearQuant(6, 5, false, Clamp{}, &rng);
  Attributes trans_a;
  trans_a.SetInt("transA", 1);
  EXPECT_EQ(Refusal(LinearNode("Gemm", trans_a, {5, 3}, {5, 6}, 1, {6}, {3, 6}, q, &rng)), "transA = 1 on int8");

  Node matmul = LinearNode("MatMul", {}, {2, 3, 5}, {5, 6}, 1, {6}, {2, 3, 6}, q, &rng);
  EXPECT_EQ(Refusal(matmul), "batch 2");
  matmul.inputs.pop_back();
  matmul.inputs[0] = Q({3, 5}, RandomInt8(15, &rng), q.x_scale, 0);
  matmul.outputs[0].shape = {3, 6};
  EXPECT_EQ(Refusal(matmul), "missing bias (int8 MatMul needs the int32 bias holding the input zero point)");
}

TEST(AccelLayerTest, RefusesMaxPools) {
  Node node = BaseMaxPool();
  node.outputs.push_back(TestTensor::Empty(DType::kInt64, {1, 4, 3, 3}));
  EXPECT_EQ(Refusal(node), "MaxPool Indices output");

  node = BaseMaxPool();
  node.attrs.SetInt("ceil_mode", 1);
  EXPECT_EQ(Refusal(node), "MaxPool ceil_mode 1");

  node = BaseMaxPool();
  node.outputs[0] = QOut({1, 4, 3, 3}, 0.2f, 3);
  EXPECT_EQ(Refusal(node), "maxpool rescales");

  node = BaseMaxPool();
  node.inputs[0] = Q({1, 4, 7}, std::vector<int8_t>(28, 1), 0.1f, 3);
  node.attrs.SetInts("kernel_shape", {3});
  node.attrs.SetInts("strides", {2});
  node.outputs[0] = QOut({1, 4, 3}, 0.1f, 3);
  EXPECT_EQ(Refusal(node), "1-D maxpool");
}

TEST(AccelLayerTest, RefusesAdds) {
  Node node = BaseAdd();
  node.inputs[1] = Q({1, 4, 1, 1}, std::vector<int8_t>(4, 2), 0.2f, -5);
  EXPECT_EQ(Refusal(node), "Add with broadcasting (1x4x3x3 and 1x4x1x1)");

  node = BaseAdd();
  node.inputs[1].constant = true;
  EXPECT_EQ(Refusal(node), "Add of a constant");

  node = BaseAdd();
  node.inputs[1].dtype = DType::kUInt8;
  EXPECT_EQ(Refusal(node), "uint8 activations");
}

TEST(AccelLayerTest, RefusesOtherOps) {
  Node node = BaseAdd();
  node.op = "Mul";
  EXPECT_EQ(Refusal(node), "op Mul");
}

}  // namespace
}  // namespace fpga
}  // namespace loom
