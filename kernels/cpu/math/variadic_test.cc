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

// Runs `op` on inputs of `shapes` and checks against a naive fold.
template <typename T, typename Fold>
void CheckVariadic(const std::string& op, const std::vector<Shape>& shapes, const Shape& out_shape, Fold fold,
                   bool mean = false, int threads = 1) {
  SCOPED_TRACE(op + " " + DTypeName(DTypeOf<T>::value) + " inputs=" + std::to_string(shapes.size()));
  std::vector<std::vector<T>> data;
  std::vector<TestTensor> inputs;
  for (size_t k = 0; k < shapes.size(); ++k) {
    data.push_back(RandomValues<T>(NumElements(shapes[k]), -50, 50, static_cast<uint32_t>(k + 1)));
    inputs.push_back(TestTensor::Of<T>(shapes[k], data.back()));
  }
  TestTensor out;
  RunOptions opt;
  opt.threads = threads;
  ASSERT_TRUE(RunOne(op, {}, inputs, DTypeOf<T>::value, out_shape, &out, opt).ok());
  const std::vector<T> y = out.As<T>();
  for (int64_t i = 0; i < NumElements(out_shape); ++i) {
    T acc = data[0][BroadcastIndex(shapes[0], out_shape, i)];
    for (size_t k = 1; k < shapes.size(); ++k) acc = fold(acc, data[k][BroadcastIndex(shapes[k], out_shape, i)]);
    if (mean) acc = acc / static_cast<T>(shapes.size());
    ASSERT_TRUE(test::Near<double>(y[i], acc, 1e-6)) << "element " << i;
  }
}

TEST(VariadicTest, ManyInputsWithBroadcasting) {
  const std::vector<Shape> shapes = {{3, 1}, {2, 1, 4}, {4}, {}, {2, 3, 4}};
  const Shape out = {2, 3, 4};
  auto max = [](auto a, auto b) { return a > b ? a : b; };
  auto min = [](auto a, auto b) { return a < b ? a : b; };
  auto sum = [](auto a, auto b) { return a + b; };
  CheckVariadic<float>("Max", shapes, out, max);
  CheckVariadic<int32_t>("Max", shapes, out, max);
  CheckVariadic<uint8_t>("Max", {{4}, {4}}, {4}, max);
  CheckVariadic<double>("Min", shapes, out, min);
  CheckVariadic<int64_t>("Min", {{2, 2}, {2}}, {2, 2}, min);
  CheckVariadic<float>("Sum", shapes, out, sum);
  CheckVariadic<double>("Sum", {{3}, {3}, {3}}, {3}, sum);
  CheckVariadic<float>("Mean", shapes, out, sum, true);
  CheckVariadic<double>("Mean", {{1, 5}, {6, 1}}, {6, 5}, sum, true);
}

TEST(VariadicTest, SingleInputIsCopy) {
  auto sum = [](auto a, auto b) { return a + b; };
  CheckVariadic<float>("Sum", {{2, 3}}, {2, 3}, sum);
  CheckVariadic<float>("Mean", {{5}}, {5}, sum, true);
  CheckVariadic<int8_t>("Max", {{}}, {}, sum);
  CheckVariadic<float>("Min", {{0, 3}}, {0, 3}, sum);
}

TEST(VariadicTest, TwoThreads) {
  auto sum = [](auto a, auto b) { return a + b; };
  CheckVariadic<float>("Sum", {{50, 1000}, {1000}, {50, 1}}, {50, 1000}, sum, false, 2);
}

TEST(VariadicTest, MaxMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor out;
  for (const char* op : {"Max", "Min"}) {
    ASSERT_TRUE(RunOne(op, {},
                       {TestTensor::Of<float>({3}, {nan, 1.f, 2.f}), TestTensor::Of<float>({3}, {1.f, nan, 3.f})},
                       DType::kFloat32, {3}, &out)
                    .ok());
    const std::vector<float> y = out.As<float>();
    EXPECT_TRUE(std::isnan(y[0])) << op;
    EXPECT_TRUE(std::isnan(y[1])) << op;
    EXPECT_EQ(y[2], std::string(op) == "Max" ? 3.f : 2.f);
  }
}

TEST(VariadicTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor a = TestTensor::Of<float>({2}, {1, 2});
  EXPECT_EQ(RunOne("Sum", {}, {}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Sum", {}, {a, TestTensor::Of<double>({2}, {1, 2})}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Sum", {}, {a, TestTensor::Of<float>({3}, {1, 2, 3})}, DType::kFloat32, {3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Max", {}, {a, a}, DType::kFloat32, {1, 2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Sum", {}, {TestTensor::Of<int32_t>({1}, {1})}, DType::kInt32, {1}, &out).code(),
            StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Mean", {}, {a, TestTensor::Absent()}, DType::kFloat32, {2}, &out).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
