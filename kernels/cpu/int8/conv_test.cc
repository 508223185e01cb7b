// The int8 Conv against a naive convolution over raw int8 values (padding
// reads the input zero point) with requantize.h's output stages, bit for bit:
// 1-D to 3-D, pads (asymmetric, auto_pad), strides, dilations, groups,
// depthwise with multipliers, 1x1, sizes off every block, fused clamps,
// per-channel and per-tensor weight scales, 1 and 3 threads, every GEMM
// implementation. Then the nodes outside the int8 contract, which it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using linear_test::Clamp;
using linear_test::ForEachGemmImpl;
using linear_test::Int8Options;
using linear_test::LinearQuant;
using linear_test::RandomInt32;
using linear_test::RandomInt8;
using linear_test::WithClamp;
using testing::RunKernel;
using testing::TestTensor;

struct ConvCase {
  Shape x;  // N, C, spatial...
  int64_t out_channels;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides, dilations, pads;  // pads: begins then ends
  int64_t group = 1;
  std::string auto_pad;  // when set, `pads` is ignored (computed as ONNX does)
};

ConvCase C(Shape x, int64_t out_channels, std::vector<int64_t> kernel, std::vector<int64_t> strides,
           std::vector<int64_t> dilations, std::vector<int64_t> pads, int64_t group = 1, std::string auto_pad = "") {
  ConvCase c;
  c.x = std::move(x);
  c.out_channels = out_channels;
  c.kernel = std::move(kernel);
  c.strides = std::move(strides);
  c.dilations = std::move(dilations);
  c.pads = std::move(pads);
  c.group = group;
  c.auto_pad = std::move(auto_pad);
  return c;
}

// The case normalized to three spatial axes, as the reference walks it.
struct Geometry {
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0}, out[3] = {1, 1, 1};
};

Geometry Normalize(const ConvCase& c) {
  Geometry g;
  const size_t r = c.kernel.size();
  for (size_t i = 0; i < r; ++i) {
    const size_t a = 3 - r + i;
    g.in[a] = c.x[2 + i];
    g.k[a] = c.kernel[i];
    g.s[a] = c.strides[i];
    g.d[a] = c.dilations[i];
    const int64_t extent = (g.k[a] - 1) * g.d[a] + 1;
    if (c.auto_pad.empty()) {
      g.pad[a] = c.pads[i];
      g.out[a] = (g.in[a] + c.pads[i] + c.pads[i + r] - extent) / g.s[a] + 1;
    } else {  // SAME_UPPER / SAME_LOWER
      g.out[a] = (g.in[a] + g.s[a] - 1) / g.s[a];
      const int64_t total = std::max<int64_t>(0, (g.out[a] - 1) * g.s[a] + extent - g.in[a]);
      g.pad[a] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    }
  }
  return g;
}

Shape OutShape(const ConvCase& c, const Geometry& g) {
  Shape s = {c.x[0], c.out_channels};
  for (size_t i = 0; i < c.kernel.size(); ++i) s.push_back(g.out[3 - c.kernel.size() + i]);
  return s;
}

std::vector<int8_t> ReferenceConv(const ConvCase& c, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                  const std::vector<int32_t>& bias, const LinearQuant& q) {
  const Geometry g = Normalize(c);
  const int64_t cin = c.x[1], cout = c.out_channels, cg = cin / c.group, mg = cout / c.group;
  std::vector<int8_t> y;
  for (int64_t n = 0; n < c.x[0]; ++n)
    for (int64_t m = 0; m < cout; ++m) {
      const requant::OutputStage stage = q.Stage(m);
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            int64_t acc = 0;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t kd = 0; kd < g.k[0]; ++kd)
                for (int64_t kh = 0; kh < g.k[1]; ++kh)
                  for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                    const int64_t id = od * g.s[0] - g.pad[0] + kd * g.d[0];
                    const int64_t ih = oh * g.s[1] - g.pad[1] + kh * g.d[1];
                    const int64_t iw = ow * g.s[2] - g.pad[2] + kw * g.d[2];
                    const bool inside = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
                    const int64_t c_in = (m / mg) * cg + ci;
                    const int64_t xv =
                        inside ? x[(((n * cin + c_in) * g.in[0] + id) * g.in[1] + ih) * g.in[2] + iw] : q.x_zero_point;
                    acc += xv * w[(((m * cg + ci) * g.k[0] + kd) * g.k[1] + kh) * g.k[2] + kw];
                  }
            y.push_back(static_cast<int8_t>(requant::Requantize(linear_test::Wrap(acc + bias[m]), stage)));
          }
    }
  return y;
}

