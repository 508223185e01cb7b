#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// Source index of output index o for one dim, by repeated reflection; -1 = constant.
int64_t RefIndex(const std::string& mode, int64_t o, int64_t begin, int64_t n) {
  int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return i < 0 ? 0 : n - 1;
  if (mode == "wrap") {
    while (i < 0) i += n;
    return i % n;
  }
  if (n == 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

std::vector<float> RefPad(const std::vector<float>& x, const Shape& shape, const std::vector<int64_t>& pads,
                          const std::string& mode, float value, Shape* out_shape) {
  const size_t r = shape.size();
  out_shape->clear();
  for (size_t d = 0; d < r; ++d) out_shape->push_back(shape[d] + pads[d] + pads[d + r]);
  std::vector<float> y;
  for (int64_t flat = 0; flat < NumElements(*out_shape); ++flat) {
    const auto oi = Unravel(flat, *out_shape);
    std::vector<int64_t> ii(r);
    bool constant = false;
    for (size_t d = 0; d < r; ++d) {
      ii[d] = RefIndex(mode, oi[d], pads[d], shape[d]);
      constant |= ii[d] < 0;
    }
    y.push_back(constant ? value : x[static_cast<size_t>(Ravel(ii, shape))]);
  }
  return y;
}

TEST(PadTest, RandomModesAndPads) {
  uint32_t seed = 11;
  auto rnd = [&](int64_t lo, int64_t hi) {
    seed = seed * 1664525u + 1013904223u;
    return lo + static_cast<int64_t>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1));
  };
  for (int iter = 0; iter < 200; ++iter) {
    const std::string mode = std::vector<std::string>{"constant", "reflect", "edge", "wrap"}[iter % 4];
    const int rank = static_cast<int>(rnd(1, 3));
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(rnd(1, 5));
    std::vector<int64_t> pads(static_cast<size_t>(2 * rank));
    for (int d = 0; d < rank; ++d) {
      pads[static_cast<size_t>(d)] = rnd(-2, 7);
      pads[static_cast<size_t>(d + rank)] = rnd(-2, 7);
      while (shape[static_cast<size_t>(d)] + pads[static_cast<size_t>(d)] + pads[static_cast<size_t>(d + rank)] < 0)
        ++pads[static_cast<size_t>(d + rank)];
    }
    const auto x = Iota<float>(NumElements(shape), 1);
    Shape out_shape;
    const auto want = RefPad(x, shape, pads, mode, 0.5f, &out_shape);
    Attributes a;
    a.SetString("mode", mode);
    const auto v = TestTensor::Const<float>({}, {0.5f});
    for (int form = 0; form < 3; ++form) {
      TestTensor y;
      Status st;
      if (form == 0) {  // opset 2 attributes
        Attributes b = a;
        b.SetInts("pads", pads);
        b.SetFloat("value", 0.5f);
        st = Run1("Pad", b, {TestTensor::Of<float>(shape, x)}, DType::kFloat32, out_shape, &y, Opset(2));
      } else {  // opset 13 inputs, constant or runtime pads
        st = Run1("Pad", a,
                  {TestTensor::Of<float>(shape, x),
                   TestTensor::Of<int64_t>({static_cast<int64_t>(pads.size())}, pads, form == 1), v},
                  DType::kFloat32, out_shape, &y, Opset(13, 1 + iter % 2));
      }
      ASSERT_TRUE(st.ok()) << st.ToString() << " iteration " << iter;
      EXPECT_EQ(y.As<float>(), want) << mode << " shape " << ShapeToString(shape) << " pads " << ShapeToString(pads)
                                     << " form " << form;
    }
  }
}

TEST(PadTest, AxesInputAndIntegerValue) {
  auto x = TestTensor::Of<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  TestTensor y;
  ASSERT_TRUE(Run1("Pad", Attrs(),
                   {x, TestTensor::Const<int64_t>({2}, {1, 2}), TestTensor::Of<int8_t>({}, {-7}),
                    TestTensor::Const<int64_t>({1}, {-1})},
                   DType::kInt8, {2, 6}, &y, Opset(18))
                  .ok());
  EXPECT_EQ(y.As<int8_t>(), std::vector<int8_t>({-7, 1, 2, 3, -7, -7, -7, 4, 5, 6, -7, -7}));
  // Without constant_value: zero. Bool data.
  ASSERT_TRUE(Run1("Pad", Attrs(), {TestTensor::Bools({2}, {1, 1}), TestTensor::Const<int64_t>({2}, {1, 0})},
                   DType::kBool, {3}, &y, Opset(13))
                  .ok());
  EXPECT_EQ(y.bytes, std::vector<uint8_t>({0, 1, 1}));
}

TEST(PadTest, ScalarAndEmptyInput) {
  TestTensor y;
  ASSERT_TRUE(Run1("Pad", Attrs(), {TestTensor::Of<float>({}, {3.f}), TestTensor::Const<int64_t>({0}, {})},
                   DType::kFloat32, {}, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({3.f}));
  // Constant padding of an empty tensor fills the new area.
  ASSERT_TRUE(Run1("Pad", Attrs(),
                   {TestTensor::Of<float>({0, 2}, {}), TestTensor::Const<int64_t>({4}, {1, 0, 0, 1}),
                    TestTensor::Of<float>({}, {9.f})},
                   DType::kFloat32, {1, 3}, &y)
                  .ok());
  EXPECT_EQ(y.As<float>(), std::vector<float>({9.f, 9.f, 9.f}));
}

TEST(PadTest, BadSetupsAndRuntimeMismatch) {
  auto x = TestTensor::Of<float>({2, 2}, {1, 2, 3, 4});
  TestTensor y;
  Attributes a;
  a.SetString("mode", "mirror");
  EXPECT_FALSE(Run1("Pad", a, {x, TestTensor::Const<int64_t>({4}, {0, 0, 0, 0})}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_FALSE(Run1("Pad", Attrs(), {x, TestTensor::Const<int64_t>({3}, {0, 0, 0})}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_FALSE(
      Run1("Pad", Attrs(), {x, TestTensor::Const<int64_t>({4}, {-3, 0, 0, 0})}, DType::kFloat32, {-1, 2}, &y).ok());
  EXPECT_FALSE(
      Run1("Pad", Attrs(), {x, TestTensor::Const<int64_t>({4}, {1, 0, 0, 0})}, DType::kFloat32, {2, 2}, &y).ok());
  EXPECT_FALSE(Run1("Pad", Attrs(),
                    {x, TestTensor::Const<int64_t>({4}, {0, 0, 0, 0}), TestTensor::Of<int32_t>({}, {1})},
                    DType::kFloat32, {2, 2}, &y)
                   .ok());
  a.SetString("mode", "reflect");
  EXPECT_FALSE(Run1("Pad", a, {TestTensor::Of<float>({0, 2}, {}), TestTensor::Const<int64_t>({4}, {1, 0, 0, 0})},
                    DType::kFloat32, {1, 2}, &y)
                   .ok());
  Status st = Run1("Pad", Attrs(), {x, TestTensor::Of<int64_t>({4}, {1, 0, 0, 0})}, DType::kFloat32, {2, 3}, &y);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  std::vector<Shape> shapes;
  ASSERT_TRUE(testing::InferShapes("Pad", Attrs(), {x, TestTensor::Const<int64_t>({4}, {1, -1, 0, 3})},
                                   {DType::kFloat32}, &shapes)
                  .ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{3, 4}}));
}

}  // namespace
}  // namespace loom
