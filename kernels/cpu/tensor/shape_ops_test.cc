#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

TEST(ShapeTest, StartEndWindow) {
  auto x = TestTensor::Of<float>({2, 3, 4, 5}, Iota<float>(120));
  struct Case {
    bool has_start, has_end;
    int64_t start, end;
    std::vector<int64_t> want;
  };
  for (const Case& c :
       {Case{false, false, 0, 0, {2, 3, 4, 5}}, Case{true, false, 1, 0, {3, 4, 5}}, Case{false, true, 0, -1, {2, 3, 4}},
        Case{true, true, -3, -1, {3, 4}}, Case{true, true, -10, 10, {2, 3, 4, 5}}, Case{true, true, 3, 1, {}}}) {
    Attributes a;
    if (c.has_start) a.SetInt("start", c.start);
    if (c.has_end) a.SetInt("end", c.end);
    TestTensor y;
    ASSERT_TRUE(Run1("Shape", a, {x}, DType::kInt64, {static_cast<int64_t>(c.want.size())}, &y, Opset(15)).ok());
    EXPECT_EQ(y.As<int64_t>(), c.want);
  }
  TestTensor y;
  ASSERT_TRUE(Run1("Shape", Attrs(), {TestTensor::Of<int8_t>({}, {1})}, DType::kInt64, {0}, &y).ok());
  EXPECT_FALSE(Run1("Shape", Attrs(), {x}, DType::kInt32, {4}, &y).ok());
  EXPECT_FALSE(Run1("Shape", Attrs(), {x}, DType::kInt64, {3}, &y).ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Shape", Attrs(), {x}, {DType::kInt64}, &shapes).ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{4}}));
}

TEST(SizeTest, CountsElements) {
  TestTensor y;
  ASSERT_TRUE(Run1("Size", Attrs(), {TestTensor::Of<float>({2, 3, 4}, Iota<float>(24))}, DType::kInt64, {}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({24}));
  ASSERT_TRUE(Run1("Size", Attrs(), {TestTensor::Of<float>({2, 0}, {})}, DType::kInt64, {}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({0}));
  ASSERT_TRUE(Run1("Size", Attrs(), {TestTensor::Bools({}, {1})}, DType::kInt64, {}, &y).ok());
  EXPECT_EQ(y.As<int64_t>(), std::vector<int64_t>({1}));
  EXPECT_FALSE(Run1("Size", Attrs(), {TestTensor::Bools({}, {1})}, DType::kInt64, {1}, &y).ok());
}

}  // namespace
}  // namespace loom