Attributes ConvAttrs(const ConvCase& c) {
  Attributes a;
  a.SetInts("strides", c.strides);
  a.SetInts("dilations", c.dilations);
  if (c.auto_pad.empty()) {
    a.SetInts("pads", c.pads);
  } else {
    a.SetString("auto_pad", c.auto_pad);
  }
  if (c.group != 1) a.SetInt("group", c.group);
  return a;
}

Shape WeightShape(const ConvCase& c) {
  Shape s = {c.out_channels, c.x[1] / c.group};
  for (int64_t k : c.kernel) s.push_back(k);
  return s;
}

// The int8 inputs of a case, quantized as `q`.
std::vector<TestTensor> ConvInputs(const ConvCase& c, const LinearQuant& q, const std::vector<int8_t>& x,
                                   const std::vector<int8_t>& w, const std::vector<int32_t>& bias) {
  std::vector<int64_t> w_zero(q.w_scales.size(), 0);
  return {TestTensor::Of<int8_t>(c.x, x).WithQuant({q.x_scale}, {q.x_zero_point}),
          TestTensor::Const<int8_t>(WeightShape(c), w).WithQuant(q.w_scales, w_zero, 0),
          TestTensor::Const<int32_t>({c.out_channels}, bias)};
}

void CheckConv(const ConvCase& c, bool per_channel, Clamp clamp, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "x=" << ShapeToString(c.x) << " M=" << c.out_channels
                                    << " kernel=" << ShapeToString(c.kernel) << " group=" << c.group
                                    << " per_channel=" << per_channel << " clamp=" << clamp.kind);
  std::mt19937 gen(seed);
  const Shape w_shape = WeightShape(c);
  const int64_t depth = NumElements(w_shape) / std::max<int64_t>(1, c.out_channels);
  const LinearQuant q = linear_test::RandomLinearQuant(c.out_channels, depth, per_channel, clamp, &gen);
  const auto x = RandomInt8(NumElements(c.x), &gen);
  const auto w = RandomInt8(NumElements(w_shape), &gen);
  const auto bias = linear_test::RandomBias(c.out_channels, depth, &gen);
  const auto want = ReferenceConv(c, x, w, bias, q);
  if (clamp.kind == Clamp::kNone) linear_test::ExpectSpread(want);
  const Shape out_shape = OutShape(c, Normalize(c));
  const auto inputs = ConvInputs(c, q, x, w, bias);
  ForEachGemmImpl([&] {
    for (int threads : {1, 3}) {
      std::vector<TestTensor> outs = {
          TestTensor::Empty(DType::kInt8, out_shape).WithQuant({q.y_scale}, {q.y_zero_point})};
      const Status st =
          RunKernel("Conv", WithClamp(ConvAttrs(c), q.clamp), inputs, &outs, Int8Options("Conv", threads));
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto got = outs[0].As<int8_t>();
      const int64_t diff = linear_test::FirstDifference(got, want);
      ASSERT_EQ(diff, -1) << "threads=" << threads << " at " << diff << ": got " << int{got[diff]} << " want "
                          << int{want[diff]};
    }
  });
}

