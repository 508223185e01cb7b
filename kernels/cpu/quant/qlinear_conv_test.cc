#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/quant/quant_test_util.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace quant {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

struct QConvOptions {
  DType x = DType::kUInt8, w = DType::kUInt8, y = DType::kUInt8;
  bool per_channel = false;  // w_scale and w_zero_point of M values
  bool bias = false;
  bool constant = false;  // w, scales, zero points and bias constant (else run-time inputs)
  int threads = 1;
};

// Outputs of one run: the kernel's, the fixed-point reference's and ONNX's
// float formula's.
struct QConvResult {
  std::vector<int32_t> got, want, onnx;
};

// Runs QLinearConv on random data and computes the references: ReferenceConv's
// accumulators plus the bias, requantized per output channel. y_scale is set
// from the accumulators' range so outputs spread over y's range.
void RunQConv(const ConvCase& c, const QConvOptions& o, uint32_t seed, QConvResult* r) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> x_scale_dist(0.002f, 0.05f), w_scale_dist(0.001f, 0.02f);
  const int64_t m = c.out_channels, channels = o.per_channel ? m : 1;
  Shape w_shape = {m, c.x[1] / c.group};
  for (int64_t k : c.kernel) w_shape.push_back(k);
  const auto x = Random8(o.x, NumElements(c.x), &gen), w = Random8(o.w, NumElements(w_shape), &gen);
  const auto x_zp = Random8(o.x, 1, &gen), w_zp = Random8(o.w, channels, &gen), y_zp = Random8(o.y, 1, &gen);
  const float x_scale = x_scale_dist(gen);
  std::vector<float> w_scale(static_cast<size_t>(channels));
  for (float& s : w_scale) s = w_scale_dist(gen);
  std::vector<int32_t> bias;
  std::uniform_int_distribution<int32_t> bias_dist(-30000, 30000);
  for (int64_t i = 0; o.bias && i < m; ++i) bias.push_back(bias_dist(gen));

  Shape out_shape;
  std::vector<int32_t> acc = ReferenceConv(c, x, w, x_zp[0], w_zp, &out_shape);
  const int64_t out_size = NumElements(out_shape) / (out_shape[0] * m);
  int32_t max_abs = 1;
  for (size_t i = 0; i < acc.size(); ++i) {
    if (o.bias) acc[i] += bias[static_cast<size_t>((static_cast<int64_t>(i) / out_size) % m)];
    max_abs = std::max(max_abs, std::abs(acc[i]));
  }
  const float y_scale = x_scale * w_scale[0] * static_cast<float>(max_abs) / 100.f;
  r->want.clear();
  r->onnx.clear();
  for (size_t i = 0; i < acc.size(); ++i) {
    const int64_t ch = (static_cast<int64_t>(i) / out_size) % m;
    const float ws = w_scale[static_cast<size_t>(o.per_channel ? ch : 0)];
    r->want.push_back(ReferenceQLinearOutput(acc[i], x_scale, ws, y_scale, y_zp[0], o.y));
    r->onnx.push_back(OnnxQLinearOutput(acc[i], x_scale, ws, y_scale, y_zp[0], o.y));
  }

  const bool k = o.constant;
  const Shape ch_shape = o.per_channel ? Shape{m} : seed % 2 ? Shape{} : Shape{1};
  std::vector<TestTensor> in = {Make8(o.x, c.x, x),
                                TestTensor::Of<float>({}, {x_scale}, k),
                                Make8(o.x, {}, x_zp, k),
                                Make8(o.w, w_shape, w, k),
                                TestTensor::Of<float>(ch_shape, w_scale, k),
                                Make8(o.w, ch_shape, w_zp, k),
                                TestTensor::Of<float>({1}, {y_scale}, k),
                                Make8(o.y, {1}, y_zp, k)};
  if (o.bias) in.push_back(TestTensor::Of<int32_t>({m}, bias, k));
  std::vector<TestTensor> out = {TestTensor::Empty(o.y, out_shape)};
  RunOptions opt;
  opt.threads = o.threads;
  const Status st = RunKernel("QLinearConv", ConvAttrs(c), in, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  r->got.clear();
  if (o.y == DType::kInt8) {
    for (int8_t v : out[0].As<int8_t>()) r->got.push_back(v);
  } else {
    for (uint8_t v : out[0].As<uint8_t>()) r->got.push_back(v);
  }
}

