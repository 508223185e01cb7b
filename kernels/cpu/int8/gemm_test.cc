// The int8 Gemm against a naive product over raw int8 values with
// requantize.h's output stages, bit for bit (transB, C as [N] and [1, N],
// sizes off every tile, fused clamps, per-column and per-tensor weight
// scales, 1 and 3 threads, every GEMM implementation); then the nodes
// outside the int8 contract, which Gemm and MatMul refuse.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using linear_test::Clamp;
using linear_test::Int8Options;
using linear_test::LinearQuant;
using linear_test::RandomInt32;
using linear_test::RandomInt8;
using testing::RunKernel;
using testing::TestTensor;

struct GemmCase {
  int64_t m, k, n;
  bool trans_b;
  bool row_bias;  // C as [1, N]
};

void CheckGemm(const GemmCase& c, bool per_channel, Clamp clamp, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "m=" << c.m << " k=" << c.k << " n=" << c.n << " transB=" << c.trans_b
                                    << " per_channel=" << per_channel << " clamp=" << clamp.kind);
  std::mt19937 gen(seed);
  const LinearQuant q = linear_test::RandomLinearQuant(c.n, c.k, per_channel, clamp, &gen);
  const auto a = RandomInt8(c.m * c.k, &gen), b = RandomInt8(c.k * c.n, &gen);
  const auto bias = linear_test::RandomBias(c.n, c.k, &gen);
  const auto want = linear_test::ReferenceProduct(c.m, c.k, c.n, a, b, bias, q);
  if (clamp.kind == Clamp::kNone) linear_test::ExpectSpread(want);
  const std::vector<int64_t> w_zero(q.w_scales.size(), 0);
  const TestTensor tb =
      c.trans_b
          ? TestTensor::Const<int8_t>({c.n, c.k}, linear_test::Transpose(b, c.k, c.n)).WithQuant(q.w_scales, w_zero, 0)
          : TestTensor::Const<int8_t>({c.k, c.n}, b).WithQuant(q.w_scales, w_zero, 1);
  const std::vector<TestTensor> inputs = {
      TestTensor::Of<int8_t>({c.m, c.k}, a).WithQuant({q.x_scale}, {q.x_zero_point}), tb,
      TestTensor::Const<int32_t>(c.row_bias ? Shape{1, c.n} : Shape{c.n}, bias)};
  Attributes attrs;
  if (c.trans_b) attrs.SetInt("transB", 1);
  linear_test::ExpectRuns("Gemm", attrs, inputs, {c.m, c.n}, q, want);
}

TEST(Int8GemmTest, MatchesNaive) {
  const GemmCase cases[] = {
      {1, 512, 1000, true, false}, {7, 33, 17, false, false},   {13, 1, 5, true, true},    {4, 2, 16, false, true},
      {37, 300, 70, true, false},  {64, 129, 33, false, false}, {2, 4097, 3, true, false}, {1, 9, 1, false, false},
  };
  uint32_t seed = 1;
  for (const GemmCase& c : cases) {
    CheckGemm(c, true, Clamp(), seed++);
    CheckGemm(c, false, Clamp(), seed++);
  }
  Clamp relu;
  relu.kind = Clamp::kRelu;
  Clamp clip;
  clip.kind = Clamp::kClip;
  clip.lo = -1.f;
  clip.hi = 0.75f;
  CheckGemm(cases[1], true, relu, seed++);
  CheckGemm(cases[4], true, clip, seed++);
}

// The int8 `op` refuses (Unsupported) the node `edit` makes of a valid one.
void ExpectRefused(const std::string& op, const std::string& what,
                   const std::function<void(std::vector<TestTensor>*, Attributes*)>& edit) {
  SCOPED_TRACE(op + ": " + what);
  std::mt19937 gen(3);
  const LinearQuant q = linear_test::RandomLinearQuant(5, 4, true, Clamp(), &gen);
  std::vector<TestTensor> inputs = {
      TestTensor::Of<int8_t>({3, 4}, RandomInt8(12, &gen)).WithQuant({q.x_scale}, {q.x_zero_point}),
      TestTensor::Const<int8_t>({4, 5}, RandomInt8(20, &gen)).WithQuant(q.w_scales, {0, 0, 0, 0, 0}, 1),
      TestTensor::Const<int32_t>({5}, RandomInt32(5, &gen, -9, 9))};
  Attributes attrs;
  edit(&inputs, &attrs);
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt8, {3, 5}).WithQuant({q.y_scale}, {q.y_zero_point})};
  const Status st = RunKernel(op, attrs, inputs, &outs, Int8Options(op));
  EXPECT_EQ(st.code(), StatusCode::kUnsupported) << st.ToString();
}

TEST(Int8GemmTest, RefusesWhatIsOutsideTheContract) {
  for (const std::string op : {"Gemm", "MatMul"}) {
    ExpectRefused(op, "float A", [](std::vector<TestTensor>* in, Attributes*) {
      (*in)[0] = TestTensor::Of<float>({3, 4}, std::vector<float>(12, 0.f));
      (*in)[1] = TestTensor::Const<float>({4, 5}, std::vector<float>(20, 0.f));
      in->pop_back();
    });
    ExpectRefused(op, "asymmetric B",
                  [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].quant.zero_point[4] = -1; });
    ExpectRefused(op, "non-constant B", [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].constant = false; });
    ExpectRefused(op, "B scales along the rows",
                  [](std::vector<TestTensor>* in, Attributes*) { (*in)[1].quant.axis = 0; });
    ExpectRefused(op, "missing bias", [](std::vector<TestTensor>* in, Attributes*) { in->pop_back(); });
    ExpectRefused(op, "per-channel A", [](std::vector<TestTensor>* in, Attributes*) {
      (*in)[0].quant.scale = {0.1f, 0.1f, 0.1f};
      (*in)[0].quant.zero_point = {0, 0, 0};
    });
    ExpectRefused(op, "fused Sigmoid",
                  [](std::vector<TestTensor>*, Attributes* a) { a->SetString("loom.activation", "Sigmoid"); });
  }
  ExpectRefused("Gemm", "alpha 2", [](std::vector<TestTensor>*, Attributes* a) { a->SetFloat("alpha", 2.f); });
  ExpectRefused("Gemm", "beta 0", [](std::vector<TestTensor>*, Attributes* a) { a->SetFloat("beta", 0.f); });
  ExpectRefused("Gemm", "transA", [](std::vector<TestTensor>* in, Attributes* a) {
    a->SetInt("transA", 1);
    (*in)[0].shape = {4, 3};
  });
  ExpectRefused("Gemm", "C of shape [M, N]", [](std::vector<TestTensor>* in, Attributes*) {
    (*in)[2] = TestTensor::Const<int32_t>({3, 5}, std::vector<int32_t>(15, 0));
  });
  ExpectRefused("MatMul", "3-D B", [](std::vector<TestTensor>* in, Attributes*) {
    const QuantParams wq = (*in)[1].quant;
    (*in)[1] = TestTensor::Const<int8_t>({1, 4, 5}, std::vector<int8_t>(20, 1));
    (*in)[1].quant = wq;
    (*in)[1].quant.axis = 2;
  });
}

}  // namespace
}  // namespace int8
}  // namespace loom
