#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

TEST(ReshapeTest, ConstantShapeWithZeroAndMinusOne) {
  auto x = TestTensor::Of<float>({2, 3, 4}, Iota<float>(24));
  auto shape = TestTensor::Const<int64_t>({3}, {0, -1, 2});
  TestTensor y;
  ASSERT_TRUE(Run1("Reshape", Attrs(), {x, shape}, DType::kFloat32, {2, 6, 2}, &y).ok());
  EXPECT_EQ(y.As<float>(), Iota<float>(24));
  // The same node with a mismatching output shape is refused.
  Status st = Run1("Reshape", Attrs(), {x, shape}, DType::kFloat32, {2, 12}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
}

TEST(ReshapeTest, AllDTypesMoveBytes) {
  for (DType t : {DType::kUInt8, DType::kInt16, DType::kFloat16, DType::kInt32, DType::kInt64, DType::kFloat64,
                  DType::kBool, DType::kBFloat16, DType::kUInt64}) {
    TestTensor x = TestTensor::Empty(t, {4, 6});
    for (size_t i = 0; i < x.bytes.size(); ++i) x.bytes[i] = static_cast<uint8_t>(i * 7 + 1);
    if (t == DType::kBool)
      for (auto& b : x.bytes) b &= 1;
    TestTensor y;
    ASSERT_TRUE(Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({2}, {3, 8})}, t, {3, 8}, &y).ok())
        << DTypeName(t);
    EXPECT_EQ(y.bytes, x.bytes) << DTypeName(t);
  }
}

TEST(ReshapeTest, AllowZeroKeepsZeroDims) {
  auto x = TestTensor::Of<float>({0, 3, 4}, {});
  Attributes a;
  a.SetInt("allowzero", 1);
  TestTensor y;
  EXPECT_TRUE(Run1("Reshape", a, {x, TestTensor::Const<int64_t>({3}, {3, 4, 0})}, DType::kFloat32, {3, 4, 0}, &y).ok());
  // Without allowzero, 0 copies the input dim: [0, 4, 3] -> [0, 4, 3].
  EXPECT_TRUE(
      Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({3}, {0, 4, 3})}, DType::kFloat32, {0, 4, 3}, &y).ok());
  // allowzero with -1 and a 0 dim cannot infer.
  EXPECT_FALSE(Run1("Reshape", a, {x, TestTensor::Const<int64_t>({2}, {0, -1})}, DType::kFloat32, {0, 12}, &y).ok());
}

TEST(ReshapeTest, RuntimeShapeIsChecked) {
  auto x = TestTensor::Of<int32_t>({2, 6}, Iota<int32_t>(12));
  TestTensor y;
  ASSERT_TRUE(Run1("Reshape", Attrs(), {x, TestTensor::Of<int64_t>({2}, {-1, 3})}, DType::kInt32, {4, 3}, &y).ok());
  EXPECT_EQ(y.As<int32_t>(), Iota<int32_t>(12));
  Status st = Run1("Reshape", Attrs(), {x, TestTensor::Of<int64_t>({2}, {3, 4})}, DType::kInt32, {4, 3}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  st = Run1("Reshape", Attrs(), {x, TestTensor::Of<int64_t>({2}, {-1, -1})}, DType::kInt32, {4, 3}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  // Output with another element count is refused in Prepare.
  st = Run1("Reshape", Attrs(), {x, TestTensor::Of<int64_t>({2}, {3, 3})}, DType::kInt32, {3, 3}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
}

TEST(ReshapeTest, BadSetups) {
  auto x = TestTensor::Of<float>({2, 3}, Iota<float>(6));
  TestTensor y;
  EXPECT_FALSE(
      Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({2}, {-1, -1})}, DType::kFloat32, {6, 1}, &y).ok());
  EXPECT_FALSE(
      Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({2}, {-2, 3})}, DType::kFloat32, {2, 3}, &y).ok());
  EXPECT_FALSE(
      Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({2}, {4, -1})}, DType::kFloat32, {4, 1}, &y).ok());
  EXPECT_FALSE(Run1("Reshape", Attrs(), {x, TestTensor::Const<float>({2}, {3, 2})}, DType::kFloat32, {3, 2}, &y).ok());
  EXPECT_FALSE(Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({2}, {3, 2})}, DType::kInt32, {3, 2}, &y).ok());
  EXPECT_FALSE(Run1("Reshape", Attrs(), {x}, DType::kFloat32, {3, 2}, &y).ok());
  // Huge dims must not overflow.
  EXPECT_FALSE(Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({3}, {int64_t{1} << 40, int64_t{1} << 40, 0})},
                    DType::kFloat32, {6}, &y)
                   .ok());
}

