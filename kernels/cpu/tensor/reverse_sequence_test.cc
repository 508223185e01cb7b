#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

std::vector<int32_t> RefReverse(const std::vector<int32_t>& x, const Shape& shape, const std::vector<int64_t>& lens,
                                int time_axis, int batch_axis) {
  std::vector<int32_t> y(x.size());
  for (int64_t flat = 0; flat < NumElements(shape); ++flat) {
    auto oi = Unravel(flat, shape);
    const int64_t b = oi[static_cast<size_t>(batch_axis)];
    const int64_t t = oi[static_cast<size_t>(time_axis)];
    const int64_t len = lens[static_cast<size_t>(b)];
    auto ii = oi;
    if (t < len) ii[static_cast<size_t>(time_axis)] = len - 1 - t;
    y[static_cast<size_t>(flat)] = x[static_cast<size_t>(Ravel(ii, shape))];
  }
  return y;
}

TEST(ReverseSequenceTest, TimeMajorAndBatchMajor) {
  for (int time_axis : {0, 1}) {
    const int batch_axis = 1 - time_axis;
    Shape shape = {5, 3, 2};
    if (time_axis == 1) shape = {3, 5, 2};
    const std::vector<int64_t> lens = {5, 0, 3};
    const auto x = Iota<int32_t>(30);
    Attributes a;
    a.SetInt("time_axis", time_axis);
    a.SetInt("batch_axis", batch_axis);
    for (int threads : {1, 2}) {
      TestTensor y;
      ASSERT_TRUE(Run1("ReverseSequence", a, {TestTensor::Of<int32_t>(shape, x), TestTensor::Of<int64_t>({3}, lens)},
                       DType::kInt32, shape, &y, Opset(10, threads))
                      .ok());
      EXPECT_EQ(y.As<int32_t>(), RefReverse(x, shape, lens, time_axis, batch_axis)) << time_axis;
    }
  }
}

TEST(ReverseSequenceTest, ErrorsAndBadSetups) {
  auto x = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  TestTensor y;
  EXPECT_EQ(
      Run1("ReverseSequence", Attrs(), {x, TestTensor::Of<int64_t>({2}, {3, 1})}, DType::kFloat32, {2, 2}, &y).code(),
      StatusCode::kOutOfRange);
  EXPECT_EQ(
      Run1("ReverseSequence", Attrs(), {x, TestTensor::Of<int64_t>({2}, {-1, 1})}, DType::kFloat32, {2, 2}, &y).code(),
      StatusCode::kOutOfRange);
  EXPECT_FALSE(
      Run1("ReverseSequence", Attrs(), {x, TestTensor::Of<int64_t>({3}, {1, 1, 1})}, DType::kFloat32, {2, 2}, &y).ok());
  Attributes a;
  a.SetInt("time_axis", 1);
  EXPECT_FALSE(Run1("ReverseSequence", a, {x, TestTensor::Of<int64_t>({2}, {1, 1})}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_FALSE(Run1("ReverseSequence", Attrs(),
                    {TestTensor::Of<float>({2}, {1, 2}), TestTensor::Of<int64_t>({2}, {1, 1})}, DType::kFloat32, {2},
                    &y)
                   .ok());
}

}  // namespace
}  // namespace loom
