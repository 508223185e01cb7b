#include <gtest/gtest.h>

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

Attributes Equation(const std::string& eq) {
  Attributes a;
  a.SetString("equation", eq);
  return a;
}

template <typename T>
std::vector<T> RunEinsum(const std::string& eq, const std::vector<TestTensor>& inputs, const Shape& out_shape,
                         int threads = 1) {
  RunOptions opt;
  opt.threads = threads;
  TestTensor out;
  const Status s = RunOne("Einsum", Equation(eq), inputs, DTypeOf<T>::value, out_shape, &out, opt);
  EXPECT_TRUE(s.ok()) << eq << ": " << s.message();
  return out.As<T>();
}

TEST(EinsumTest, MatmulAndBatchMatmul) {
  const int64_t M = 5, K = 7, N = 3, B = 2;
  const std::vector<float> a = RandomValues<float>(B * M * K, -1, 1, 1);
  const std::vector<float> b = RandomValues<float>(B * K * N, -1, 1, 2);
  const std::vector<float> y = RunEinsum<float>(
      "bik,bkj->bij", {TestTensor::Of<float>({B, M, K}, a), TestTensor::Of<float>({B, K, N}, b)}, {B, M, N});
  for (int64_t bb = 0; bb < B; ++bb) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        float want = 0;
        for (int64_t k = 0; k < K; ++k) want += a[(bb * M + i) * K + k] * b[(bb * K + k) * N + j];
        ASSERT_NEAR(y[(bb * M + i) * N + j], want, 1e-5);
      }
    }
  }
  // The same product, transposed output, implicit form, two threads.
  const std::vector<float> a2(a.begin(), a.begin() + M * K), b2(b.begin(), b.begin() + K * N);
  const std::vector<float> yt =
      RunEinsum<float>("ik,kj->ji", {TestTensor::Of<float>({M, K}, a2), TestTensor::Of<float>({K, N}, b2)}, {N, M}, 2);
  const std::vector<float> yi =
      RunEinsum<float>("ik,kj", {TestTensor::Of<float>({M, K}, a2), TestTensor::Of<float>({K, N}, b2)}, {M, N});
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      EXPECT_NEAR(yt[j * M + i], y[i * N + j], 1e-5);
      EXPECT_NEAR(yi[i * N + j], y[i * N + j], 1e-5);
    }
  }
}

TEST(EinsumTest, TransposeReduceTraceDiagonal) {
  const std::vector<int32_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const TestTensor m = TestTensor::Of<int32_t>({3, 3}, x);
  EXPECT_EQ(RunEinsum<int32_t>("ij->ji", {m}, {3, 3}), (std::vector<int32_t>{1, 4, 7, 2, 5, 8, 3, 6, 9}));
  EXPECT_EQ(RunEinsum<int32_t>("ji", {m}, {3, 3}),
            (std::vector<int32_t>{1, 4, 7, 2, 5, 8, 3, 6, 9}));  // implicit: sorted
  EXPECT_EQ(RunEinsum<int32_t>("ij->i", {m}, {3}), (std::vector<int32_t>{6, 15, 24}));
  EXPECT_EQ(RunEinsum<int32_t>("ij->", {m}, {}), (std::vector<int32_t>{45}));
  EXPECT_EQ(RunEinsum<int32_t>("ii", {m}, {}), (std::vector<int32_t>{15}));  // trace
  EXPECT_EQ(RunEinsum<int32_t>("ii->i", {m}, {3}), (std::vector<int32_t>{1, 5, 9}));
  EXPECT_EQ(
      RunEinsum<int32_t>("i,i", {TestTensor::Of<int32_t>({3}, {1, 2, 3}), TestTensor::Of<int32_t>({3}, {4, 5, 6})}, {}),
      (std::vector<int32_t>{32}));
  EXPECT_EQ(RunEinsum<int32_t>(
                "i,j->ij", {TestTensor::Of<int32_t>({2}, {1, 2}), TestTensor::Of<int32_t>({3}, {1, 10, 100})}, {2, 3}),
            (std::vector<int32_t>{1, 10, 100, 2, 20, 200}));
}

