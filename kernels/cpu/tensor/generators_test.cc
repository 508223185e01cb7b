#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

template <typename T>
Attribute TensorAttr(const std::string& name, DType dtype, Shape dims, std::vector<T> values) {
  auto t = std::make_shared<AttrTensor>();
  t->dtype = dtype;
  t->dims = std::move(dims);
  t->data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t->data.data(), values.data(), t->data.size());
  Attribute a;
  a.name = name;
  a.kind = Attribute::Kind::kTensor;
  a.tensor = t;
  return a;
}

TEST(ConstantOfShapeTest, ValueAndDefault) {
  TestTensor y;
  ASSERT_TRUE(
      Run1("ConstantOfShape", Attrs(), {TestTensor::Const<int64_t>({2}, {2, 3})}, DType::kFloat32, {2, 3}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>(6, 0.f));
  Attributes a;
  a.Set(TensorAttr<int32_t>("value", DType::kInt32, {1}, {7}));
  ASSERT_TRUE(
      Run1("ConstantOfShape", a, {TestTensor::Of<int64_t>({3}, {1, 2, 2})}, DType::kInt32, {1, 2, 2}, &y, Opset(13, 2))
          .ok());
  EXPECT_EQ(y.As<int32_t>(), std::vector<int32_t>(4, 7));
  // Empty shape: a scalar. Zero dim: nothing.
  ASSERT_TRUE(Run1("ConstantOfShape", a, {TestTensor::Const<int64_t>({0}, {})}, DType::kInt32, {}, &y).ok());
  EXPECT_EQ(y.As<int32_t>(), std::vector<int32_t>({7}));
  ASSERT_TRUE(Run1("ConstantOfShape", a, {TestTensor::Const<int64_t>({2}, {0, 3})}, DType::kInt32, {0, 3}, &y).ok());
  // Bad: dtype mismatch, runtime value mismatch, value with 2 elements, value of wrong kind.
  EXPECT_FALSE(Run1("ConstantOfShape", a, {TestTensor::Const<int64_t>({1}, {2})}, DType::kFloat32, {2}, &y).ok());
  EXPECT_EQ(Run1("ConstantOfShape", a, {TestTensor::Of<int64_t>({1}, {3})}, DType::kInt32, {2}, &y).code(),
            StatusCode::kInvalidArgument);
  Attributes two;
  two.Set(TensorAttr<int32_t>("value", DType::kInt32, {2}, {7, 8}));
  EXPECT_FALSE(Run1("ConstantOfShape", two, {TestTensor::Const<int64_t>({1}, {2})}, DType::kInt32, {2}, &y).ok());
  Attributes wrong;
  wrong.SetFloat("value", 1.f);
  EXPECT_FALSE(Run1("ConstantOfShape", wrong, {TestTensor::Const<int64_t>({1}, {2})}, DType::kFloat32, {2}, &y).ok());
  EXPECT_FALSE(
      Run1("ConstantOfShape", Attrs(), {TestTensor::Const<int64_t>({1}, {-2})}, DType::kFloat32, {2}, &y).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("ConstantOfShape", Attrs(), {TestTensor::Const<int64_t>({2}, {4, 1})},
                                   {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{4, 1}}));
}

template <typename T>
void CheckRange(T start, T limit, T delta) {
  std::vector<T> want;
  const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i)
    want.push_back(static_cast<T>(start + static_cast<T>(i) * delta));
  const Shape out = {static_cast<int64_t>(want.size())};
  for (bool constant : {true, false}) {
    TestTensor y;
    Status st = Run1("Range", Attrs(),
                     {TestTensor::Of<T>({}, {start}, constant), TestTensor::Of<T>({}, {limit}, constant),
                      TestTensor::Of<T>({}, {delta}, constant)},
                     DTypeOf<T>::value, out, &y);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(y.As<T>(), want);
  }
}

TEST(RangeTest, TypesAndSigns) {
  CheckRange<float>(1.f, 5.f, 0.5f);
  CheckRange<float>(10.f, 6.f, -3.f);
  CheckRange<double>(0.0, 1.0, 0.3);
  CheckRange<int32_t>(10, 6, -3);
  CheckRange<int64_t>(-5, 7, 4);
  CheckRange<int16_t>(3, 3, 1);
  CheckRange<int64_t>(0, 5, -1);  // empty: wrong direction
}