std::vector<ConvCase> Cases() {
  return {
      // 2-D: padding, strides, dilations, asymmetric pads.
      {{1, 3, 9, 11}, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{2, 5, 10, 7}, 6, {3, 2}, {2, 1}, {1, 2}, {0, 2, 1, 0}},
      // pointwise
      {{2, 16, 5, 6}, 12, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      // groups, depthwise
      {{1, 6, 8, 8}, 9, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 3},
      {{2, 4, 9, 10}, 4, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 4},
      // auto_pad
      {{1, 2, 7, 8}, 3, {3, 4}, {2, 3}, {1, 1}, {}, 1, "SAME_UPPER"},
      // 1-D and 3-D
      {{2, 3, 20}, 5, {4}, {2}, {2}, {3, 1}},
      {{1, 2, 5, 6, 7}, 3, {2, 3, 3}, {1, 2, 1}, {2, 1, 1}, {1, 0, 1, 0, 1, 1}},
      // several tiles, long reduction
      {{1, 3, 30, 40}, 5, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 64, 6, 6}, 3, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
  };
}

// Bit-exact with the fixed-point reference over every dtype combination,
// per-tensor and per-channel weights, with and without bias, constant and
// run-time parameters; and within one step of ONNX's float formula, rarely
// off it (qlinear_stages.h says where they can differ).
TEST(QLinearConv, MatchesReference) {
  const DType types[] = {DType::kUInt8, DType::kInt8};
  uint32_t seed = 1;
  int64_t outputs = 0, off_by_one = 0;
  for (const ConvCase& c : Cases())
    for (DType xt : types)
      for (DType wt : types)
        for (DType yt : types)
          for (bool per_channel : {false, true})
            for (bool bias : {false, true})
              for (bool constant : {false, true}) {
                QConvOptions o;
                o.x = xt;
                o.w = wt;
                o.y = yt;
                o.per_channel = per_channel;
                o.bias = bias;
                o.constant = constant;
                o.threads = constant ? 2 : 1;
                SCOPED_TRACE(::testing::Message()
                             << "x=" << ShapeToString(c.x) << " m=" << c.out_channels << " group=" << c.group << " "
                             << DTypeName(xt) << "/" << DTypeName(wt) << "->" << DTypeName(yt)
                             << " per_channel=" << per_channel << " bias=" << bias << " constant=" << constant);
                QConvResult r;
                RunQConv(c, o, seed++, &r);
                ASSERT_EQ(r.got, r.want);
                for (size_t i = 0; i < r.got.size(); ++i) {
                  ASSERT_LE(std::abs(r.got[i] - r.onnx[i]), 1) << "output " << i;
                  off_by_one += r.got[i] != r.onnx[i];
                }
                outputs += static_cast<int64_t>(r.got.size());
              }
  EXPECT_LT(off_by_one * 200, outputs) << off_by_one << " of " << outputs << " differ from the float formula";
}

// Padded taps read x_zero_point, and the bias joins the accumulator: with x
// all at its zero point, every output is requantize(B[m]).
TEST(QLinearConv, PaddingAndBias) {
  const auto x = TestTensor::Of<uint8_t>({1, 1, 2, 2}, {7, 7, 7, 7});
  const auto w = TestTensor::Of<int8_t>({2, 1, 3, 3}, std::vector<int8_t>(18, 5));
  Attributes attrs;
  attrs.SetInts("pads", {1, 1, 1, 1});
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt8, {1, 2, 2, 2})};
  const Status st = RunKernel("QLinearConv", attrs,
                              {x, TestTensor::Of<float>({}, {0.5f}), TestTensor::Of<uint8_t>({}, {7}), w,
                               TestTensor::Of<float>({2}, {0.25f, 0.5f}), TestTensor::Of<int8_t>({2}, {0, 0}),
                               TestTensor::Of<float>({}, {1.f}), TestTensor::Of<int8_t>({}, {-3}),
                               TestTensor::Of<int32_t>({2}, {80, -40})},
                              &out);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Channel 0: 80 · 0.5 · 0.25 = 10; channel 1: -40 · 0.5 · 0.5 = -10; plus -3.
  EXPECT_EQ(out[0].As<int8_t>(), (std::vector<int8_t>{7, 7, 7, 7, -13, -13, -13, -13}));
}

// An exact tie of the fixed-point arithmetic rounds up where ONNX's float
// formula rounds to even: acc · 0.5 = 0.5 gives 1, not 0; 1.5 gives 2 in both.
TEST(QLinearConv, TieRoundsUp) {
  const auto w = TestTensor::Of<uint8_t>({1, 1, 1, 1}, {1});
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kUInt8, {1, 1, 1, 2})};
  const Status st = RunKernel("QLinearConv", {},
                              {TestTensor::Of<uint8_t>({1, 1, 1, 2}, {1, 3}), TestTensor::Of<float>({}, {1.f}),
                               TestTensor::Of<uint8_t>({}, {0}), w, TestTensor::Of<float>({}, {1.f}),
                               TestTensor::Of<uint8_t>({}, {0}), TestTensor::Of<float>({}, {2.f}),
                               TestTensor::Of<uint8_t>({}, {0})},
                              &out);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out[0].As<uint8_t>(), (std::vector<uint8_t>{1, 2}));
}