TEST(ReshapeTest, ScalarsAndEmptyShape) {
  TestTensor y;
  ASSERT_TRUE(Run1("Reshape", Attrs(), {TestTensor::Of<float>({}, {4.f}), TestTensor::Const<int64_t>({1}, {-1})},
                   DType::kFloat32, {1}, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({4.f}));
  ASSERT_TRUE(Run1("Reshape", Attrs(), {TestTensor::Of<float>({1, 1}, {4.f}), TestTensor::Const<int64_t>({0}, {})},
                   DType::kFloat32, {}, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({4.f}));
  EXPECT_FALSE(Run1("Reshape", Attrs(), {TestTensor::Of<float>({2}, {4.f, 5.f}), TestTensor::Const<int64_t>({0}, {})},
                    DType::kFloat32, {}, &y)
                   .ok());
}

TEST(ReshapeTest, Opset1AttributeForm) {
  auto x = TestTensor::Of<float>({2, 3}, Iota<float>(6));
  Attributes a;
  a.SetInts("shape", {3, -1});
  TestTensor y;
  ASSERT_TRUE(Run1("Reshape", a, {x}, DType::kFloat32, {3, 2}, &y, Opset(1)).ok());
  EXPECT_EQ(y.As<float>(), Iota<float>(6));
}

TEST(ReshapeTest, InferShapes) {
  auto x = TestTensor::Of<float>({2, 3, 4}, Iota<float>(24));
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({2}, {-1, 4})}, {DType::kFloat32},
                                   &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{6, 4}}));
  EXPECT_EQ(
      testing::InferShapes("Reshape", Attrs(), {x, TestTensor::Of<int64_t>({2}, {-1, 4})}, {DType::kFloat32}, &shapes)
          .code(),
      StatusCode::kUnsupported);
}

TEST(ReshapeTest, LargeCopyWithThreads) {
  auto x = TestTensor::Of<float>({512, 1024}, Iota<float>(512 * 1024));
  TestTensor y;
  ASSERT_TRUE(Run1("Reshape", Attrs(), {x, TestTensor::Const<int64_t>({1}, {-1})}, DType::kFloat32, {512 * 1024}, &y,
                   Opset(17, 2))
                  .ok());
  EXPECT_EQ(y.bytes, x.bytes);
}

