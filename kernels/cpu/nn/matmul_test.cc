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
  for (T& x : v) x = static_cast<T>(static_cast<int>(gen() % 9) - (std::is_unsigned<T>::value ? 0 : 4)) / (std::is_integral<T>::value ? 1 : 3);
  return v;
}

// numpy.matmul reference (after 1-D promotion, batch broadcasting).
template <typename T>
std::vector<T> RefMatMul(const Shape& as0, const std::vector<T>& a, const Shape& bs0, const std::vector<T>& b,
                         Shape* out_shape) {
  Shape as = as0, bs = bs0;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const size_t rank = std::max(as.size(), bs.size()) - 2;
  Shape ab(rank, 1), bb(rank, 1), batch(rank);
  for (size_t i = 0; i + 2 < as.size(); ++i) ab[rank - (as.size() - 2) + i] = as[i];
  for (size_t i = 0; i + 2 < bs.size(); ++i) bb[rank - (bs.size() - 2) + i] = bs[i];
  for (size_t i = 0; i < rank; ++i) batch[i] = std::max(ab[i], bb[i]);
  *out_shape = batch;
  if (as0.size() > 1) out_shape->push_back(m);
  if (bs0.size() > 1) out_shape->push_back(n);
  const int64_t total = NumElements(batch);
  std::vector<T> y(total * m * n);
  for (int64_t t = 0; t < total; ++t) {
    int64_t rem = t, ai = 0, bi = 0, astride = 1, bstride = 1;
    for (size_t i = rank; i-- > 0;) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      ai += (ab[i] == 1 ? 0 : idx) * astride;
      bi += (bb[i] == 1 ? 0 : idx) * bstride;
      astride *= ab[i];
      bstride *= bb[i];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t kk = 0; kk < k; ++kk) s += a[ai * m * k + i * k + kk] * b[bi * k * n + kk * n + j];
        y[t * m * n + i * n + j] = s;
      }
  }
  return y;
}

template <typename T>
void Check(const Shape& as, const Shape& bs, bool const_b, int threads) {
  SCOPED_TRACE(::testing::Message() << ShapeToString(as) << " x " << ShapeToString(bs) << " dtype "
                                    << DTypeName(DTypeOf<T>::value) << " const_b=" << const_b << " threads=" << threads);
  const auto a = Values<T>(NumElements(as), 1), b = Values<T>(NumElements(bs), 2);
  Shape out_shape;
  const auto ref = RefMatMul(as, a, bs, b, &out_shape);
  std::vector<TestTensor> out = {TestTensor::Empty(DTypeOf<T>::value, out_shape)};
  RunOptions opt;
  opt.threads = threads;
  Status st = RunKernel("MatMul", {}, {TestTensor::Of<T>(as, a), TestTensor::Of<T>(bs, b, const_b)}, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto got = out[0].As<T>();
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(static_cast<double>(got[i]), static_cast<double>(ref[i]), 1e-3);
}

const std::vector<std::pair<Shape, Shape>> kShapes = {
    {{3, 4}, {4, 5}},          {{4}, {4, 5}},          {{3, 4}, {4}},         {{7}, {7}},
    {{2, 3, 4}, {4, 5}},       {{2, 3, 4}, {2, 4, 5}}, {{2, 1, 3, 4}, {5, 4, 6}}, {{3, 4}, {2, 4, 5}},
    {{1, 3, 4}, {2, 4, 5}},    {{2, 0, 4}, {4, 3}},    {{3, 0}, {0, 5}},      {{130, 70}, {70, 90}},
    {{4}, {2, 4, 3}},          {{2, 3, 4}, {4}},
};

TEST(MatMul, FloatMatchesNumpySemantics) {
  for (const auto& s : kShapes)
    for (bool const_b : {false, true})
      for (int threads : {1, 2}) Check<float>(s.first, s.second, const_b, threads);
}

TEST(MatMul, OtherDtypes) {
  for (const auto& s : kShapes) {
    Check<double>(s.first, s.second, false, 2);
    Check<int32_t>(s.first, s.second, false, 1);
    Check<int64_t>(s.first, s.second, true, 1);
    Check<uint32_t>(s.first, s.second, false, 1);
    Check<uint64_t>(s.first, s.second, false, 1);
  }
}

TEST(MatMul, FusedRelu) {
  Attributes attrs;
  attrs.SetString("loom.activation", "Relu");
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {2, 2})};
  ASSERT_TRUE(RunKernel("MatMul", attrs,
                        {TestTensor::Of<float>({2, 2}, {1, -2, 3, 4}), TestTensor::Const<float>({2, 2}, {1, 0, 0, 1})},
                        &out)
                  .ok());
  EXPECT_EQ(out[0].As<float>(), (std::vector<float>{1, 0, 3, 4}));
}