// The valid node the error cases below break one piece of: x uint8 1x1x3x3,
// w int8 2x1x2x2 (M = 2), y uint8 1x2x2x2.
std::vector<TestTensor> ValidInputs() {
  return {TestTensor::Of<uint8_t>({1, 1, 3, 3}, std::vector<uint8_t>(9, 1)),
          TestTensor::Of<float>({}, {0.1f}),
          TestTensor::Of<uint8_t>({}, {0}),
          TestTensor::Of<int8_t>({2, 1, 2, 2}, std::vector<int8_t>(8, 1)),
          TestTensor::Of<float>({2}, {0.1f, 0.2f}),
          TestTensor::Of<int8_t>({2}, {0, 0}),
          TestTensor::Of<float>({}, {0.5f}),
          TestTensor::Of<uint8_t>({}, {3})};
}

Status RunConv(const std::vector<TestTensor>& in, DType out_dtype = DType::kUInt8) {
  std::vector<TestTensor> out = {TestTensor::Empty(out_dtype, {1, 2, 2, 2})};
  return RunKernel("QLinearConv", {}, in, &out);
}

// Runs ValidInputs() with input `i` replaced by `t` (and every input after
// x constant when `constant`); expects `code` and a message containing `text`.
void ExpectRejected(size_t i, const TestTensor& t, StatusCode code, const std::string& text, bool constant = false) {
  std::vector<TestTensor> in = ValidInputs();
  if (i == in.size()) {
    in.push_back(t);
  } else {
    in[i] = t;
  }
  for (size_t j = 1; j < in.size(); ++j) in[j].constant |= constant;
  const Status st = RunConv(in);
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(text), std::string::npos) << st.message();
}

TEST(QLinearConv, RejectsBadNodes) {
  ASSERT_TRUE(RunConv(ValidInputs()).ok());
  // Zero points must have their tensor's dtype.
  ExpectRejected(2, TestTensor::Of<int8_t>({}, {0}), StatusCode::kInvalidArgument, "x_zero_point has dtype int8");
  ExpectRejected(5, TestTensor::Of<uint8_t>({2}, {0, 0}), StatusCode::kInvalidArgument,
                 "w_zero_point has dtype uint8");
  // y's dtype is y_zero_point's.
  EXPECT_EQ(RunConv(ValidInputs(), DType::kInt8).code(), StatusCode::kInvalidArgument);
  ExpectRejected(7, TestTensor::Of<int32_t>({}, {0}), StatusCode::kInvalidArgument, "y_zero_point has dtype int32");
  // Per-channel counts: w_scale has M = 2 values (or 1), as many as w_zero_point.
  ExpectRejected(4, TestTensor::Of<float>({3}, {0.1f, 0.2f, 0.3f}), StatusCode::kInvalidArgument,
                 "w_scale has shape 3");
  ExpectRejected(4, TestTensor::Of<float>({}, {0.1f}), StatusCode::kInvalidArgument,
                 "w_scale has 1 values, w_zero_point 2");
  ExpectRejected(5, TestTensor::Of<int8_t>({3}, {0, 0, 0}), StatusCode::kInvalidArgument, "w_zero_point has shape");
  // x and y parameters are per tensor.
  ExpectRejected(1, TestTensor::Of<float>({2}, {0.1f, 0.1f}), StatusCode::kInvalidArgument, "x_scale has shape");
  ExpectRejected(6, TestTensor::Of<float>({2}, {0.1f, 0.1f}), StatusCode::kInvalidArgument, "y_scale has shape");
  ExpectRejected(7, TestTensor::Of<uint8_t>({2}, {1, 1}), StatusCode::kInvalidArgument, "y_zero_point has shape");
  // Scale dtypes: float32; float16 is unsupported.
  ExpectRejected(1, TestTensor::Of<int32_t>({}, {1}), StatusCode::kInvalidArgument, "x_scale has dtype int32");
  TestTensor half = TestTensor::Of<uint16_t>({}, {0x3c00});
  half.dtype = DType::kFloat16;
  ExpectRejected(6, half, StatusCode::kUnsupported, "y_scale of dtype float16");
  // Bias: int32 [M].
  ExpectRejected(8, TestTensor::Of<float>({2}, {0.f, 0.f}), StatusCode::kInvalidArgument, "B has dtype float32");
  ExpectRejected(8, TestTensor::Of<int32_t>({3}, {0, 0, 0}), StatusCode::kInvalidArgument, "B has shape 3");
  // Zero points are required inputs.
  ExpectRejected(2, TestTensor::Absent(), StatusCode::kInvalidArgument, "input 2 is required");
  // A scale product outside (0, 2^31): in Prepare when constant, in Run otherwise.
  for (bool constant : {true, false}) {
    ExpectRejected(6, TestTensor::Of<float>({}, {0.f}), StatusCode::kInvalidArgument,
                   "x_scale * w_scale[0] / y_scale", constant);
    ExpectRejected(4, TestTensor::Of<float>({2}, {0.1f, -0.2f}), StatusCode::kInvalidArgument,
                   "x_scale * w_scale[1] / y_scale", constant);
  }
}

}  // namespace
}  // namespace quant
}  // namespace loom
