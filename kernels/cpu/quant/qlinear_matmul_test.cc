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

struct QMatMulOptions {
  DType a = DType::kUInt8, b = DType::kUInt8, y = DType::kUInt8;
  bool per_row = false;     // a_scale and a_zero_point of M values
  bool per_column = false;  // b_scale and b_zero_point of N values
  bool constant = false;    // B, scales and zero points constant (else run-time inputs)
  bool nd_params = false;   // per-row / per-column parameters as [M, 1] / [1, N]
  int threads = 1;
};

// Runs QLinearMatMul on random data; `want` is ReferenceMatMul's accumulators
// requantized by the fixed-point reference, `onnx` by ONNX's float formula.
void RunQMatMul(const Shape& a_shape, const Shape& b_shape, const QMatMulOptions& o, uint32_t seed,
                std::vector<int32_t>* got, std::vector<int32_t>* want, std::vector<int32_t>* onnx) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> a_scale_dist(0.002f, 0.05f), b_scale_dist(0.001f, 0.02f);
  const int64_t m = a_shape.size() == 1 ? 1 : a_shape[a_shape.size() - 2], n = b_shape.size() == 1 ? 1 : b_shape.back();
  const int64_t a_count = o.per_row ? m : 1, b_count = o.per_column ? n : 1;
  const auto a = Random8(o.a, NumElements(a_shape), &gen), b = Random8(o.b, NumElements(b_shape), &gen);
  const auto a_zp = Random8(o.a, a_count, &gen), b_zp = Random8(o.b, b_count, &gen), y_zp = Random8(o.y, 1, &gen);
  std::vector<float> a_scale(static_cast<size_t>(a_count)), b_scale(static_cast<size_t>(b_count));
  for (float& s : a_scale) s = a_scale_dist(gen);
  for (float& s : b_scale) s = b_scale_dist(gen);

  Shape out_shape;
  const std::vector<int32_t> acc = ReferenceMatMul(a_shape, b_shape, a, b, a_zp, b_zp, &out_shape);
  int32_t max_abs = 1;
  for (int32_t v : acc) max_abs = std::max(max_abs, std::abs(v));
  const float y_scale = a_scale[0] * b_scale[0] * static_cast<float>(max_abs) / 100.f;
  want->clear();
  onnx->clear();
  for (size_t idx = 0; idx < acc.size(); ++idx) {
    const int64_t i = (static_cast<int64_t>(idx) / n) % m, j = static_cast<int64_t>(idx) % n;
    const float as = a_scale[static_cast<size_t>(o.per_row ? i : 0)];
    const float bs = b_scale[static_cast<size_t>(o.per_column ? j : 0)];
    want->push_back(ReferenceQLinearOutput(acc[idx], as, bs, y_scale, y_zp[0], o.y));
    onnx->push_back(OnnxQLinearOutput(acc[idx], as, bs, y_scale, y_zp[0], o.y));
  }

  const bool k = o.constant;
  const Shape a_param = o.per_row ? (o.nd_params ? Shape{m, 1} : Shape{m}) : Shape{};
  const Shape b_param = o.per_column ? (o.nd_params ? Shape{1, n} : Shape{n}) : Shape{1};
  std::vector<TestTensor> in = {Make8(o.a, a_shape, a),
                                TestTensor::Of<float>(a_param, a_scale, k),
                                Make8(o.a, a_param, a_zp, k),
                                Make8(o.b, b_shape, b, k),
                                TestTensor::Of<float>(b_param, b_scale, k),
                                Make8(o.b, b_param, b_zp, k),
                                TestTensor::Of<float>({}, {y_scale}, k),
                                Make8(o.y, {}, y_zp, k)};
  std::vector<TestTensor> out = {TestTensor::Empty(o.y, out_shape)};
  RunOptions opt;
  opt.threads = o.threads;
  const Status st = RunKernel("QLinearMatMul", {}, in, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  got->clear();
  if (o.y == DType::kInt8) {
    for (int8_t v : out[0].As<int8_t>()) got->push_back(v);
  } else {
    for (uint8_t v : out[0].As<uint8_t>()) got->push_back(v);
  }
}

