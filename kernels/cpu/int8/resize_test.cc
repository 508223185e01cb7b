#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/act_test_util.h"

namespace loom {
namespace int8 {
namespace {

using namespace test;  // NOLINT

struct ResizeCase {
  Shape x;
  std::vector<float> scales;   // one of scales and sizes
  std::vector<int64_t> sizes;
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor";
  std::vector<float> roi;      // tf_crop_and_resize
  float extrapolation = 0.f;
};

ResizeCase R(Shape x, std::vector<float> scales, std::vector<int64_t> sizes) {
  ResizeCase c;
  c.x = std::move(x);
  c.scales = std::move(scales);
  c.sizes = std::move(sizes);
  return c;
}

// The ONNX Resize definition for mode "nearest", one axis: the input index
// read by output index o, or -1 outside tf_crop_and_resize's crop.
int64_t NearestSource(const ResizeCase& c, int axis, int64_t out_dim, int64_t o) {
  const double in = static_cast<double>(c.x[axis]);
  const double scale = c.sizes.empty() ? static_cast<double>(c.scales[axis])
                                       : static_cast<double>(static_cast<float>(out_dim) / static_cast<float>(in));
  const double length = in * scale;
  double x = 0;
  if (c.coord == "half_pixel") {
    x = (o + 0.5) / scale - 0.5;
  } else if (c.coord == "pytorch_half_pixel") {
    x = length > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  } else if (c.coord == "align_corners") {
    x = length > 1 ? o * (in - 1) / (length - 1) : 0.0;
  } else if (c.coord == "asymmetric") {
    x = o / scale;
  } else if (c.coord == "tf_half_pixel_for_nn") {
    x = (o + 0.5) / scale;
  } else {  // tf_crop_and_resize
    const double start = c.roi[axis], end = c.roi[axis + c.x.size()];
    x = length > 1 ? start * (in - 1) + o * (end - start) * (in - 1) / (length - 1) : 0.5 * (start + end) * (in - 1);
    if (x < 0 || x > in - 1) return -1;
  }
  double r;
  if (c.nearest == "floor") {
    r = std::floor(x);
  } else if (c.nearest == "ceil") {
    r = std::ceil(x);
  } else if (x - std::floor(x) == 0.5) {
    r = c.nearest == "round_prefer_floor" ? std::floor(x) : std::ceil(x);
  } else {
    r = std::round(x);
  }
  return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(r), 0), c.x[axis] - 1);
}

Shape ResizedShape(const ResizeCase& c) {
  Shape out;
  for (size_t a = 0; a < c.x.size(); ++a)
    out.push_back(c.sizes.empty() ? static_cast<int64_t>(std::floor(static_cast<float>(c.x[a]) * c.scales[a]))
                                  : c.sizes[a]);
  return out;
}

std::vector<int8_t> NaiveResize(const ResizeCase& c, const std::vector<int8_t>& x, float xs, int64_t xz, float ys,
                                int64_t yz) {
  requant::RescaleParams p;
  EXPECT_TRUE(requant::MakeRescaleParams(xs, static_cast<int32_t>(xz), ys, static_cast<int32_t>(yz), requant::Range(),
                                         &p)
                  .ok());
  const double e = std::round(static_cast<double>(c.extrapolation) / ys) + static_cast<double>(yz);
  const int8_t extrapolated = static_cast<int8_t>(std::min(127.0, std::max(-128.0, e)));
  const Shape out = ResizedShape(c);
  std::vector<int8_t> y(static_cast<size_t>(NumElements(out)));
  for (int64_t i = 0; i < NumElements(out); ++i) {
    int64_t rem = i, src = 0, stride = 1;
    bool outside = false;
    for (int a = static_cast<int>(out.size()) - 1; a >= 0; --a) {
      const int64_t s = NearestSource(c, a, out[a], rem % out[a]);
      rem /= out[a];
      if (s < 0) outside = true;
      src += s * stride;
      stride *= c.x[a];
    }
    y[i] = outside ? extrapolated : static_cast<int8_t>(requant::Rescale(x[src], p));
  }
  return y;
}

// X, roi, scales, sizes as opset >= 11 inputs (empty roi and scales when unused).
std::vector<TestTensor> Inputs(const ResizeCase& c, const TestTensor& x) {
  const int64_t r = static_cast<int64_t>(c.x.size());
  std::vector<TestTensor> in = {x, TestTensor::Const<float>({static_cast<int64_t>(c.roi.size())}, c.roi)};
  if (c.sizes.empty()) {
    in.push_back(TestTensor::Const<float>({r}, c.scales));
  } else {
    in.push_back(TestTensor::Const<float>({0}, {}));
    in.push_back(TestTensor::Const<int64_t>({r}, c.sizes));
  }
  return in;
}

Attributes ResizeAttrs(const ResizeCase& c) {
  Attributes a;
  a.SetString("mode", "nearest");
  a.SetString("coordinate_transformation_mode", c.coord);
  a.SetString("nearest_mode", c.nearest);
  if (c.extrapolation != 0.f) a.SetFloat("extrapolation_value", c.extrapolation);
  return a;
}

TEST(Int8ResizeTest, EveryCoordinateAndNearestModeMatchesNaive) {
  std::mt19937 gen(41);
  const std::vector<ResizeCase> geometries = {
      R({1, 2, 3, 4}, {1, 1, 2, 2}, {}),
      R({1, 2, 5, 7}, {1, 1, 0.5f, 0.6f}, {}),
      R({2, 3, 4, 5}, {1, 1, 1.7f, 2.5f}, {}),
      R({1, 2, 4, 6}, {}, {1, 2, 7, 5}),
      R({1, 1, 1, 5}, {}, {1, 1, 3, 9}),  // a length-1 axis
      R({3, 8}, {}, {5, 3}),              // 2-D, resizing every axis
  };
  for (const char* coord :
       {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"}) {
    for (const char* nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      for (ResizeCase c : geometries) {
        c.coord = coord;
        c.nearest = nearest;
        for (bool same : {true, false}) {
          const float xs = RandomScale(&gen), ys = same ? xs : RandomScale(&gen);
          const int64_t xz = RandomZeroPoint(&gen), yz = same ? xz : RandomZeroPoint(&gen);
          const TestTensor x = RandomQ(c.x, xs, xz, &gen);
          std::vector<int8_t> y;
          ASSERT_TRUE(RunInt8("Resize", ResizeAttrs(c), Inputs(c, x), ResizedShape(c), ys, yz, &y, 13).ok())
              << coord << " " << nearest << " " << ShapeToString(c.x);
          EXPECT_EQ(y, NaiveResize(c, x.As<int8_t>(), xs, xz, ys, yz))
              << coord << " " << nearest << " " << ShapeToString(c.x) << " same " << same;
        }
      }
    }
  }
}

TEST(Int8ResizeTest, CropAndResizeExtrapolatesTheQuantizedValue) {
  std::mt19937 gen(42);
  ResizeCase c = R({1, 2, 6, 5}, {}, {1, 2, 7, 8});
  c.coord = "tf_crop_and_resize";
  c.roi = {0, 0, -0.2f, 0.1f, 1, 1, 0.9f, 1.3f};
  c.extrapolation = 0.55f;
  for (bool same : {true, false}) {
    const float ys = same ? 0.1f : 0.07f;
    const int64_t yz = same ? -3 : 12;
    const TestTensor x = RandomQ(c.x, 0.1f, -3, &gen);
    std::vector<int8_t> y;
    ASSERT_TRUE(RunInt8("Resize", ResizeAttrs(c), Inputs(c, x), ResizedShape(c), ys, yz, &y, 13).ok());
    const std::vector<int8_t> expected = NaiveResize(c, x.As<int8_t>(), 0.1f, -3, ys, yz);
    EXPECT_EQ(y, expected);
    // Some elements are outside the crop: they hold round(0.55f / ys) + yz.
    const int8_t extrapolated = static_cast<int8_t>(std::round(static_cast<double>(0.55f) / ys) + yz);
    EXPECT_NE(std::count(expected.begin(), expected.end(), extrapolated), 0);
  }
}

TEST(Int8ResizeTest, Opset10AndLargeTensors) {
  std::mt19937 gen(43);
  // Opset 10: inputs X and scales, asymmetric coordinates, floor.
  ResizeCase c = R({1, 3, 5, 6}, {1, 1, 2, 1.5f}, {});
  c.coord = "asymmetric";
  c.nearest = "floor";
  const TestTensor x = RandomQ(c.x, 0.02f, 9, &gen);
  std::vector<int8_t> y;
  Attributes nearest;
  nearest.SetString("mode", "nearest");
  ASSERT_TRUE(RunInt8("Resize", nearest, {x, TestTensor::Const<float>({4}, c.scales)}, ResizedShape(c), 0.03f, -4, &y,
                      10)
                  .ok());
  EXPECT_EQ(y, NaiveResize(c, x.As<int8_t>(), 0.02f, 9, 0.03f, -4));
  // A large 2x upsampling split across threads.
  ResizeCase big = R({1, 16, 64, 64}, {1, 1, 2, 2}, {});
  const TestTensor bx = RandomQ(big.x, 0.05f, 0, &gen);
  for (float ys : {0.05f, 0.04f}) {
    ASSERT_TRUE(RunInt8("Resize", ResizeAttrs(big), Inputs(big, bx), ResizedShape(big), ys, 0, &y, 13, 3).ok());
    EXPECT_EQ(y, NaiveResize(big, bx.As<int8_t>(), 0.05f, 0, ys, 0));
  }
}

TEST(Int8ResizeTest, Refusals) {
  ResizeCase c = R({1, 1, 2, 2}, {1, 1, 2, 2}, {});
  const TestTensor x = Q(c.x, {1, 2, 3, 4}, 0.1f, 0);
  std::vector<int8_t> y;
  Attributes linear = ResizeAttrs(c);
  linear.SetString("mode", "linear");
  EXPECT_EQ(RunInt8("Resize", linear, Inputs(c, x), {1, 1, 4, 4}, 0.1f, 0, &y, 13).code(), StatusCode::kUnsupported);
  // float X
  const TestTensor fx = TestTensor::Of<float>(c.x, {1, 2, 3, 4});
  std::vector<TestTensor> fouts = {TestTensor::Empty(DType::kFloat32, {1, 1, 4, 4})};
  EXPECT_EQ(RunKernel("Resize", ResizeAttrs(c), Inputs(c, fx), &fouts, Int8Kernel("Resize", 13)).code(),
            StatusCode::kUnsupported);
  // per-channel X
  EXPECT_EQ(RunInt8("Resize", ResizeAttrs(c), Inputs(c, x.WithQuant({0.1f, 0.2f}, {0, 0}, 2)), {1, 1, 4, 4}, 0.1f, 0,
                    &y, 13)
                .code(),
            StatusCode::kUnsupported);
  // scales that are not constant
  std::vector<TestTensor> inputs = Inputs(c, x);
  inputs[2].constant = false;
  EXPECT_EQ(RunInt8("Resize", ResizeAttrs(c), inputs, {1, 1, 4, 4}, 0.1f, 0, &y, 13).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace int8
}  // namespace loom
