#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// out[i] = x[i with broadcast dims set to 0], input aligned to the right.
template <typename T>
std::vector<T> RefBroadcast(const std::vector<T>& x, const Shape& shape, const Shape& out) {
  std::vector<T> y;
  const size_t lead = out.size() - shape.size();
  for (int64_t flat = 0; flat < NumElements(out); ++flat) {
    const auto oi = Unravel(flat, out);
    std::vector<int64_t> ii;
    for (size_t d = 0; d < shape.size(); ++d) ii.push_back(shape[d] == 1 ? 0 : oi[lead + d]);
    y.push_back(x[static_cast<size_t>(Ravel(ii, shape))]);
  }
  return y;
}

TEST(ExpandTest, BidirectionalBroadcast) {
  struct Case {
    Shape in, shape, out;
  };
  for (const Case& c : {Case{{3, 1}, {2, 1, 6}, {2, 3, 6}}, Case{{3, 1}, {3, 4}, {3, 4}}, Case{{1}, {5}, {5}},
                        Case{{2, 3}, {1, 1}, {2, 3}}, Case{{4, 1, 2}, {3, 1}, {4, 3, 2}}, Case{{}, {2, 2}, {2, 2}},
                        Case{{1, 5}, {0, 1}, {0, 5}}}) {
    const auto x = Iota<double>(NumElements(c.in), 1);
    const auto want = RefBroadcast(x, c.in, c.out);
    for (bool constant : {true, false}) {
      TestTensor y;
      Status st = Run1("Expand", Attrs(),
                       {TestTensor::Of<double>(c.in, x),
                        TestTensor::Of<int64_t>({static_cast<int64_t>(c.shape.size())}, c.shape, constant)},
                       DType::kFloat64, c.out, &y, Opset(13, constant ? 1 : 2));
      ASSERT_TRUE(st.ok()) << st.ToString() << " " << ShapeToString(c.in) << " -> " << ShapeToString(c.shape);
      EXPECT_EQ(y.As<double>(), want);
    }
  }
}

TEST(ExpandTest, LargeWithThreads) {
  const auto x = Iota<float>(300);
  TestTensor y;
  ASSERT_TRUE(Run1("Expand", Attrs(), {TestTensor::Of<float>({300, 1}, x), TestTensor::Const<int64_t>({2}, {300, 400})},
                   DType::kFloat32, {300, 400}, &y, Opset(13, 2))
                  .ok());
  EXPECT_EQ(y.As<float>(), RefBroadcast(x, {300, 1}, {300, 400}));
}

TEST(ExpandTest, BadSetupsAndRuntimeMismatch) {
  auto x = TestTensor::Of<float>({3, 2}, Iota<float>(6));
  TestTensor y;
  EXPECT_FALSE(Run1("Expand", Attrs(), {x, TestTensor::Const<int64_t>({2}, {3, 4})}, DType::kFloat32, {3, 4}, &y).ok());
  EXPECT_FALSE(
      Run1("Expand", Attrs(), {x, TestTensor::Const<int64_t>({2}, {3, 2})}, DType::kFloat32, {2, 3, 2}, &y).ok());
  EXPECT_FALSE(
      Run1("Expand", Attrs(), {x, TestTensor::Const<int64_t>({2}, {-1, 2})}, DType::kFloat32, {3, 2}, &y).ok());
  EXPECT_FALSE(Run1("Expand", Attrs(), {x, TestTensor::Of<int64_t>({2}, {3, 2})}, DType::kFloat32, {3, 3}, &y).ok());
  Status st = Run1("Expand", Attrs(), {x, TestTensor::Of<int64_t>({3}, {4, 3, 2})}, DType::kFloat32, {5, 3, 2}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Expand", Attrs(), {x, TestTensor::Const<int64_t>({3}, {2, 1, 1})},
                                   {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{2, 3, 2}}));
}

template <typename T>
std::vector<T> RefTile(const std::vector<T>& x, const Shape& shape, const Shape& out) {
  std::vector<T> y;
  for (int64_t flat = 0; flat < NumElements(out); ++flat) {
    auto oi = Unravel(flat, out);
    for (size_t d = 0; d < shape.size(); ++d) oi[d] %= shape[d];
    y.push_back(x[static_cast<size_t>(Ravel(oi, shape))]);
  }
  return y;
}

TEST(TileTest, RepeatsPerDim) {
  struct Case {
    Shape in, repeats;
  };
  for (const Case& c : {Case{{2, 3}, {2, 2}}, Case{{2, 3}, {1, 3}}, Case{{3}, {4}}, Case{{2, 1, 3}, {1, 5, 2}},
                        Case{{2, 3}, {0, 2}}, Case{{4, 5}, {1, 1}}}) {
    Shape out;
    for (size_t d = 0; d < c.in.size(); ++d) out.push_back(c.in[d] * c.repeats[d]);
    const auto x = Iota<uint8_t>(NumElements(c.in), 1);
    for (bool constant : {true, false}) {
      TestTensor y;
      Status st = Run1("Tile", Attrs(),
                       {TestTensor::Of<uint8_t>(c.in, x),
                        TestTensor::Of<int64_t>({static_cast<int64_t>(c.repeats.size())}, c.repeats, constant)},
                       DType::kUInt8, out, &y, Opset(13, constant ? 2 : 1));
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(y.As<uint8_t>(), RefTile(x, c.in, out)) << ShapeToString(c.in) << " x " << ShapeToString(c.repeats);
    }
  }
}

TEST(TileTest, BadSetupsAndRuntimeMismatch) {
  auto x = TestTensor::Of<float>({2, 2}, Iota<float>(4));
  TestTensor y;
  EXPECT_FALSE(Run1("Tile", Attrs(), {x, TestTensor::Const<int64_t>({1}, {2})}, DType::kFloat32, {4, 2}, &y).ok());
  EXPECT_FALSE(Run1("Tile", Attrs(), {x, TestTensor::Const<int64_t>({2}, {-1, 2})}, DType::kFloat32, {2, 4}, &y).ok());
  EXPECT_FALSE(Run1("Tile", Attrs(), {x, TestTensor::Const<int64_t>({2}, {2, 2})}, DType::kFloat32, {4, 2}, &y).ok());
  EXPECT_FALSE(Run1("Tile", Attrs(), {x, TestTensor::Of<int64_t>({2}, {2, 2})}, DType::kFloat32, {3, 4}, &y).ok());
  EXPECT_EQ(Run1("Tile", Attrs(), {x, TestTensor::Of<int64_t>({2}, {2, 1})}, DType::kFloat32, {2, 4}, &y).code(),
            StatusCode::kInvalidArgument);
  std::vector<Shape> shapes;
  ASSERT_TRUE(
      testing::InferShapes("Tile", Attrs(), {x, TestTensor::Const<int64_t>({2}, {3, 1})}, {DType::kFloat32}, &shapes)
          .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{6, 2}}));
}

}  // namespace
}  // namespace loom