std::vector<ConvCase> Cases() {
  return {
      // 2-D im2col: padding (K = 27, odd), strides, dilations, asymmetric pads.
      C({1, 3, 9, 11}, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}),
      C({2, 5, 10, 7}, 6, {3, 2}, {2, 1}, {1, 2}, {0, 2, 1, 0}),
      C({1, 4, 13, 12}, 9, {3, 3}, {2, 3}, {2, 1}, {2, 0, 1, 3}),
      // output channels and positions off every tile size, deeper reduction
      C({1, 40, 6, 7}, 70, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}),
      // stem-like 7x7 stride 2
      C({1, 3, 23, 29}, 16, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}),
      // stride 2 onto 7-wide output rows: every 16-column panel spans several
      // rows (the packers' split runs); deeper than a 8 x 48 tile in rows
      C({1, 24, 14, 14}, 36, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}),
      // 1x1: in place, then with stride (downsample) and with padding
      C({2, 20, 7, 9}, 33, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}),
      C({2, 16, 9, 9}, 24, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}),
      C({1, 6, 5, 4}, 5, {1, 1}, {1, 1}, {1, 1}, {1, 0, 0, 2}),
      // groups through the GEMM path
      C({1, 8, 8, 8}, 12, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 2),
      C({2, 12, 7, 6}, 6, {2, 3}, {1, 2}, {1, 1}, {0, 1, 1, 0}, 3),
      // depthwise: plain, strided, dilated, 5x5, multiplier 2, no padding, 1-D
      C({2, 6, 9, 10}, 6, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 6),
      C({1, 7, 12, 11}, 7, {3, 3}, {2, 2}, {1, 1}, {1, 1, 0, 0}, 7),
      C({1, 4, 11, 13}, 4, {3, 3}, {1, 1}, {2, 3}, {2, 3, 2, 3}, 4),
      C({1, 3, 9, 9}, 3, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, 3),
      C({1, 5, 8, 9}, 10, {3, 3}, {1, 2}, {1, 1}, {1, 0, 1, 1}, 5),
      C({2, 4, 6, 7}, 8, {2, 4}, {1, 1}, {1, 1}, {0, 0, 0, 0}, 4),
      C({1, 3, 20}, 6, {4}, {3}, {1}, {2, 1}, 3),
      // 1-D and 3-D through the GEMM path
      C({2, 4, 17}, 5, {3}, {2}, {1}, {1, 2}),
      C({1, 3, 5, 6, 7}, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}),
      C({1, 2, 6, 5, 7}, 3, {2, 3, 2}, {2, 1, 2}, {1, 2, 1}, {0, 1, 1, 1, 0, 0}),
      // auto_pad
      C({1, 4, 7, 8}, 5, {3, 3}, {2, 2}, {1, 1}, {}, 1, "SAME_UPPER"),
      C({1, 4, 7, 8}, 4, {4, 4}, {1, 1}, {1, 1}, {}, 4, "SAME_LOWER"),
  };
}

TEST(Int8ConvTest, MatchesNaive) {
  uint32_t seed = 1;
  for (const ConvCase& c : Cases()) {
    CheckConv(c, true, Clamp(), seed++);
    CheckConv(c, false, Clamp(), seed++);
  }
}

TEST(Int8ConvTest, FusedReluAndClip) {
  Clamp relu;
  relu.kind = Clamp::kRelu;
  Clamp clip;
  clip.kind = Clamp::kClip;
  clip.lo = -0.5f;
  clip.hi = 2.f;
  Clamp clip_max;  // Clip with only an upper bound
  clip_max.kind = Clamp::kClip;
  clip_max.hi = 1.f;
  uint32_t seed = 100;
  for (const ConvCase& c : {Cases()[0], Cases()[5], Cases()[10]})
    for (const Clamp& clamp : {relu, clip, clip_max}) CheckConv(c, true, clamp, seed++);
}

TEST(Int8ConvTest, ResnetShapes) {
  // Small images through the real channel counts (3x3, 1x1 stride 2, 7x7 stride 2).
  CheckConv(C({1, 64, 9, 9}, 64, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}), true, Clamp(), 201);
  CheckConv(C({1, 128, 6, 6}, 256, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}), true, Clamp(), 202);
  CheckConv(C({1, 64, 10, 10}, 128, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}), true, Clamp(), 203);
  CheckConv(C({1, 3, 32, 32}, 64, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}), true, Clamp(), 204);
}

