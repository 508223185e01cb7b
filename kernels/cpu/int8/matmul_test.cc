// The int8 MatMul against a naive product over raw int8 values with
// requantize.h's output stages, bit for bit (1-D A, batch dims folded into
// rows, sizes off every tile, a fused clamp, per-column and per-tensor weight
// scales, 1 and 3 threads, every GEMM implementation). Its refusals are in
// gemm_test.cc with Gemm's.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using linear_test::Clamp;
using linear_test::LinearQuant;
using linear_test::RandomInt8;
using testing::TestTensor;

struct MatMulCase {
  Shape a;  // [..., K]
  int64_t n;
};

void CheckMatMul(const MatMulCase& c, bool per_channel, Clamp clamp, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "a=" << ShapeToString(c.a) << " n=" << c.n << " per_channel=" << per_channel
                                    << " clamp=" << clamp.kind);
  std::mt19937 gen(seed);
  const int64_t k = c.a.back(), m = NumElements(c.a) / k;
  const LinearQuant q = linear_test::RandomLinearQuant(c.n, k, per_channel, clamp, &gen);
  const auto a = RandomInt8(m * k, &gen), b = RandomInt8(k * c.n, &gen);
  const auto bias = linear_test::RandomBias(c.n, k, &gen);
  const auto want = linear_test::ReferenceProduct(m, k, c.n, a, b, bias, q);
  if (clamp.kind == Clamp::kNone) linear_test::ExpectSpread(want);
  const std::vector<int64_t> w_zero(q.w_scales.size(), 0);
  const std::vector<TestTensor> inputs = {TestTensor::Of<int8_t>(c.a, a).WithQuant({q.x_scale}, {q.x_zero_point}),
                                          TestTensor::Const<int8_t>({k, c.n}, b).WithQuant(q.w_scales, w_zero, 1),
                                          TestTensor::Const<int32_t>({c.n}, bias)};
  Shape out_shape(c.a.begin(), c.a.end() - 1);
  out_shape.push_back(c.n);
  linear_test::ExpectRuns("MatMul", {}, inputs, out_shape, q, want);
}

TEST(Int8MatMulTest, MatchesNaive) {
  const MatMulCase cases[] = {
      {{300}, 17}, {{1, 64}, 100}, {{5, 33}, 47}, {{2, 3, 7, 20}, 9}, {{4, 16, 128}, 64}, {{3, 1}, 2},
  };
  uint32_t seed = 50;
  for (const MatMulCase& c : cases) {
    CheckMatMul(c, true, Clamp(), seed++);
    CheckMatMul(c, false, Clamp(), seed++);
  }
  Clamp relu;
  relu.kind = Clamp::kRelu;
  CheckMatMul(cases[4], true, relu, seed++);
}

}  // namespace
}  // namespace int8
}  // namespace loom
