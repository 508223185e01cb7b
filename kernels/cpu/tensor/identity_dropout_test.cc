#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

TEST(IdentityTest, CopiesAnyDType) {
  auto x = TestTensor::Bools({2, 2}, {1, 0, 0, 1});
  TestTensor y;
  ASSERT_TRUE(Run1("Identity", Attrs(), {x}, DType::kBool, {2, 2}, &y).ok());
  EXPECT_EQ(y.bytes, x.bytes);
  EXPECT_FALSE(Run1("Identity", Attrs(), {x}, DType::kUInt8, {2, 2}, &y).ok());
  EXPECT_FALSE(Run1("Identity", Attrs(), {x}, DType::kBool, {4}, &y).ok());
  TestTensor str = TestTensor::Empty(DType::kString, {1});
  EXPECT_EQ(Run1("Identity", Attrs(), {str}, DType::kString, {1}, &y).code(), StatusCode::kUnsupported);
}

TEST(DropoutTest, InferenceCopiesAndMaskIsTrue) {
  auto x = TestTensor::Of<float>({2, 3}, Iota<float>(6));
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, {2, 3}), TestTensor::Empty(DType::kBool, {2, 3})};
  ASSERT_TRUE(testing::RunKernel("Dropout", Attrs(), {x, TestTensor::Const<float>({}, {0.5f})}, &outs).ok());
  EXPECT_EQ(outs[0].As<float>(), Iota<float>(6));
  EXPECT_EQ(outs[1].bytes, std::vector<uint8_t>(6, 1));
  // Opset 7: mask has the data type.
  outs = {TestTensor::Empty(DType::kFloat32, {2, 3}), TestTensor::Empty(DType::kFloat32, {2, 3})};
  ASSERT_TRUE(testing::RunKernel("Dropout", Attrs(), {x}, &outs, Opset(7)).ok());
  EXPECT_EQ(outs[1].As<float>(), std::vector<float>(6, 1.f));
}

TEST(DropoutTest, TrainingModeRefused) {
  auto x = TestTensor::Of<float>({2}, {1.f, 2.f});
  TestTensor y;
  auto ratio = TestTensor::Const<float>({}, {0.5f});
  Status st = Run1("Dropout", Attrs(), {x, ratio, TestTensor::Bools({}, {1}, true)}, DType::kFloat32, {2}, &y);
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Run1("Dropout", Attrs(), {x, ratio, TestTensor::Bools({}, {0}, true)}, DType::kFloat32, {2}, &y).ok());
  st = Run1("Dropout", Attrs(), {x, ratio, TestTensor::Bools({}, {1})}, DType::kFloat32, {2}, &y);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Run1("Dropout", Attrs(), {x, ratio, TestTensor::Bools({}, {0})}, DType::kFloat32, {2}, &y).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({1.f, 2.f}));
  EXPECT_FALSE(Run1("Dropout", Attrs(), {TestTensor::Of<int32_t>({2}, {1, 2})}, DType::kInt32, {2}, &y).ok());
}

}  // namespace
}  // namespace loom