// A node the int8 Conv refuses (Unsupported) when its inputs are changed by `edit`.
void ExpectRefused(const std::string& what, const std::function<void(std::vector<TestTensor>*, Attributes*)>& edit) {
  SCOPED_TRACE(what);
  const ConvCase c = C({1, 4, 5, 5}, 6, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1});
  std::mt19937 gen(5);
  const LinearQuant q = linear_test::RandomLinearQuant(6, 36, true, Clamp(), &gen);
  std::vector<TestTensor> inputs =
      ConvInputs(c, q, RandomInt8(100, &gen), RandomInt8(216, &gen), RandomInt32(6, &gen, -100, 100));
  Attributes attrs = ConvAttrs(c);
  edit(&inputs, &attrs);
  std::vector<TestTensor> outs = {
      TestTensor::Empty(DType::kInt8, {1, 6, 5, 5}).WithQuant({q.y_scale}, {q.y_zero_point})};
  const Status st = RunKernel("Conv", attrs, inputs, &outs, Int8Options("Conv"));
  EXPECT_EQ(st.code(), StatusCode::kUnsupported) << st.ToString();
}

TEST(Int8ConvTest, RefusesWhatIsOutsideTheContract) {
  ExpectRefused("float X", [](std::vector<TestTensor>* in, Attributes*) {
    (*in)[0] = TestTensor::Of<float>({1, 4, 5, 5}, std::vector<float>(100, 0.f));
    (*in)[1] = TestTensor::Const<float>({6, 4, 3, 3}, std::vector<float>(216, 0.f));
    (*in)[2] = TestTensor::Of<float>({6}, std::vector<float>(6, 0.f));
  });
  ExpectRefused("X without parameters", [](std::vector<TestTensor>* in, Attributes*) { (*in)[0].quant = {}; });
  ExpectRefused("per-channel X", [](std::vector<TestTensor>* in, Attributes*) {
    (*in)[0].quant.scale = {0.1f, 0.1f, 0.1f, 0.1f};
    (*in)[0].quant.zero_point = {0, 0, 0, 0};
    (*in)[0].quant.axis = 1;
  });
  ExpectRefused("asymmetric weights",
                [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].quant.zero_point[2] = 3; });
  ExpectRefused("non-constant weights", [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].constant = false; });
  ExpectRefused("weight scales neither 1 nor M",
                [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].quant.scale.resize(3); });
  ExpectRefused("weight scales along the wrong axis",
                [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].quant.axis = 1; });
  ExpectRefused("missing bias", [](std::vector<TestTensor>* in, Attributes*) { in->pop_back(); });
  ExpectRefused("absent bias", [](std::vector<TestTensor>* in, Attributes*) { (*in)[2] = TestTensor::Absent(); });
  ExpectRefused("int8 bias", [](std::vector<TestTensor>* in, Attributes*) {
    (*in)[2] = TestTensor::Const<int8_t>({6}, std::vector<int8_t>(6, 0));
  });
  ExpectRefused("fused LeakyRelu",
                [](std::vector<TestTensor>*, Attributes* a) { a->SetString("loom.activation", "LeakyRelu"); });
}

TEST(Int8ConvTest, RefusesPerChannelY) {
  const ConvCase c = C({1, 2, 4, 4}, 2, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0});
  std::mt19937 gen(9);
  const LinearQuant q = linear_test::RandomLinearQuant(2, 2, true, Clamp(), &gen);
  const auto inputs = ConvInputs(c, q, RandomInt8(32, &gen), RandomInt8(4, &gen), RandomInt32(2, &gen, -9, 9));
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt8, {1, 2, 4, 4}).WithQuant({0.1f, 0.2f}, {0, 0}, 1)};
  EXPECT_EQ(RunKernel("Conv", ConvAttrs(c), inputs, &outs, Int8Options("Conv")).code(), StatusCode::kUnsupported);
}

// Float Convs pass the int8 kernel by and run on the float one.
TEST(Int8ConvTest, FloatConvFallsThrough) {
  const auto x = TestTensor::Of<float>({1, 1, 3, 3}, std::vector<float>(9, 1.f));
  const auto w = TestTensor::Const<float>({1, 1, 1, 1}, {2.f});
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, {1, 1, 3, 3})};
  ASSERT_TRUE(RunKernel("Conv", {}, {x, w}, &outs).ok());
  EXPECT_EQ(outs[0].As<float>(), std::vector<float>(9, 2.f));
}

}  // namespace
}  // namespace int8
}  // namespace loom
