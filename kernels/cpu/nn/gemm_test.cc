#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <type_traits>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace nn {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

template <typename T>
std::vector<T> Values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(static_cast<int>(gen() % 7) - (std::is_unsigned<T>::value ? 0 : 3)) / (std::is_integral<T>::value ? 1 : 2);
  return v;
}

struct GemmCase {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
  Shape c_shape;  // empty with has_c=false: no C
  bool has_c;
};

template <typename T>
void Check(const GemmCase& g, bool const_b, int threads) {
  SCOPED_TRACE(::testing::Message() << g.m << "x" << g.n << "x" << g.k << " ta=" << g.ta << " tb=" << g.tb
                                    << " alpha=" << g.alpha << " beta=" << g.beta << " C=" << ShapeToString(g.c_shape)
                                    << " has_c=" << g.has_c << " dtype=" << DTypeName(DTypeOf<T>::value)
                                    << " threads=" << threads);
  const Shape as = g.ta ? Shape{g.k, g.m} : Shape{g.m, g.k};
  const Shape bs = g.tb ? Shape{g.n, g.k} : Shape{g.k, g.n};
  const auto a = Values<T>(g.m * g.k, 1), b = Values<T>(g.k * g.n, 2);
  const auto c = Values<T>(g.has_c ? NumElements(g.c_shape) : 0, 3);
  Shape cs = g.c_shape;
  while (cs.size() < 2) cs.insert(cs.begin(), 1);
  std::vector<double> ref(g.m * g.n);
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < g.k; ++kk)
        s += static_cast<double>(g.ta ? a[kk * g.m + i] : a[i * g.k + kk]) *
             static_cast<double>(g.tb ? b[j * g.k + kk] : b[kk * g.n + j]);
      double v = g.alpha * s;
      if (g.has_c) v += g.beta * static_cast<double>(c[(cs[0] == 1 ? 0 : i) * cs[1] + (cs[1] == 1 ? 0 : j)]);
      ref[i * g.n + j] = std::is_integral<T>::value ? std::trunc(v) : v;  // integer outputs truncate
    }
  Attributes attrs;
  if (g.ta) attrs.SetInt("transA", 1);
  if (g.tb) attrs.SetInt("transB", 1);
  attrs.SetFloat("alpha", g.alpha);
  attrs.SetFloat("beta", g.beta);
  std::vector<TestTensor> in = {TestTensor::Of<T>(as, a), TestTensor::Of<T>(bs, b, const_b)};
  if (g.has_c) in.push_back(TestTensor::Of<T>(g.c_shape, c));
  std::vector<TestTensor> out = {TestTensor::Empty(DTypeOf<T>::value, {g.m, g.n})};
  RunOptions opt;
  opt.threads = threads;
  Status st = RunKernel("Gemm", attrs, in, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto got = out[0].As<T>();
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(static_cast<double>(got[i]), ref[i], 1e-4) << "at " << i;
}

std::vector<GemmCase> Cases() {
  return {
      {3, 4, 5, false, false, 1.f, 1.f, {}, false},      {3, 4, 5, true, false, 1.f, 1.f, {3, 4}, true},
      {3, 4, 5, false, true, 2.f, 1.f, {4}, true},        {3, 4, 5, true, true, 1.f, 3.f, {1, 4}, true},
      {3, 4, 5, false, false, 1.f, 2.f, {3, 1}, true},    {3, 4, 5, false, false, 1.f, -1.f, {}, true},
      {3, 4, 5, false, false, 1.f, 1.f, {1}, true},       {3, 4, 5, false, false, 1.f, 0.f, {3, 4}, true},
      {40, 70, 33, false, true, 1.f, 1.f, {70}, true},    {1, 1000, 512, false, true, 1.f, 1.f, {1000}, true},
      {5, 6, 0, false, false, 1.f, 1.f, {6}, true},       {0, 6, 3, false, false, 1.f, 1.f, {6}, true},
  };
}

TEST(Gemm, FloatMatchesReference) {
  for (const GemmCase& g : Cases())
    for (bool const_b : {false, true})
      for (int threads : {1, 2}) Check<float>(g, const_b, threads);
}

TEST(Gemm, OtherDtypes) {
  for (const GemmCase& g : Cases()) {
    Check<double>(g, false, 2);
    Check<int32_t>(g, false, 1);
    Check<int64_t>(g, false, 1);
    Check<uint64_t>(g, false, 1);
  }
  // Non-integral alpha on integers goes through double.
  Check<int32_t>({2, 3, 4, false, false, 0.5f, 1.f, {3}, true}, false, 1);
}

TEST(Gemm, FusedLeakyRelu) {
  Attributes attrs;
  attrs.SetInt("transB", 1);
  attrs.SetString("loom.activation", "LeakyRelu");
  attrs.SetFloat("loom.activation_alpha", 0.5f);
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 2})};
  ASSERT_TRUE(RunKernel("Gemm", attrs,
                        {TestTensor::Of<float>({1, 2}, {1, 2}), TestTensor::Const<float>({2, 2}, {1, 1, -1, -1}),
                         TestTensor::Of<float>({2}, {0, 1})},
                        &out)
                  .ok());
  EXPECT_EQ(out[0].As<float>(), (std::vector<float>{3, -1}));
}

TEST(Gemm, RejectsBadSetups) {
  auto run = [](std::vector<TestTensor> in, Shape out_shape, Attributes attrs = {}) {
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
    return RunKernel("Gemm", attrs, in, &out);
  };
  const auto a = TestTensor::Of<float>({2, 3}, Values<float>(6, 1));
  const auto b = TestTensor::Of<float>({3, 4}, Values<float>(12, 2));
  EXPECT_TRUE(run({a, b}, {2, 4}).ok());
  EXPECT_FALSE(run({a, b}, {4, 2}).ok());
  EXPECT_FALSE(run({a, a}, {2, 3}).ok());
  EXPECT_FALSE(run({a, b, TestTensor::Of<float>({3}, {1, 2, 3})}, {2, 4}).ok());  // C does not broadcast
  EXPECT_FALSE(run({a, b, TestTensor::Of<float>({4, 2}, Values<float>(8, 1))}, {2, 4}).ok());
  EXPECT_FALSE(run({TestTensor::Of<float>({2, 3, 1}, Values<float>(6, 1)), b}, {2, 4}).ok());
  Attributes bad;
  bad.SetFloat("transA", 1.f);
  EXPECT_FALSE(run({a, b}, {2, 4}, bad).ok());
  EXPECT_EQ(run({TestTensor::Of<int8_t>({2, 3}, Values<int8_t>(6, 1)), TestTensor::Of<int8_t>({3, 4}, Values<int8_t>(12, 1))},
                {2, 4})
                .code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace nn
}  // namespace loom
