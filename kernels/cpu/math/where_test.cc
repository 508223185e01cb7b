#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::BroadcastIndex;
using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

TEST(WhereTest, BroadcastsAllThreeInputs) {
  const Shape sc = {2, 1, 4}, sx = {3, 1}, sy = {}, so = {2, 3, 4};
  const std::vector<uint8_t> c = RandomValues<uint8_t>(8, 0, 1, 5);
  const std::vector<float> x = RandomValues<float>(3, -1, 1, 6);
  const std::vector<float> y = {42.f};
  TestTensor out;
  ASSERT_TRUE(RunOne("Where", {},
                     {TestTensor::Bools(sc, c), TestTensor::Of<float>(sx, x), TestTensor::Of<float>(sy, y)},
                     DType::kFloat32, so, &out)
                  .ok());
  const std::vector<float> got = out.As<float>();
  for (int64_t i = 0; i < 24; ++i) {
    const float expected = c[BroadcastIndex(sc, so, i)] ? x[BroadcastIndex(sx, so, i)] : y[0];
    ASSERT_EQ(got[i], expected) << i;
  }
}

TEST(WhereTest, AnyElementWidth) {
  TestTensor out;
  const TestTensor c = TestTensor::Bools({3}, {1, 0, 1});
  ASSERT_TRUE(RunOne("Where", {},
                     {c, TestTensor::Of<int64_t>({3}, {1, 2, 3}), TestTensor::Of<int64_t>({3}, {-1, -2, -3})},
                     DType::kInt64, {3}, &out)
                  .ok());
  EXPECT_EQ(out.As<int64_t>(), (std::vector<int64_t>{1, -2, 3}));
  ASSERT_TRUE(
      RunOne("Where", {}, {c, TestTensor::Bools({1}, {0}), TestTensor::Bools({1}, {1})}, DType::kBool, {3}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 1, 0}));
  TestTensor hx = TestTensor::Of<uint16_t>({3}, {0x3c00, 0x4000, 0x4200});
  hx.dtype = DType::kFloat16;
  TestTensor hy = TestTensor::Of<uint16_t>({}, {0});
  hy.dtype = DType::kFloat16;
  ASSERT_TRUE(RunOne("Where", {}, {c, hx, hy}, DType::kFloat16, {3}, &out).ok());
  EXPECT_EQ(out.As<uint16_t>(), (std::vector<uint16_t>{0x3c00, 0, 0x4200}));
}

TEST(WhereTest, LargeWithTwoThreads) {
  const int64_t n = 60000;
  const std::vector<uint8_t> c = RandomValues<uint8_t>(n, 0, 1, 8);
  const std::vector<int32_t> x = RandomValues<int32_t>(n, -100, 100, 9);
  RunOptions two;
  two.threads = 2;
  TestTensor out;
  ASSERT_TRUE(RunOne("Where", {},
                     {TestTensor::Bools({n}, c), TestTensor::Of<int32_t>({n}, x), TestTensor::Of<int32_t>({1}, {7})},
                     DType::kInt32, {n}, &out, two)
                  .ok());
  const std::vector<int32_t> y = out.As<int32_t>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], c[i] ? x[i] : 7);
}

TEST(WhereTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor f = TestTensor::Of<float>({2}, {1, 2});
  EXPECT_EQ(RunOne("Where", {}, {f, f, f}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Where", {}, {TestTensor::Bools({2}, {1, 0}), f, TestTensor::Of<double>({2}, {1, 2})},
                   DType::kFloat32, {2}, &out)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Where", {}, {TestTensor::Bools({3}, {1, 0, 1}), f, f}, DType::kFloat32, {3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Where", {}, {TestTensor::Bools({2}, {1, 0}), f}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