TEST(MatMul, RejectsBadSetups) {
  auto run = [](std::vector<TestTensor> in, Shape out_shape, DType dt = DType::kFloat32, Attributes attrs = {}) {
    std::vector<TestTensor> out = {TestTensor::Empty(dt, out_shape)};
    return RunKernel("MatMul", attrs, in, &out);
  };
  const auto a = TestTensor::Of<float>({2, 3}, Values<float>(6, 1));
  const auto b = TestTensor::Of<float>({3, 4}, Values<float>(12, 2));
  EXPECT_TRUE(run({a, b}, {2, 4}).ok());
  EXPECT_FALSE(run({a, b}, {2, 5}).ok());
  EXPECT_FALSE(run({a, b}, {2, 4}, DType::kFloat64).ok());
  EXPECT_FALSE(run({a, a}, {2, 3}).ok());  // inner dims
  EXPECT_FALSE(run({a}, {2, 4}).ok());
  EXPECT_FALSE(run({TestTensor::Of<float>({}, {1}), b}, {4}).ok());  // scalar
  EXPECT_FALSE(run({TestTensor::Of<float>({2, 2, 3}, Values<float>(12, 1)), TestTensor::Of<float>({3, 3, 4}, Values<float>(36, 1))},
                   {3, 2, 4})
                   .ok());  // batch 2 vs 3
  EXPECT_FALSE(run({a, TestTensor::Of<double>({3, 4}, Values<double>(12, 2))}, {2, 4}).ok());
  EXPECT_EQ(run({TestTensor::Of<int8_t>({2, 3}, Values<int8_t>(6, 1)), TestTensor::Of<int8_t>({3, 4}, Values<int8_t>(12, 1))},
                {2, 4}, DType::kInt8)
                .code(),
            StatusCode::kUnsupported);
  Attributes relu;
  relu.SetString("loom.activation", "Relu");
  EXPECT_EQ(run({TestTensor::Of<int32_t>({2, 3}, Values<int32_t>(6, 1)), TestTensor::Of<int32_t>({3, 4}, Values<int32_t>(12, 1))},
                {2, 4}, DType::kInt32, relu)
                .code(),
            StatusCode::kUnsupported);
}

// Transposes the last two dims of `x` (shape `s`, rank >= 2).
std::vector<float> SwapLastTwo(const Shape& s, const std::vector<float>& x, Shape* out) {
  const int64_t r = s[s.size() - 2], c = s.back(), batch = NumElements(s) / std::max<int64_t>(r * c, 1);
  *out = s;
  std::swap((*out)[s.size() - 1], (*out)[s.size() - 2]);
  std::vector<float> y(x.size());
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) y[t * r * c + j * r + i] = x[t * r * c + i * c + j];
  return y;
}

TEST(MatMul, BiasAndTransposedB) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{3, 4}, {4, 5}},      {{2, 3, 4}, {4, 5}},      {{2, 3, 4}, {2, 4, 5}},       {{2, 1, 3, 4}, {5, 4, 6}},
      {{130, 70}, {70, 90}}, {{1, 197, 40}, {40, 33}}, {{12, 17, 16}, {12, 16, 19}}, {{2, 0, 4}, {4, 3}},
      {{4}, {2, 4, 3}},      {{3, 0}, {0, 5}},         {{9, 20, 33}, {9, 33, 21}},   {{12, 197, 64}, {12, 64, 197}},
  };
  for (const auto& s : shapes)
    for (bool bias : {false, true})
      for (bool trans_b : {false, true})
        for (bool const_b : {false, true})
          for (int threads : {1, 2}) {
            SCOPED_TRACE(::testing::Message()
                         << ShapeToString(s.first) << " x " << ShapeToString(s.second) << " bias=" << bias
                         << " trans_b=" << trans_b << " const_b=" << const_b << " threads=" << threads);
            const auto a = Values<float>(NumElements(s.first), 1), b = Values<float>(NumElements(s.second), 2);
            Shape out_shape;
            std::vector<float> ref = RefMatMul(s.first, a, s.second, b, &out_shape);
            const int64_t n = s.second.back();
            const std::vector<float> bias_values = Values<float>(static_cast<size_t>(n), 3);
            if (bias)
              for (size_t i = 0; i < ref.size(); ++i) ref[i] += bias_values[i % static_cast<size_t>(n)];
            Shape b_shape = s.second;
            std::vector<float> b_data = b;
            if (trans_b) b_data = SwapLastTwo(s.second, b, &b_shape);
            std::vector<TestTensor> in = {TestTensor::Of<float>(s.first, a),
                                          TestTensor::Of<float>(b_shape, b_data, const_b)};
            if (bias) in.push_back(TestTensor::Const<float>({n}, bias_values));
            Attributes attrs;
            if (trans_b) attrs.SetInt("loom.trans_b", 1);
            std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
            RunOptions opt;
            opt.threads = threads;
            Status st = RunKernel("MatMul", attrs, in, &out, opt);
            ASSERT_TRUE(st.ok()) << st.ToString();
            const auto got = out[0].As<float>();
            ASSERT_EQ(got.size(), ref.size());
            for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-3);
          }
}