struct Shapes {
  Shape a, b;
};

std::vector<Shapes> Cases() {
  return {
      {{3, 4}, {4, 5}},
      {{1, 1}, {1, 1}},
      {{7, 37}, {37, 13}},
      {{2, 3, 8}, {8, 6}},        // B shared: A batches folded
      {{3, 8}, {2, 8, 5}},        // A broadcast over B's batch
      {{2, 1, 4, 9}, {3, 9, 2}},  // both broadcast
      {{4}, {4, 3}},              // 1-D A
      {{2, 5, 6}, {6}},           // 1-D B
      {{5, 70}, {70, 33}},
  };
}

// Bit-exact with the fixed-point reference over every dtype combination,
// per-tensor / per-row / per-column parameters, constant and run-time; within
// one step of ONNX's float formula, rarely off it.
TEST(QLinearMatMul, MatchesReference) {
  const DType types[] = {DType::kUInt8, DType::kInt8};
  uint32_t seed = 1;
  int64_t outputs = 0, off_by_one = 0;
  for (const Shapes& c : Cases())
    for (DType at : types)
      for (DType bt : types)
        for (DType yt : types)
          for (bool per_row : {false, true})
            for (bool per_column : {false, true})
              for (bool constant : {false, true}) {
                QMatMulOptions o;
                o.a = at;
                o.b = bt;
                o.y = yt;
                o.per_row = per_row;
                o.per_column = per_column;
                o.constant = constant;
                o.threads = constant ? 2 : 1;
                SCOPED_TRACE(::testing::Message() << "A=" << ShapeToString(c.a) << " B=" << ShapeToString(c.b) << " "
                                                  << DTypeName(at) << "/" << DTypeName(bt) << "->" << DTypeName(yt)
                                                  << " per_row=" << per_row << " per_column=" << per_column
                                                  << " constant=" << constant);
                std::vector<int32_t> got, want, onnx;
                RunQMatMul(c.a, c.b, o, seed++, &got, &want, &onnx);
                ASSERT_EQ(got, want);
                for (size_t i = 0; i < got.size(); ++i) {
                  ASSERT_LE(std::abs(got[i] - onnx[i]), 1) << "output " << i;
                  off_by_one += got[i] != onnx[i];
                }
                outputs += static_cast<int64_t>(got.size());
              }
  EXPECT_LT(off_by_one * 200, outputs) << off_by_one << " of " << outputs << " differ from the float formula";
}

TEST(QLinearMatMul, NdParameterShapes) {
  // The spec's [M, 1] (per row of A) and [1, N] (per column of B) forms.
  QMatMulOptions o;
  o.per_row = o.per_column = o.nd_params = true;
  o.a = DType::kInt8;
  for (bool constant : {false, true}) {
    o.constant = constant;
    std::vector<int32_t> got, want, onnx;
    RunQMatMul({2, 3, 4}, {4, 5}, o, 3, &got, &want, &onnx);
    EXPECT_EQ(got, want);
  }
}

// The valid node the error cases below break one piece of: A uint8 2x3,
// B int8 3x2 with per-column parameters, y uint8 2x2.
std::vector<TestTensor> ValidInputs() {
  return {TestTensor::Of<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
          TestTensor::Of<float>({}, {0.1f}),
          TestTensor::Of<uint8_t>({}, {0}),
          TestTensor::Of<int8_t>({3, 2}, {1, 2, 3, 4, 5, 6}),
          TestTensor::Of<float>({2}, {0.1f, 0.2f}),
          TestTensor::Of<int8_t>({2}, {0, 0}),
          TestTensor::Of<float>({}, {0.5f}),
          TestTensor::Of<uint8_t>({}, {3})};
}

