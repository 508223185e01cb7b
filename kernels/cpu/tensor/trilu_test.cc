#include <gtest/gtest.h>

#include <limits>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

std::vector<float> RefTrilu(const std::vector<float>& x, const Shape& shape, bool upper, int64_t k) {
  std::vector<float> y = x;
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  for (size_t e = 0; e < y.size(); ++e) {
    const int64_t j = static_cast<int64_t>(e) % cols;
    const int64_t i = (static_cast<int64_t>(e) / cols) % rows;
    const bool keep = upper ? j - i >= k : j - i <= k;
    if (!keep) y[e] = 0;
  }
  return y;
}

TEST(TriluTest, UpperLowerAndK) {
  const Shape shape = {2, 4, 5};
  const auto x = Iota<float>(40, 1);
  for (bool upper : {true, false}) {
    for (int64_t k : {-6, -2, 0, 1, 3, 7}) {
      Attributes a;
      a.SetInt("upper", upper ? 1 : 0);
      for (bool constant : {true, false}) {
        TestTensor y;
        ASSERT_TRUE(Run1("Trilu", a, {TestTensor::Of<float>(shape, x), TestTensor::Of<int64_t>({}, {k}, constant)},
                         DType::kFloat32, shape, &y, Opset(14, constant ? 1 : 2))
                        .ok());
        EXPECT_EQ(y.As<float>(), RefTrilu(x, shape, upper, k)) << upper << " " << k;
      }
    }
  }
  // Default k = 0; extreme k must not overflow.
  TestTensor y;
  ASSERT_TRUE(Run1("Trilu", Attrs(), {TestTensor::Of<float>(shape, x)}, DType::kFloat32, shape, &y).ok());
  EXPECT_EQ(y.As<float>(), RefTrilu(x, shape, true, 0));
  const int64_t big = std::numeric_limits<int64_t>::max();
  ASSERT_TRUE(Run1("Trilu", Attrs(), {TestTensor::Of<float>(shape, x), TestTensor::Of<int64_t>({}, {big})},
                   DType::kFloat32, shape, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>(40, 0.f));
  ASSERT_TRUE(Run1("Trilu", Attrs(), {TestTensor::Of<float>(shape, x), TestTensor::Of<int64_t>({}, {-big - 1})},
                   DType::kFloat32, shape, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), x);
}

TEST(TriluTest, BadSetups) {
  TestTensor y;
  EXPECT_FALSE(Run1("Trilu", Attrs(), {TestTensor::Of<float>({4}, {1, 2, 3, 4})}, DType::kFloat32, {4}, &y).ok());
  EXPECT_FALSE(Run1("Trilu", Attrs(),
                    {TestTensor::Of<float>({2, 2}, {1, 2, 3, 4}), TestTensor::Of<int64_t>({2}, {0, 1})},
                    DType::kFloat32, {2, 2}, &y)
                   .ok());
  EXPECT_FALSE(Run1("Trilu", Attrs(), {TestTensor::Of<float>({2, 2}, {1, 2, 3, 4})}, DType::kFloat32, {4}, &y).ok());
}

}  // namespace
}  // namespace loom