TEST(FlattenTest, Axes) {
  auto x = TestTensor::Of<int8_t>({2, 3, 4, 5}, Iota<int8_t>(120));
  struct Case {
    int64_t axis;
    Shape out;
  };
  for (const Case& c : {Case{0, {1, 120}}, Case{1, {2, 60}}, Case{2, {6, 20}}, Case{4, {120, 1}}, Case{-1, {24, 5}},
                        Case{-4, {1, 120}}}) {
    Attributes a;
    a.SetInt("axis", c.axis);
    TestTensor y;
    ASSERT_TRUE(Run1("Flatten", a, {x}, DType::kInt8, c.out, &y).ok()) << c.axis;
    EXPECT_EQ(y.bytes, x.bytes);
  }
  Attributes bad;
  bad.SetInt("axis", 5);
  TestTensor y;
  EXPECT_FALSE(Run1("Flatten", bad, {x}, DType::kInt8, {120, 1}, &y).ok());
  bad.SetFloats("axis", {1.f});
  EXPECT_FALSE(Run1("Flatten", bad, {x}, DType::kInt8, {2, 60}, &y).ok());
  // A scalar flattens to [1, 1] with axis 0; the default axis 1 exceeds its rank.
  Attributes zero;
  zero.SetInt("axis", 0);
  EXPECT_FALSE(Run1("Flatten", Attrs(), {TestTensor::Of<float>({}, {3.f})}, DType::kFloat32, {1, 1}, &y).ok());
  EXPECT_TRUE(Run1("Flatten", zero, {TestTensor::Of<float>({}, {3.f})}, DType::kFloat32, {1, 1}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({3.f}));
}

TEST(SqueezeTest, AttributeAndInputForms) {
  auto x = TestTensor::Of<float>({1, 3, 1, 2}, Iota<float>(6));
  Attributes a;
  a.SetInts("axes", {0, -2});
  TestTensor y;
  ASSERT_TRUE(Run1("Squeeze", a, {x}, DType::kFloat32, {3, 2}, &y, Opset(11)).ok());
  EXPECT_EQ(y.As<float>(), Iota<float>(6));
  ASSERT_TRUE(
      Run1("Squeeze", Attrs(), {x, TestTensor::Const<int64_t>({1}, {2})}, DType::kFloat32, {1, 3, 2}, &y, Opset(13))
          .ok());
  // No axes: all unit dims go.
  ASSERT_TRUE(Run1("Squeeze", Attrs(), {x}, DType::kFloat32, {3, 2}, &y, Opset(13)).ok());
  // Axis of size 3 cannot be squeezed; axis out of range; repeated axis.
  EXPECT_FALSE(
      Run1("Squeeze", Attrs(), {x, TestTensor::Const<int64_t>({1}, {1})}, DType::kFloat32, {1, 1, 2}, &y, Opset(13))
          .ok());
  EXPECT_FALSE(
      Run1("Squeeze", Attrs(), {x, TestTensor::Const<int64_t>({1}, {4})}, DType::kFloat32, {3, 2}, &y, Opset(13)).ok());
  EXPECT_FALSE(
      Run1("Squeeze", Attrs(), {x, TestTensor::Const<int64_t>({2}, {0, -4})}, DType::kFloat32, {3, 1, 2}, &y, Opset(13))
          .ok());
}

TEST(SqueezeTest, RuntimeAxes) {
  auto x = TestTensor::Of<int64_t>({1, 3, 1}, {7, 8, 9});
  TestTensor y;
  ASSERT_TRUE(
      Run1("Squeeze", Attrs(), {x, TestTensor::Of<int64_t>({1}, {-1})}, DType::kInt64, {1, 3}, &y, Opset(13)).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({7, 8, 9}));
  Status st = Run1("Squeeze", Attrs(), {x, TestTensor::Of<int64_t>({1}, {0})}, DType::kInt64, {1, 3}, &y, Opset(13));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  st = Run1("Squeeze", Attrs(), {x, TestTensor::Of<int64_t>({1}, {1})}, DType::kInt64, {1, 3}, &y, Opset(13));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
}

TEST(UnsqueezeTest, AttributeAndInputForms) {
  auto x = TestTensor::Of<uint16_t>({3, 2}, Iota<uint16_t>(6));
  Attributes a;
  a.SetInts("axes", {0, 3});
  TestTensor y;
  ASSERT_TRUE(Run1("Unsqueeze", a, {x}, DType::kUInt16, {1, 3, 2, 1}, &y, Opset(11)).ok());
  EXPECT_EQ(y.As<uint16_t>(), Iota<uint16_t>(6));
  ASSERT_TRUE(Run1("Unsqueeze", Attrs(), {x, TestTensor::Const<int64_t>({2}, {-1, 1})}, DType::kUInt16, {3, 1, 2, 1},
                   &y, Opset(13))
                  .ok());
  // Scalar to [1].
  ASSERT_TRUE(Run1("Unsqueeze", Attrs(), {TestTensor::Of<float>({}, {2.f}), TestTensor::Const<int64_t>({1}, {0})},
                   DType::kFloat32, {1}, &y, Opset(13))
                  .ok());
  EXPECT_FALSE(
      Run1("Unsqueeze", Attrs(), {x, TestTensor::Const<int64_t>({1}, {3})}, DType::kUInt16, {3, 2, 1}, &y, Opset(13))
          .ok());
  EXPECT_FALSE(Run1("Unsqueeze", Attrs(), {x, TestTensor::Const<int64_t>({2}, {1, 1})}, DType::kUInt16, {3, 1, 1, 2},
                    &y, Opset(13))
                   .ok());
  EXPECT_FALSE(Run1("Unsqueeze", Attrs(), {x}, DType::kUInt16, {3, 2}, &y, Opset(13)).ok());
  // Runtime axes.
  ASSERT_TRUE(
      Run1("Unsqueeze", Attrs(), {x, TestTensor::Of<int32_t>({1}, {1})}, DType::kUInt16, {3, 1, 2}, &y, Opset(13))
          .ok());
  EXPECT_EQ(Run1("Unsqueeze", Attrs(), {x, TestTensor::Of<int64_t>({1}, {0})}, DType::kUInt16, {3, 1, 2}, &y, Opset(13))
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(UnsqueezeTest, InferShapes) {
  std::vector<Shape> shapes;
  auto x = TestTensor::Of<float>({4}, Iota<float>(4));
  ASSERT_TRUE(testing::InferShapes("Unsqueeze", Attrs(), {x, TestTensor::Const<int64_t>({2}, {0, 2})},
                                   {DType::kFloat32}, &shapes, Opset(13))
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{1, 4, 1}}));
  ASSERT_TRUE(testing::InferShapes("Squeeze", Attrs(), {TestTensor::Of<float>({1, 4, 1}, Iota<float>(4))},
                                   {DType::kFloat32}, &shapes, Opset(13))
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{4}}));
}

}  // namespace
}  // namespace loom
