#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

struct UniqueResult {
  std::vector<std::vector<int32_t>> items;  // unique items in output order
  std::vector<int64_t> indices, inverse, counts;
};

// Reference over "items" (elements or slices), using std::map for order.
UniqueResult RefUnique(const std::vector<std::vector<int32_t>>& items, bool sorted) {
  std::map<std::vector<int32_t>, std::pair<int64_t, int64_t>> first_count;  // item -> (first, count)
  std::vector<std::vector<int32_t>> by_first;
  for (size_t i = 0; i < items.size(); ++i) {
    auto it = first_count.find(items[i]);
    if (it == first_count.end()) {
      first_count[items[i]] = {static_cast<int64_t>(i), 1};
      by_first.push_back(items[i]);
    } else {
      ++it->second.second;
    }
  }
  UniqueResult r;
  if (sorted) {
    for (const auto& kv : first_count) r.items.push_back(kv.first);
  } else {
    r.items = by_first;
  }
  for (const auto& item : r.items) {
    r.indices.push_back(first_count[item].first);
    r.counts.push_back(first_count[item].second);
  }
  for (const auto& item : items) r.inverse.push_back(std::find(r.items.begin(), r.items.end(), item) - r.items.begin());
  return r;
}

void CheckUnique(const Shape& shape, const std::vector<int32_t>& x, bool has_axis, int axis, bool sorted) {
  // Items: elements, or slices along axis (elements in (outer, inner) order).
  std::vector<std::vector<int32_t>> items;
  const int64_t outer = has_axis ? NumElements(Shape(shape.begin(), shape.begin() + axis)) : 1;
  const int64_t m = has_axis ? shape[static_cast<size_t>(axis)] : static_cast<int64_t>(x.size());
  const int64_t inner = has_axis ? NumElements(Shape(shape.begin() + axis + 1, shape.end())) : 1;
  for (int64_t k = 0; k < m; ++k) {
    std::vector<int32_t> item;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) item.push_back(x[static_cast<size_t>((o * m + k) * inner + i)]);
    items.push_back(item);
  }
  const UniqueResult r = RefUnique(items, sorted);
  const int64_t u = static_cast<int64_t>(r.items.size());
  std::vector<int32_t> want_y;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t p = 0; p < u; ++p)
      for (int64_t i = 0; i < inner; ++i)
        want_y.push_back(r.items[static_cast<size_t>(p)][static_cast<size_t>(o * inner + i)]);
  Shape y_shape = {u};
  if (has_axis) {
    y_shape = shape;
    y_shape[static_cast<size_t>(axis)] = u;
  }
  Attributes a;
  a.SetInt("sorted", sorted ? 1 : 0);
  if (has_axis) a.SetInt("axis", axis);
  for (bool constant : {true, false}) {
    std::vector<TestTensor> outs = {TestTensor::Empty(DType::kInt32, y_shape), TestTensor::Empty(DType::kInt64, {u}),
                                    TestTensor::Empty(DType::kInt64, {m}), TestTensor::Empty(DType::kInt64, {u})};
    Status st = testing::RunKernel("Unique", a, {TestTensor::Of<int32_t>(shape, x, constant)}, &outs);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(outs[0].As<int32_t>(), want_y);
    EXPECT_EQ(outs[1].As<int64_t>(), r.indices);
    EXPECT_EQ(outs[2].As<int64_t>(), r.inverse);
    EXPECT_EQ(outs[3].As<int64_t>(), r.counts);
  }
}

TEST(UniqueTest, FlatAndAxesSortedAndNot) {
  const Shape shape = {4, 3, 2};
  auto x = Pseudo<int32_t>(24, 0, 2, 4);
  // Make some slices repeat along each axis.
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) x[static_cast<size_t>(3 * 6 + i * 2 + j)] = x[static_cast<size_t>(i * 2 + j)];
  for (bool sorted : {true, false}) {
    CheckUnique(shape, x, false, 0, sorted);
    for (int axis = 0; axis < 3; ++axis) CheckUnique(shape, x, true, axis, sorted);
  }
}

TEST(UniqueTest, FloatsOnlyYOutputAndPlannedCount) {
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, {3})};
  ASSERT_TRUE(
      testing::RunKernel("Unique", Attrs(), {TestTensor::Of<float>({5}, {2.f, -1.f, 2.f, 0.5f, -1.f})}, &outs).ok());
  EXPECT_EQ(outs[0].As<float>(), std::vector<float>({-1.f, 0.5f, 2.f}));
  outs = {TestTensor::Empty(DType::kFloat32, {2})};
  EXPECT_EQ(
      testing::RunKernel("Unique", Attrs(), {TestTensor::Of<float>({5}, {2.f, -1.f, 2.f, 0.5f, -1.f})}, &outs).code(),
      StatusCode::kInvalidArgument);
  EXPECT_FALSE(
      testing::RunKernel("Unique", Attrs(), {TestTensor::Of<float>({5}, {2.f, -1.f, 2.f, 0.5f, -1.f}, true)}, &outs)
          .ok());
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Unique", Attrs(), {TestTensor::Of<float>({4}, {1, 1, 2, 3}, true)},
                                   {DType::kFloat32, DType::kInt64, DType::kInt64, DType::kInt64}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3}, {3}, {4}, {3}}));
  Attributes a;
  a.SetInt("axis", 1);
  EXPECT_FALSE(testing::RunKernel("Unique", a, {TestTensor::Of<float>({5}, {2.f, -1.f, 2.f, 0.5f, -1.f})}, &outs).ok());
}

}  // namespace
}  // namespace loom
