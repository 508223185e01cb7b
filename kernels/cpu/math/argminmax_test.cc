#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/cpu/math/math_test_util.h"

namespace loom {
namespace math {
namespace {

using test::RandomValues;
using test::RunOne;
using testing::RunOptions;
using testing::TestTensor;

// Naive ArgMax/ArgMin over `axis` (normalized), ties by first or last index.
template <typename T>
std::vector<int64_t> NaiveArg(const std::vector<T>& x, const Shape& shape, int axis, bool is_max, bool last) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t n = shape[axis];
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k) {
        const T v = x[(o * n + k) * inner + i], b = x[(o * n + best) * inner + i];
        const bool better = is_max ? (v > b || (last && v == b)) : (v < b || (last && v == b));
        if (better) best = k;
      }
      out.push_back(best);
    }
  }
  return out;
}

template <typename T>
void CheckArg(const std::string& op, const Shape& shape, int64_t axis, bool keepdims, bool last, int threads = 1) {
  SCOPED_TRACE(op + " " + DTypeName(DTypeOf<T>::value) + " " + ShapeToString(shape) + " axis=" + std::to_string(axis) +
               " keepdims=" + std::to_string(keepdims) + " last=" + std::to_string(last));
  const std::vector<T> x = RandomValues<T>(NumElements(shape), 0, 4, 21);  // small range: many ties
  const int rank = static_cast<int>(shape.size());
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  Shape out_shape;
  for (int d = 0; d < rank; ++d) {
    if (d != a)
      out_shape.push_back(shape[d]);
    else if (keepdims)
      out_shape.push_back(1);
  }
  Attributes attrs;
  attrs.SetInt("axis", axis);
  attrs.SetInt("keepdims", keepdims);
  attrs.SetInt("select_last_index", last);
  RunOptions opt;
  opt.threads = threads;
  TestTensor out;
  ASSERT_TRUE(RunOne(op, attrs, {TestTensor::Of<T>(shape, x)}, DType::kInt64, out_shape, &out, opt).ok());
  EXPECT_EQ(out.As<int64_t>(), NaiveArg(x, shape, a, op == "ArgMax", last));
}

TEST(ArgMinMaxTest, MatchesNaiveReference) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (bool last : {false, true}) {
      for (int64_t axis : {0, 1, 2, -1, -3}) {
        CheckArg<float>(op, {3, 4, 5}, axis, true, last);
        CheckArg<int32_t>(op, {3, 4, 5}, axis, false, last);
      }
      CheckArg<double>(op, {7}, 0, false, last);
      CheckArg<uint8_t>(op, {2, 9}, 1, true, last);
      CheckArg<int64_t>(op, {1, 1}, 0, true, last);
    }
  }
  CheckArg<float>("ArgMax", {500, 300}, 1, false, false, 2);
  CheckArg<float>("ArgMin", {500, 300}, 0, true, true, 2);
}

TEST(ArgMinMaxTest, DefaultsAndEmptyOuter) {
  TestTensor out;
  ASSERT_TRUE(RunOne("ArgMax", {}, {TestTensor::Of<float>({2, 2}, {2, 1, 3, 10})}, DType::kInt64, {1, 2}, &out).ok());
  EXPECT_EQ(out.As<int64_t>(), (std::vector<int64_t>{1, 1}));  // axis 0, keepdims 1
  Attributes attrs;
  attrs.SetInt("axis", 1);
  ASSERT_TRUE(RunOne("ArgMin", attrs, {TestTensor::Of<float>({0, 3}, {})}, DType::kInt64, {0, 1}, &out).ok());
}

TEST(ArgMinMaxTest, RejectsBadSetups) {
  TestTensor out;
  const TestTensor x = TestTensor::Of<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Attributes axis2;
  axis2.SetInt("axis", 2);
  EXPECT_EQ(RunOne("ArgMax", axis2, {x}, DType::kInt64, {2, 1}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ArgMax", {}, {x}, DType::kInt32, {1, 3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ArgMax", {}, {x}, DType::kInt64, {3}, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ArgMax", {}, {TestTensor::Of<float>({0, 3}, {})}, DType::kInt64, {1, 3}, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOne("ArgMax", {}, {TestTensor::Bools({2}, {1, 0})}, DType::kInt64, {1}, &out).code(),
            StatusCode::kUnsupported);
  Attributes wrong;
  wrong.SetFloat("axis", 1.f);
  EXPECT_EQ(RunOne("ArgMax", wrong, {x}, DType::kInt64, {2, 1}, &out).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace math
}  // namespace loom