// Runs ValidInputs() with input `i` replaced by `t` (every input after A
// constant when `constant`); expects `code` and a message containing `text`.
void ExpectRejected(size_t i, const TestTensor& t, StatusCode code, const std::string& text, bool constant = false) {
  std::vector<TestTensor> in = ValidInputs();
  in[i] = t;
  for (size_t j = 1; j < in.size(); ++j) in[j].constant |= constant;
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kUInt8, {2, 2})};
  const Status st = RunKernel("QLinearMatMul", {}, in, &out);
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_NE(st.message().find(text), std::string::npos) << st.message();
}

TEST(QLinearMatMul, RejectsBadNodes) {
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kUInt8, {2, 2})};
  ASSERT_TRUE(RunKernel("QLinearMatMul", {}, ValidInputs(), &out).ok());
  // y's dtype is y_zero_point's.
  out = {TestTensor::Empty(DType::kInt8, {2, 2})};
  EXPECT_EQ(RunKernel("QLinearMatMul", {}, ValidInputs(), &out).code(), StatusCode::kInvalidArgument);
  // Operands and zero points.
  ExpectRejected(0, TestTensor::Of<float>({2, 3}, std::vector<float>(6)), StatusCode::kInvalidArgument,
                 "A has dtype float32");
  ExpectRejected(2, TestTensor::Of<int8_t>({}, {0}), StatusCode::kInvalidArgument, "a_zero_point has dtype int8");
  ExpectRejected(5, TestTensor::Of<uint8_t>({2}, {0, 0}), StatusCode::kInvalidArgument,
                 "b_zero_point has dtype uint8");
  ExpectRejected(7, TestTensor::Of<int8_t>({}, {0}), StatusCode::kInvalidArgument, "output 0 has dtype uint8");
  // Per-column counts: N = 2 (or 1), as many scales as zero points.
  ExpectRejected(4, TestTensor::Of<float>({3}, {0.1f, 0.2f, 0.3f}), StatusCode::kInvalidArgument,
                 "b_scale has shape 3");
  ExpectRejected(4, TestTensor::Of<float>({2, 1}, {0.1f, 0.2f}), StatusCode::kInvalidArgument, "b_scale has shape");
  ExpectRejected(4, TestTensor::Of<float>({}, {0.1f}), StatusCode::kInvalidArgument,
                 "b_scale has 1 values, b_zero_point 2");
  ExpectRejected(1, TestTensor::Of<float>({3}, {0.1f, 0.1f, 0.1f}), StatusCode::kInvalidArgument,
                 "a_scale has shape 3");
  ExpectRejected(1, TestTensor::Of<float>({2}, {0.1f, 0.1f}), StatusCode::kInvalidArgument,
                 "a_scale has 2 values, a_zero_point 1");
  // Per-batch parameters are beyond what the kernel implements.
  ExpectRejected(4, TestTensor::Of<float>({2, 1, 2}, {0.1f, 0.2f, 0.1f, 0.2f}), StatusCode::kUnsupported,
                 "per-batch");
  // y parameters are per tensor; scales float32.
  ExpectRejected(6, TestTensor::Of<float>({2}, {0.1f, 0.1f}), StatusCode::kInvalidArgument, "y_scale has shape");
  ExpectRejected(7, TestTensor::Of<uint8_t>({2}, {1, 1}), StatusCode::kInvalidArgument, "y_zero_point has shape");
  ExpectRejected(6, TestTensor::Of<double>({}, {0.5}), StatusCode::kInvalidArgument, "y_scale has dtype float64");
  TestTensor half = TestTensor::Of<uint16_t>({2}, {0x3c00, 0x3c00});
  half.dtype = DType::kBFloat16;
  ExpectRejected(4, half, StatusCode::kUnsupported, "b_scale of dtype bfloat16");
  // A scale product outside (0, 2^31), in Prepare when constant, in Run otherwise.
  for (bool constant : {true, false}) {
    ExpectRejected(4, TestTensor::Of<float>({2}, {0.1f, 0.f}), StatusCode::kInvalidArgument,
                   "a_scale * b_scale[1] / y_scale", constant);
  }
}

}  // namespace
}  // namespace quant
}  // namespace loom