TEST(RangeTest, BadSetupsAndRuntimeMismatch) {
  TestTensor y;
  auto c = [](int64_t v) { return TestTensor::Const<int64_t>({}, {v}); };
  EXPECT_FALSE(Run1("Range", Attrs(), {c(0), c(5), c(0)}, DType::kInt64, {0}, &y).ok());
  EXPECT_FALSE(Run1("Range", Attrs(), {c(0), c(5), c(1)}, DType::kInt64, {4}, &y).ok());
  EXPECT_FALSE(Run1("Range", Attrs(), {c(0), TestTensor::Const<int32_t>({}, {5}), c(1)}, DType::kInt64, {5}, &y).ok());
  EXPECT_EQ(Run1("Range", Attrs(),
                 {TestTensor::Const<uint8_t>({}, {0}), TestTensor::Const<uint8_t>({}, {5}),
                  TestTensor::Const<uint8_t>({}, {1})},
                 DType::kUInt8, {5}, &y)
                .code(),
            StatusCode::kUnsupported);
  Status st = Run1("Range", Attrs(), {TestTensor::Of<int64_t>({}, {0}), c(5), c(1)}, DType::kInt64, {4}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  st = Run1("Range", Attrs(), {c(0), c(5), TestTensor::Of<int64_t>({}, {0})}, DType::kInt64, {5}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Range", Attrs(), {c(0), c(10), c(3)}, {DType::kInt64}, &shapes).ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{4}}));
}

TEST(EyeLikeTest, DiagonalsAndDTypes) {
  for (int64_t k : {-3, -1, 0, 2, 5}) {
    Attributes a;
    a.SetInt("k", k);
    TestTensor y;
    ASSERT_TRUE(
        Run1("EyeLike", a, {TestTensor::Of<int32_t>({3, 4}, Iota<int32_t>(12))}, DType::kInt32, {3, 4}, &y).ok());
    std::vector<int32_t> want(12, 0);
    for (int64_t i = 0; i < 3; ++i)
      if (i + k >= 0 && i + k < 4) want[static_cast<size_t>(i * 4 + i + k)] = 1;
    EXPECT_EQ(y.As<int32_t>(), want) << k;
  }
  Attributes a;
  a.SetInt("dtype", static_cast<int64_t>(DType::kFloat16));
  TestTensor y;
  ASSERT_TRUE(Run1("EyeLike", a, {TestTensor::Of<float>({2, 2}, {5, 5, 5, 5})}, DType::kFloat16, {2, 2}, &y).ok());
  EXPECT_EQ(y.As<uint16_t>(), std::vector<uint16_t>({0x3c00, 0, 0, 0x3c00}));
  a.SetInt("dtype", static_cast<int64_t>(DType::kBool));
  ASSERT_TRUE(Run1("EyeLike", a, {TestTensor::Of<float>({2, 2}, {5, 5, 5, 5})}, DType::kBool, {2, 2}, &y).ok());
  EXPECT_EQ(y.bytes, std::vector<uint8_t>({1, 0, 0, 1}));
  a.SetInt("dtype", 8);  // string
  EXPECT_FALSE(Run1("EyeLike", a, {TestTensor::Of<float>({2, 2}, {5, 5, 5, 5})}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_FALSE(Run1("EyeLike", Attrs(), {TestTensor::Of<float>({4}, {5, 5, 5, 5})}, DType::kFloat32, {4}, &y).ok());
  EXPECT_FALSE(Run1("EyeLike", Attrs(), {TestTensor::Of<float>({2, 2}, {5, 5, 5, 5})}, DType::kInt32, {2, 2}, &y).ok());
}

TEST(ConstantTest, AttributeForms) {
  TestTensor y;
  Attributes a;
  a.Set(TensorAttr<int16_t>("value", DType::kInt16, {2, 2}, {1, -2, 3, -4}));
  ASSERT_TRUE(Run1("Constant", a, {}, DType::kInt16, {2, 2}, &y).ok());
  EXPECT_EQ(y.As<int16_t>(), std::vector<int16_t>({1, -2, 3, -4}));
  Attributes f;
  f.SetFloat("value_float", 2.5f);
  ASSERT_TRUE(Run1("Constant", f, {}, DType::kFloat32, {}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({2.5f}));
  Attributes fs;
  fs.SetFloats("value_floats", {1.f, 2.f});
  ASSERT_TRUE(Run1("Constant", fs, {}, DType::kFloat32, {2}, &y).ok());
  Attributes i;
  i.SetInt("value_int", -3);
  ASSERT_TRUE(Run1("Constant", i, {}, DType::kInt64, {}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({-3}));
  Attributes is;
  is.SetInts("value_ints", {4, 5, 6});
  ASSERT_TRUE(Run1("Constant", is, {}, DType::kInt64, {3}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({4, 5, 6}));
  // Wrong output, no attribute, two attributes, strings, malformed tensor.
  EXPECT_FALSE(Run1("Constant", is, {}, DType::kInt64, {2}, &y).ok());
  EXPECT_FALSE(Run1("Constant", Attrs(), {}, DType::kInt64, {}, &y).ok());
  Attributes two = is;
  two.SetInt("value_int", 1);
  EXPECT_FALSE(Run1("Constant", two, {}, DType::kInt64, {3}, &y).ok());
  Attributes s;
  s.SetString("value_string", "x");
  EXPECT_EQ(Run1("Constant", s, {}, DType::kInt64, {}, &y).code(), StatusCode::kUnsupported);
  Attributes bad;
  bad.Set(TensorAttr<int16_t>("value", DType::kInt16, {3}, {1, 2}));
  EXPECT_FALSE(Run1("Constant", bad, {}, DType::kInt16, {3}, &y).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Constant", is, {}, {DType::kInt64}, &shapes).ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3}}));
}

}  // namespace
}  // namespace loom
