#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

template <typename T>
std::vector<T> RefTranspose(const std::vector<T>& x, const Shape& shape, const Shape& perm) {
  Shape out(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) out[d] = shape[static_cast<size_t>(perm[d])];
  std::vector<T> y(x.size());
  for (int64_t flat = 0; flat < NumElements(out); ++flat) {
    const auto oi = Unravel(flat, out);
    std::vector<int64_t> ii(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) ii[static_cast<size_t>(perm[d])] = oi[d];
    y[static_cast<size_t>(flat)] = x[static_cast<size_t>(Ravel(ii, shape))];
  }
  return y;
}

Shape Permuted(const Shape& shape, const Shape& perm) {
  Shape out;
  for (int64_t p : perm) out.push_back(shape[static_cast<size_t>(p)]);
  return out;
}

template <typename T>
void CheckAllPerms(const Shape& shape, int threads) {
  const auto x = Iota<T>(NumElements(shape));
  Shape perm(shape.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  do {
    Attributes a;
    a.SetInts("perm", perm);
    TestTensor y;
    ASSERT_TRUE(Run1("Transpose", a, {TestTensor::Of<T>(shape, x)}, DTypeOf<T>::value, Permuted(shape, perm), &y,
                     Opset(13, threads))
                    .ok());
    EXPECT_EQ(y.As<T>(), RefTranspose(x, shape, perm)) << ShapeToString(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposeTest, AllPermutationsOfRank4) {
  CheckAllPerms<float>({2, 3, 4, 5}, 1);
  CheckAllPerms<int8_t>({3, 1, 6, 5}, 1);
  CheckAllPerms<int64_t>({4, 5, 2, 7}, 2);
  CheckAllPerms<uint16_t>({5, 4, 3, 2}, 1);
}

TEST(TransposeTest, DefaultReversesAndScalarsAndEmpty) {
  auto x = TestTensor::Of<double>({2, 3, 4}, Iota<double>(24));
  TestTensor y;
  ASSERT_TRUE(Run1("Transpose", Attrs(), {x}, DType::kFloat64, {4, 3, 2}, &y).ok());
  EXPECT_EQ(y.As<double>(), RefTranspose(Iota<double>(24), {2, 3, 4}, {2, 1, 0}));
  ASSERT_TRUE(Run1("Transpose", Attrs(), {TestTensor::Of<float>({}, {5.f})}, DType::kFloat32, {}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({5.f}));
  ASSERT_TRUE(Run1("Transpose", Attrs(), {TestTensor::Of<float>({0, 3}, {})}, DType::kFloat32, {3, 0}, &y).ok());
}

TEST(TransposeTest, BoolAndHalfMoveBytes) {
  TestTensor x = TestTensor::Bools({2, 3}, {1, 0, 0, 1, 1, 0});
  TestTensor y;
  ASSERT_TRUE(Run1("Transpose", Attrs(), {x}, DType::kBool, {3, 2}, &y).ok());
  EXPECT_EQ(y.bytes, std::vector<uint8_t>({1, 1, 0, 1, 0, 0}));
  TestTensor h = TestTensor::Of<uint16_t>({2, 2}, {0x3c00, 0x4000, 0x4200, 0x4400});
  h.dtype = DType::kFloat16;
  ASSERT_TRUE(Run1("Transpose", Attrs(), {h}, DType::kFloat16, {2, 2}, &y).ok());
  EXPECT_EQ(y.As<uint16_t>(), std::vector<uint16_t>({0x3c00, 0x4200, 0x4000, 0x4400}));
}

TEST(TransposeTest, LargeMatrixWithThreads) {
  const Shape shape = {3, 129, 257};
  const auto x = Iota<float>(NumElements(shape));
  Attributes a;
  a.SetInts("perm", {0, 2, 1});
  TestTensor y;
  ASSERT_TRUE(
      Run1("Transpose", a, {TestTensor::Of<float>(shape, x)}, DType::kFloat32, {3, 257, 129}, &y, Opset(13, 2)).ok());
  EXPECT_EQ(y.As<float>(), RefTranspose(x, shape, {0, 2, 1}));
}

TEST(TransposeTest, BadSetups) {
  auto x = TestTensor::Of<float>({2, 3}, Iota<float>(6));
  TestTensor y;
  Attributes a;
  a.SetInts("perm", {0, 0});
  EXPECT_EQ(Run1("Transpose", a, {x}, DType::kFloat32, {2, 2}, &y).code(), StatusCode::kInvalidArgument);
  a.SetInts("perm", {0, 2});
  EXPECT_FALSE(Run1("Transpose", a, {x}, DType::kFloat32, {2, 3}, &y).ok());
  a.SetInts("perm", {1});
  EXPECT_FALSE(Run1("Transpose", a, {x}, DType::kFloat32, {3, 2}, &y).ok());
  a.SetInts("perm", {1, 0});
  EXPECT_FALSE(Run1("Transpose", a, {x}, DType::kFloat32, {2, 3}, &y).ok());
  EXPECT_FALSE(Run1("Transpose", a, {x}, DType::kInt32, {3, 2}, &y).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Transpose", a, {x}, {DType::kFloat32}, &shapes).ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3, 2}}));
}

}  // namespace
}  // namespace loom
