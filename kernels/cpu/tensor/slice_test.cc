#include <gtest/gtest.h>

#include <limits>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// The positions one dim selects, as the ONNX spec words it: negative values
// count from the end, then start is clamped to [0, dim] ([0, dim - 1] for
// negative steps) and end to [0, dim] ([-1, dim - 1] for negative steps).
// (Unlike Python slices, a start below -dim with a negative step becomes 0.)
std::vector<int64_t> SpecSlice(int64_t start, int64_t stop, int64_t step, int64_t length) {
  auto adjust = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -length ? -length - 1 : v + length;  // no overflow for INT64_MIN
    if (v < lo) v = lo;
    return v > hi ? hi : v;  // an empty dim with a negative step ends at -1
  };
  start = adjust(start, 0, step > 0 ? length : length - 1);
  stop = adjust(stop, step > 0 ? 0 : -1, step > 0 ? length : length - 1);
  std::vector<int64_t> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(i);
  return out;
}

struct SliceCase {
  Shape shape;
  std::vector<int64_t> starts, ends, axes, steps;
};

// Reference result and output shape.
std::vector<int32_t> RefSlice(const SliceCase& c, const std::vector<int32_t>& x, Shape* out_shape) {
  std::vector<std::vector<int64_t>> sel(c.shape.size());
  for (size_t d = 0; d < c.shape.size(); ++d) sel[d] = SpecSlice(0, c.shape[d], 1, c.shape[d]);
  for (size_t i = 0; i < c.starts.size(); ++i) {
    int64_t axis = c.axes.empty() ? static_cast<int64_t>(i) : c.axes[i];
    if (axis < 0) axis += static_cast<int64_t>(c.shape.size());
    const int64_t step = c.steps.empty() ? 1 : c.steps[i];
    sel[static_cast<size_t>(axis)] = SpecSlice(c.starts[i], c.ends[i], step, c.shape[static_cast<size_t>(axis)]);
  }
  out_shape->clear();
  for (const auto& s : sel) out_shape->push_back(static_cast<int64_t>(s.size()));
  std::vector<int32_t> y;
  for (int64_t flat = 0; flat < NumElements(*out_shape); ++flat) {
    auto oi = Unravel(flat, *out_shape);
    std::vector<int64_t> ii(oi.size());
    for (size_t d = 0; d < oi.size(); ++d) ii[d] = sel[d][static_cast<size_t>(oi[d])];
    y.push_back(x[static_cast<size_t>(Ravel(ii, c.shape))]);
  }
  return y;
}

std::vector<TestTensor> SliceInputs(const SliceCase& c, const TestTensor& x, bool constant) {
  std::vector<TestTensor> ins = {x,
                                 TestTensor::Of<int64_t>({static_cast<int64_t>(c.starts.size())}, c.starts, constant),
                                 TestTensor::Of<int64_t>({static_cast<int64_t>(c.ends.size())}, c.ends, constant)};
  if (!c.axes.empty() || !c.steps.empty()) {
    if (c.axes.empty()) {
      ins.push_back(TestTensor::Absent());
    } else {
      ins.push_back(TestTensor::Of<int32_t>({static_cast<int64_t>(c.axes.size())},
                                            std::vector<int32_t>(c.axes.begin(), c.axes.end()), constant));
    }
  }
  if (!c.steps.empty())
    ins.push_back(TestTensor::Of<int64_t>({static_cast<int64_t>(c.steps.size())}, c.steps, constant));
  return ins;
}

TEST(SliceTest, RandomAgainstSpecReference) {
  uint32_t seed = 7;
  auto rnd = [&](int64_t lo, int64_t hi) {
    seed = seed * 1664525u + 1013904223u;
    return lo + static_cast<int64_t>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1));
  };
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  for (int iter = 0; iter < 300; ++iter) {
    SliceCase c;
    const int rank = static_cast<int>(rnd(1, 4));
    for (int d = 0; d < rank; ++d) c.shape.push_back(rnd(0, 6));
    std::vector<int64_t> axes;
    for (int d = 0; d < rank; ++d)
      if (rnd(0, 1)) axes.push_back(d);
    if (axes.empty()) axes.push_back(rank - 1);
    const bool use_axes = rnd(0, 3) != 0;
    const bool use_steps = rnd(0, 3) != 0;
    if (!use_axes) {
      axes.clear();
      for (int d = 0; d < static_cast<int>(rnd(1, rank)); ++d) axes.push_back(d);
    }
    for (int64_t a : axes) {
      const int64_t dim = c.shape[static_cast<size_t>(a)];
      c.starts.push_back(rnd(0, 9) == 0 ? -kMax : rnd(-dim - 2, dim + 2));
      c.ends.push_back(rnd(0, 9) == 0 ? kMax : rnd(-dim - 2, dim + 2));
      if (use_axes) c.axes.push_back(rnd(0, 1) ? a : a - rank);
      if (use_steps) {
        int64_t st = rnd(-3, 3);
        if (st == 0) st = -1;
        c.steps.push_back(st);
      }
    }
    const auto xv = Iota<int32_t>(NumElements(c.shape));
    Shape out_shape;
    const auto want = RefSlice(c, xv, &out_shape);
    const TestTensor x = TestTensor::Of<int32_t>(c.shape, xv);
    for (bool constant : {true, false}) {
      TestTensor y;
      Status st =
          Run1("Slice", Attrs(), SliceInputs(c, x, constant), DType::kInt32, out_shape, &y, Opset(13, 1 + iter % 2));
      ASSERT_TRUE(st.ok()) << "iteration " << iter << ": " << st.ToString() << " shape " << ShapeToString(c.shape)
                           << " starts " << ShapeToString(c.starts) << " ends " << ShapeToString(c.ends) << " axes "
                           << ShapeToString(c.axes) << " steps " << ShapeToString(c.steps);
      EXPECT_EQ(y.As<int32_t>(), want) << "iteration " << iter;
    }
  }
}