TEST(EinsumTest, EllipsisBroadcastAndThreeInputs) {
  const std::vector<double> a = RandomValues<double>(2 * 3 * 4, -1, 1, 3);
  const std::vector<double> b = RandomValues<double>(4 * 5, -1, 1, 4);
  // "...ij,jk->...ik" with a batch only on the first input.
  const std::vector<double> y = RunEinsum<double>(
      "...ij,jk->...ik", {TestTensor::Of<double>({2, 3, 4}, a), TestTensor::Of<double>({4, 5}, b)}, {2, 3, 5});
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t k = 0; k < 5; ++k) {
        double want = 0;
        for (int64_t j = 0; j < 4; ++j) want += a[(n * 3 + i) * 4 + j] * b[j * 5 + k];
        ASSERT_NEAR(y[(n * 3 + i) * 5 + k], want, 1e-12);
      }
    }
  }
  // Broadcasting a size-1 ellipsis dim.
  const std::vector<double> yb = RunEinsum<double>(
      "...i,...i->...",
      {TestTensor::Of<double>({2, 1, 2}, {1, 2, 3, 4}), TestTensor::Of<double>({3, 2}, {1, 0, 0, 1, 1, 1})}, {2, 3});
  EXPECT_EQ(yb, (std::vector<double>{1, 2, 3, 3, 4, 7}));
  // Three inputs: sum_j a_i b_ij c_j.
  const std::vector<float> y3 =
      RunEinsum<float>("i,ij,j->i",
                       {TestTensor::Of<float>({2}, {1, 2}), TestTensor::Of<float>({2, 2}, {1, 2, 3, 4}),
                        TestTensor::Of<float>({2}, {10, 100})},
                       {2});
  EXPECT_EQ(y3, (std::vector<float>{210, 2 * 430}));
  // Empty summation gives zeros.
  EXPECT_EQ(
      RunEinsum<float>("ij,jk->ik", {TestTensor::Of<float>({2, 0}, {}), TestTensor::Of<float>({0, 2}, {})}, {2, 2}),
      std::vector<float>(4, 0.f));
}

TEST(EinsumTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor m = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunOne("Einsum", Equation("ij,jk->ik"), {m}, DType::kFloat32, {2, 2}, &out).code(),
            StatusCode::kInvalidArgument);  // two terms, one input
  EXPECT_EQ(RunOne("Einsum", Equation("ijk->i"), {m}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);  // rank mismatch
  EXPECT_EQ(RunOne("Einsum", Equation("ij,ij->i"), {m, TestTensor::Of<float>({3, 2}, {1, 2, 3, 4, 5, 6})},
                   DType::kFloat32, {2}, &out)
                .code(),
            StatusCode::kInvalidArgument);  // size conflict
  EXPECT_EQ(RunOne("Einsum", Equation("ij->k"), {m}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Einsum", Equation("ij->ii"), {m}, DType::kFloat32, {2, 2}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Einsum", Equation("i.j->i"), {m}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Einsum", Equation("i1->i"), {m}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Einsum", Equation("ij->i"), {m}, DType::kFloat32, {3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Einsum", {}, {m}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Einsum", Equation("ij->i"), {TestTensor::Bools({1, 1}, {1})}, DType::kBool, {1}, &out).code(),
            StatusCode::kUnsupported);
}

TEST(EinsumTest, InferOutputShapes) {
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes(
                  "Einsum", Equation("bij,bjk->bik"),
                  {TestTensor::Empty(DType::kFloat32, {4, 2, 3}), TestTensor::Empty(DType::kFloat32, {4, 3, 5})},
                  {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, (std::vector<Shape>{{4, 2, 5}}));
}

}  // namespace
}  // namespace math
}  // namespace loom
