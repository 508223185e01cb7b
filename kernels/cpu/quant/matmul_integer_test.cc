#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

enum class ZeroPoint { kAbsent, kScalar, kOne, kVector };

struct MatMulCase {
  Shape a, b;
};

TestTensor ZeroPointTensor(DType dtype, ZeroPoint mode, int64_t len, const Shape& vector_shape,
                           std::mt19937* gen, std::vector<int32_t>* values) {
  values->clear();
  if (mode == ZeroPoint::kAbsent) return TestTensor::Absent();
  const int64_t count = mode == ZeroPoint::kVector ? len : 1;
  *values = Random8(dtype, count, gen);
  const Shape shape = mode == ZeroPoint::kScalar ? Shape{} : mode == ZeroPoint::kOne ? Shape{1} : vector_shape;
  return Make8(dtype, shape, *values, true);
}

void CheckMatMul(const MatMulCase& c, DType at, DType bt, ZeroPoint azp, ZeroPoint bzp, bool const_b, int threads,
                 uint32_t seed, bool nd_zero_points = false) {
  SCOPED_TRACE(::testing::Message() << "A=" << ShapeToString(c.a) << " B=" << ShapeToString(c.b) << " "
                                    << DTypeName(at) << "x" << DTypeName(bt) << " azp=" << static_cast<int>(azp)
                                    << " bzp=" << static_cast<int>(bzp) << " const_b=" << const_b
                                    << " threads=" << threads << " nd=" << nd_zero_points);
  std::mt19937 gen(seed);
  const auto a = Random8(at, NumElements(c.a), &gen), b = Random8(bt, NumElements(c.b), &gen);
  const int64_t m = c.a.size() == 1 ? 1 : c.a[c.a.size() - 2], n = c.b.size() == 1 ? 1 : c.b.back();
  std::vector<int32_t> a_zp, b_zp;
  const Shape a_vec = nd_zero_points ? Shape{m, 1} : Shape{m}, b_vec = nd_zero_points ? Shape{1, n} : Shape{n};
  TestTensor a_zp_t = ZeroPointTensor(at, azp, m, a_vec, &gen, &a_zp);
  TestTensor b_zp_t = ZeroPointTensor(bt, bzp, n, b_vec, &gen, &b_zp);
  Shape out_shape;
  const auto ref = ReferenceMatMul(c.a, c.b, a, b, a_zp, b_zp, &out_shape);
  std::vector<TestTensor> in = {Make8(at, c.a, a), Make8(bt, c.b, b, const_b)};
  if (azp != ZeroPoint::kAbsent || bzp != ZeroPoint::kAbsent) in.push_back(a_zp_t);
  if (bzp != ZeroPoint::kAbsent) in.push_back(b_zp_t);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt32, out_shape)};
  RunOptions opt;
  opt.threads = threads;
  const Status st = RunKernel("MatMulInteger", {}, in, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out[0].As<int32_t>(), ref);
}

std::vector<MatMulCase> Cases() {
  return {
      {{3, 4}, {4, 5}},
      {{1, 1}, {1, 1}},
      {{7, 37}, {37, 13}},
      {{2, 3, 8}, {8, 6}},           // B shared: A batches folded
      {{3, 8}, {2, 8, 5}},           // A broadcast over B's batch
      {{2, 1, 4, 9}, {3, 9, 2}},     // both broadcast
      {{4}, {4, 3}},                 // 1-D A
      {{2, 5, 6}, {6}},              // 1-D B
      {{6}, {6}},                    // both 1-D
      {{3, 0}, {0, 2}},              // empty reduction
      {{5, 70}, {70, 33}},
  };
}

TEST(MatMulInteger, MatchesReference) {
  const DType types[] = {DType::kUInt8, DType::kInt8};
  uint32_t seed = 1;
  for (const MatMulCase& c : Cases())
    for (DType at : types)
      for (DType bt : types)
        for (ZeroPoint azp : {ZeroPoint::kAbsent, ZeroPoint::kScalar, ZeroPoint::kVector})
          for (ZeroPoint bzp : {ZeroPoint::kAbsent, ZeroPoint::kOne, ZeroPoint::kVector})
            for (bool const_b : {false, true}) CheckMatMul(c, at, bt, azp, bzp, const_b, const_b ? 2 : 1, seed++);
}