TEST(SliceTest, Opset1Attributes) {
  auto x = TestTensor::Of<float>({3, 4}, Iota<float>(12));
  Attributes a;
  a.SetInts("starts", {1, 0});
  a.SetInts("ends", {1000, -1});
  TestTensor y;
  ASSERT_TRUE(Run1("Slice", a, {x}, DType::kFloat32, {2, 3}, &y, Opset(1)).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({4, 5, 6, 8, 9, 10}));
  a.SetInts("axes", {1});
  a.SetInts("starts", {2});
  a.SetInts("ends", {3});
  ASSERT_TRUE(Run1("Slice", a, {x}, DType::kFloat32, {3, 1}, &y, Opset(9)).ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({2, 6, 10}));
}

TEST(SliceTest, BadSetupsAndRuntimeMismatch) {
  auto x = TestTensor::Of<float>({3, 4}, Iota<float>(12));
  auto c = [](std::vector<int64_t> v) { return TestTensor::Const<int64_t>({static_cast<int64_t>(v.size())}, v); };
  TestTensor y;
  // Step 0, repeated axis, axis out of range, length mismatch, wrong output shape.
  EXPECT_FALSE(Run1("Slice", Attrs(), {x, c({0}), c({2}), c({0}), c({0})}, DType::kFloat32, {2, 4}, &y).ok());
  EXPECT_FALSE(Run1("Slice", Attrs(), {x, c({0, 0}), c({2, 2}), c({0, -2})}, DType::kFloat32, {2, 4}, &y).ok());
  EXPECT_FALSE(Run1("Slice", Attrs(), {x, c({0}), c({2}), c({2})}, DType::kFloat32, {2, 4}, &y).ok());
  EXPECT_FALSE(Run1("Slice", Attrs(), {x, c({0, 0}), c({2})}, DType::kFloat32, {2, 4}, &y).ok());
  EXPECT_FALSE(Run1("Slice", Attrs(), {x, c({0}), c({2})}, DType::kFloat32, {3, 4}, &y).ok());
  EXPECT_FALSE(
      Run1("Slice", Attrs(), {x, TestTensor::Const<float>({1}, {0.f}), c({2})}, DType::kFloat32, {2, 4}, &y).ok());
  // Runtime starts that select another shape than planned.
  Status st = Run1("Slice", Attrs(), {x, TestTensor::Of<int64_t>({1}, {1}), c({3})}, DType::kFloat32, {1, 4}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  st = Run1("Slice", Attrs(), {x, TestTensor::Of<int64_t>({1}, {1}), c({3}), c({0}), TestTensor::Of<int64_t>({1}, {0})},
            DType::kFloat32, {2, 4}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  std::vector<Shape> shapes;
  ASSERT_TRUE(
      testing::InferShapes("Slice", Attrs(), {x, c({-1}), c({-1000}), c({1}), c({-1})}, {DType::kFloat32}, &shapes)
          .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3, 4}}));
}

TEST(SliceTest, HalfAndBoolMoveBytes) {
  TestTensor h = TestTensor::Of<uint16_t>({4}, {1, 2, 3, 4});
  h.dtype = DType::kBFloat16;
  TestTensor y;
  ASSERT_TRUE(Run1("Slice", Attrs(),
                   {h, TestTensor::Const<int64_t>({1}, {-1}), TestTensor::Const<int64_t>({1}, {-5}),
                    TestTensor::Const<int64_t>({1}, {0}), TestTensor::Const<int64_t>({1}, {-2})},
                   DType::kBFloat16, {2}, &y)
                  .ok());
  EXPECT_EQ(y.As<uint16_t>(), std::vector<uint16_t>({4, 2}));
}

}  // namespace
}  // namespace loom
