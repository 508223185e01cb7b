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

template <typename T, typename Ref>
void CheckCompare(const std::string& op, const Shape& sa, const Shape& sb, const Shape& so, Ref ref, int threads = 1) {
  SCOPED_TRACE(op + " " + DTypeName(DTypeOf<T>::value) + " " + ShapeToString(sa) + " x " + ShapeToString(sb));
  // A small value range so that equal values occur.
  const std::vector<T> a = RandomValues<T>(NumElements(sa), 0, 5, 3);
  const std::vector<T> b = RandomValues<T>(NumElements(sb), 0, 5, 4);
  TestTensor out;
  RunOptions opt;
  opt.threads = threads;
  ASSERT_TRUE(RunOne(op, {}, {TestTensor::Of<T>(sa, a), TestTensor::Of<T>(sb, b)}, DType::kBool, so, &out, opt).ok());
  const std::vector<uint8_t> y = out.As<uint8_t>();
  for (int64_t i = 0; i < NumElements(so); ++i) {
    ASSERT_EQ(y[i], ref(a[BroadcastIndex(sa, so, i)], b[BroadcastIndex(sb, so, i)]) ? 1 : 0) << "element " << i;
  }
}

template <typename T>
void CheckAllComparisons(const Shape& sa, const Shape& sb, const Shape& so, int threads = 1) {
  CheckCompare<T>(
      "Equal", sa, sb, so, [](T a, T b) { return a == b; }, threads);
  CheckCompare<T>(
      "Greater", sa, sb, so, [](T a, T b) { return a > b; }, threads);
  CheckCompare<T>(
      "Less", sa, sb, so, [](T a, T b) { return a < b; }, threads);
  CheckCompare<T>(
      "GreaterOrEqual", sa, sb, so, [](T a, T b) { return a >= b; }, threads);
  CheckCompare<T>(
      "LessOrEqual", sa, sb, so, [](T a, T b) { return a <= b; }, threads);
}

TEST(CompareTest, AllDtypeFamiliesWithBroadcasting) {
  CheckAllComparisons<float>({2, 3, 4}, {3, 1}, {2, 3, 4});
  CheckAllComparisons<double>({4}, {}, {4});
  CheckAllComparisons<int32_t>({3, 1}, {1, 5}, {3, 5});
  CheckAllComparisons<int64_t>({}, {}, {});
  CheckAllComparisons<uint8_t>({6}, {6}, {6});
  CheckAllComparisons<int8_t>({0, 2}, {2}, {0, 2});
  CheckAllComparisons<uint64_t>({2, 2}, {2, 1}, {2, 2});
  CheckAllComparisons<float>({40000}, {1}, {40000}, 2);
}

TEST(CompareTest, NaNComparesFalse) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor out;
  for (const char* op : {"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"}) {
    ASSERT_TRUE(RunOne(op, {}, {TestTensor::Of<float>({2}, {nan, 1.f}), TestTensor::Of<float>({2}, {nan, nan})},
                       DType::kBool, {2}, &out)
                    .ok());
    EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 0})) << op;
  }
}

TEST(LogicTest, TruthTablesWithBroadcast) {
  const TestTensor a = TestTensor::Bools({2, 2}, {0, 0, 1, 1});
  const TestTensor b = TestTensor::Bools({2}, {0, 1});
  TestTensor out;
  ASSERT_TRUE(RunOne("And", {}, {a, b}, DType::kBool, {2, 2}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 0, 0, 1}));
  ASSERT_TRUE(RunOne("Or", {}, {a, b}, DType::kBool, {2, 2}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 1, 1, 1}));
  ASSERT_TRUE(RunOne("Xor", {}, {a, b}, DType::kBool, {2, 2}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{0, 1, 1, 0}));
  ASSERT_TRUE(RunOne("Equal", {}, {a, b}, DType::kBool, {2, 2}, &out).ok());
  EXPECT_EQ(out.As<uint8_t>(), (std::vector<uint8_t>{1, 0, 0, 1}));
  // Scalars against an empty tensor.
  ASSERT_TRUE(RunOne("Or", {}, {TestTensor::Bools({}, {1}), TestTensor::Bools({0}, {})}, DType::kBool, {0}, &out).ok());
  EXPECT_TRUE(out.bytes.empty());
}

TEST(LogicTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor f = TestTensor::Of<float>({2}, {1.f, 0.f});
  const TestTensor b = TestTensor::Bools({2}, {1, 0});
  EXPECT_EQ(RunOne("And", {}, {f, f}, DType::kBool, {2}, &out).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("And", {}, {b, f}, DType::kBool, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Less", {}, {f, f}, DType::kFloat32, {2}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("Less", {}, {b, b}, DType::kBool, {2}, &out).code(), StatusCode::kUnsupported);
  EXPECT_EQ(RunOne("Equal", {}, {f, TestTensor::Of<float>({3}, {1, 2, 3})}, DType::kBool, {2}, &out).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