TEST(MatMulInteger, RandomShapes) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> dim(1, 12), rank(1, 4), pick(0, 3);
  for (int i = 0; i < 60; ++i) {
    MatMulCase c;
    const int ra = rank(gen), rb = rank(gen);
    const int64_t k = dim(gen);
    Shape batch;
    for (int d = 0; d < std::max(ra, rb) - 2; ++d) batch.push_back(dim(gen) % 3 + 1);
    for (int d = 0; d < ra - 2; ++d) c.a.push_back(pick(gen) == 0 ? 1 : batch[batch.size() - (ra - 2) + d]);
    for (int d = 0; d < rb - 2; ++d) c.b.push_back(pick(gen) == 0 ? 1 : batch[batch.size() - (rb - 2) + d]);
    if (ra >= 2) c.a.push_back(dim(gen));
    c.a.push_back(k);
    c.b.push_back(k);
    if (rb >= 2) c.b.push_back(dim(gen));
    const DType at = pick(gen) % 2 ? DType::kInt8 : DType::kUInt8, bt = pick(gen) % 2 ? DType::kInt8 : DType::kUInt8;
    CheckMatMul(c, at, bt, static_cast<ZeroPoint>(pick(gen)), static_cast<ZeroPoint>(pick(gen)), pick(gen) % 2,
                1 + pick(gen) % 2, 100 + i);
  }
}

TEST(MatMulInteger, NdZeroPointShapes) {
  // The spec's [M, 1] (per row of A) and [1, N] (per column of B) forms.
  CheckMatMul({{2, 3, 4}, {4, 5}}, DType::kUInt8, DType::kInt8, ZeroPoint::kVector, ZeroPoint::kVector, true, 1, 3,
              true);
}

Status RunMatMul(const std::vector<TestTensor>& in, DType out_dtype, Shape out_shape) {
  std::vector<TestTensor> out = {TestTensor::Empty(out_dtype, std::move(out_shape))};
  return RunKernel("MatMulInteger", {}, in, &out);
}

TEST(MatMulInteger, RejectsBadNodes) {
  const auto a = TestTensor::Of<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto b = TestTensor::Of<int8_t>({3, 2}, {1, 2, 3, 4, 5, 6});
  // Operand dtypes.
  Status st = RunMatMul({TestTensor::Of<float>({2, 3}, std::vector<float>(6)), b}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("A has dtype float32"), std::string::npos) << st.message();
  st = RunMatMul({a, TestTensor::Of<int32_t>({3, 2}, std::vector<int32_t>(6))}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Output dtype and shape.
  st = RunMatMul({a, b}, DType::kFloat32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  st = RunMatMul({a, TestTensor::Of<int8_t>({2, 2}, {1, 2, 3, 4})}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Zero-point dtypes must match their tensors.
  st = RunMatMul({a, b, TestTensor::Of<int8_t>({}, {1})}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("a_zero_point has dtype int8"), std::string::npos) << st.message();
  st = RunMatMul({a, b, TestTensor::Absent(), TestTensor::Of<uint8_t>({}, {1})}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Zero-point shapes: a_zero_point per row (M = 2), b_zero_point per column (N = 2).
  st = RunMatMul({a, b, TestTensor::Of<uint8_t>({3}, {1, 2, 3})}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("a_zero_point has shape"), std::string::npos) << st.message();
  st = RunMatMul({a, b, TestTensor::Absent(), TestTensor::Of<int8_t>({3}, {1, 2, 3})}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  st = RunMatMul({a, b, TestTensor::Absent(), TestTensor::Of<int8_t>({2, 1}, {1, 2})}, DType::kInt32, {2, 2});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Per-batch zero points are beyond what the kernel implements.
  const auto a3 = TestTensor::Of<uint8_t>({2, 2, 3}, std::vector<uint8_t>(12, 1));
  st = RunMatMul({a3, b, TestTensor::Of<uint8_t>({2, 2, 1}, {1, 2, 3, 4})}, DType::kInt32, {2, 2, 2});
  EXPECT_EQ(st.code(), StatusCode::kUnsupported) << st.ToString();
}

}  // namespace
}  // namespace quant
}  // namespace loom