TEST(MatMul, BiasBeforeFusedActivationAndInDouble) {
  Attributes relu;
  relu.SetString("loom.activation", "Relu");
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {2, 2})};
  ASSERT_TRUE(RunKernel("MatMul", relu,
                        {TestTensor::Of<float>({2, 2}, {1, -2, 3, 4}), TestTensor::Const<float>({2, 2}, {1, 0, 0, 1}),
                         TestTensor::Const<float>({2}, {-2, 1})},
                        &out)
                  .ok());
  EXPECT_EQ(out[0].As<float>(), (std::vector<float>{0, 0, 1, 5}));
  Attributes trans;
  trans.SetInt("loom.trans_b", 1);
  std::vector<TestTensor> d = {TestTensor::Empty(DType::kFloat64, {1, 2})};
  ASSERT_TRUE(RunKernel("MatMul", trans,
                        {TestTensor::Of<double>({1, 2}, {1, 2}), TestTensor::Of<double>({2, 2}, {1, 2, 3, 4}),
                         TestTensor::Const<double>({2}, {0.5, -0.5})},
                        &d)
                  .ok());
  EXPECT_EQ(d[0].As<double>(), (std::vector<double>{5.5, 10.5}));  // B^T = [[1, 3], [2, 4]]
}

TEST(MatMul, RejectsBadBiasOrTransposition) {
  auto run = [](std::vector<TestTensor> in, Shape out_shape, DType dt = DType::kFloat32, Attributes attrs = {}) {
    std::vector<TestTensor> out = {TestTensor::Empty(dt, out_shape)};
    return RunKernel("MatMul", attrs, in, &out);
  };
  const auto a = TestTensor::Of<float>({2, 3}, Values<float>(6, 1));
  const auto b = TestTensor::Of<float>({3, 4}, Values<float>(12, 2));
  EXPECT_TRUE(run({a, b, TestTensor::Const<float>({4}, Values<float>(4, 3))}, {2, 4}).ok());
  EXPECT_FALSE(run({a, b, TestTensor::Const<float>({3}, Values<float>(3, 3))}, {2, 4}).ok());
  EXPECT_FALSE(run({a, b, TestTensor::Const<float>({1, 4}, Values<float>(4, 3))}, {2, 4}).ok());
  EXPECT_FALSE(run({a, b, TestTensor::Const<double>({4}, Values<double>(4, 3))}, {2, 4}).ok());
  EXPECT_FALSE(run({a, b, b, b}, {2, 4}).ok());
  Attributes trans;
  trans.SetInt("loom.trans_b", 1);
  EXPECT_FALSE(run({a, b}, {2, 4}, DType::kFloat32, trans).ok());  // B^T is 4 x 3
  EXPECT_TRUE(run({a, TestTensor::Of<float>({4, 3}, Values<float>(12, 2))}, {2, 4}, DType::kFloat32, trans).ok());
  EXPECT_FALSE(run({a, TestTensor::Of<float>({3}, Values<float>(3, 2))}, {2}, DType::kFloat32, trans).ok());
  const auto ai = TestTensor::Of<int32_t>({2, 3}, Values<int32_t>(6, 1));
  const auto bi = TestTensor::Of<int32_t>({3, 4}, Values<int32_t>(12, 1));
  EXPECT_EQ(run({ai, bi, TestTensor::Const<int32_t>({4}, {1, 2, 3, 4})}, {2, 4}, DType::kInt32).code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(run({ai, bi}, {2, 4}, DType::kInt32, trans).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace nn
}  // namespace loom
