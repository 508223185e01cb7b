#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// Reference: out[o, c, i] walks the inputs' axis entries in order.
template <typename T>
std::vector<T> RefConcat(const std::vector<std::vector<T>>& xs, const std::vector<Shape>& shapes, int axis) {
  std::vector<T> out;
  const Shape& s0 = shapes[0];
  const int64_t outer = [&] {
    int64_t p = 1;
    for (int d = 0; d < axis; ++d) p *= s0[static_cast<size_t>(d)];
    return p;
  }();
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < xs.size(); ++k) {
      const int64_t block = NumElements(shapes[k]) / (outer ? outer : 1);
      for (int64_t j = 0; j < block; ++j) out.push_back(xs[k][static_cast<size_t>(o * block + j)]);
    }
  }
  return out;
}

TEST(ConcatTest, EachAxisAndNegative) {
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    std::vector<Shape> shapes = {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}};
    shapes[1][static_cast<size_t>(a)] = 1;
    shapes[2][static_cast<size_t>(a)] = 5;
    std::vector<std::vector<int32_t>> xs;
    std::vector<TestTensor> ins;
    for (size_t k = 0; k < shapes.size(); ++k) {
      xs.push_back(Iota<int32_t>(NumElements(shapes[k]), 1000 * static_cast<int64_t>(k)));
      ins.push_back(TestTensor::Of<int32_t>(shapes[k], xs.back()));
    }
    Shape out = shapes[0];
    out[static_cast<size_t>(a)] = shapes[0][static_cast<size_t>(a)] + 6;
    Attributes attrs;
    attrs.SetInt("axis", axis);
    for (int threads : {1, 2}) {
      TestTensor y;
      ASSERT_TRUE(Run1("Concat", attrs, ins, DType::kInt32, out, &y, Opset(13, threads)).ok()) << axis;
      EXPECT_EQ(y.As<int32_t>(), RefConcat(xs, shapes, a)) << axis;
    }
  }
}

TEST(ConcatTest, EmptyInputsAndSingleInput) {
  Attributes a;
  a.SetInt("axis", 0);
  auto x = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  auto e = TestTensor::Of<float>({0, 2}, {});
  TestTensor y;
  ASSERT_TRUE(Run1("Concat", a, {e, x, e}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({1, 2, 3, 4}));
  ASSERT_TRUE(Run1("Concat", a, {x}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({1, 2, 3, 4}));
  auto b = TestTensor::Bools({3}, {1, 0, 1});
  ASSERT_TRUE(Run1("Concat", a, {b, b}, DType::kBool, {6}, &y).ok());
  EXPECT_EQ(y.bytes, std::vector<uint8_t>({1, 0, 1, 1, 0, 1}));
}

TEST(ConcatTest, BadSetups) {
  auto x = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  auto z = TestTensor::Of<float>({3, 3}, Iota<float>(9));
  TestTensor y;
  Attributes a;
  a.SetInt("axis", 0);
  EXPECT_FALSE(Run1("Concat", a, {x, z}, DType::kFloat32, {5, 2}, &y).ok());  // dim 1 differs
  EXPECT_FALSE(Run1("Concat", a, {x, TestTensor::Of<int32_t>({2, 2}, {1, 2, 3, 4})}, DType::kFloat32, {4, 2}, &y).ok());
  EXPECT_FALSE(Run1("Concat", a, {x, x}, DType::kFloat32, {4, 3}, &y).ok());
  EXPECT_FALSE(Run1("Concat", Attrs(), {x, x}, DType::kFloat32, {4, 2}, &y).ok());  // axis required
  a.SetInt("axis", 2);
  EXPECT_FALSE(Run1("Concat", a, {x, x}, DType::kFloat32, {4, 2}, &y).ok());
  a.SetInt("axis", 0);
  EXPECT_FALSE(Run1("Concat", a, {TestTensor::Of<float>({}, {1.f})}, DType::kFloat32, {1}, &y).ok());
  std::vector<Shape> shapes;
  a.SetInt("axis", -1);
  ASSERT_TRUE(testing::InferShapes("Concat", a, {x, x}, {DType::kFloat32}, &shapes).ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{2, 4}}));
}

}  // namespace
}  // namespace loom
