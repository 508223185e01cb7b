#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/float16.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace nn {
namespace {

using testing::InferShapes;
using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// N-linear half_pixel reference: x_orig = (o + 0.5) / scale - 0.5, the two
// neighbours clamped to the input.
std::vector<double> RefLinearHalfPixel(const Shape& in, const std::vector<float>& x, const std::vector<float>& scales,
                                       Shape* out) {
  const size_t r = in.size();
  out->clear();
  for (size_t a = 0; a < r; ++a) out->push_back(static_cast<int64_t>(std::floor(in[a] * scales[a])));
  const int64_t n = NumElements(*out);
  std::vector<double> y(n);
  for (int64_t e = 0; e < n; ++e) {
    std::vector<int64_t> o(r);
    int64_t rem = e;
    for (size_t a = r; a-- > 0;) {
      o[a] = rem % (*out)[a];
      rem /= (*out)[a];
    }
    double acc = 0;
    for (int corner = 0; corner < (1 << r); ++corner) {
      double w = 1;
      int64_t off = 0;
      for (size_t a = 0; a < r; ++a) {
        const double xo = (o[a] + 0.5) / scales[a] - 0.5;
        const double f = std::floor(xo), t = xo - f;
        const int64_t idx = static_cast<int64_t>(f) + ((corner >> a) & 1);
        w *= ((corner >> a) & 1) ? t : 1 - t;
        off = off * in[a] + std::min<int64_t>(std::max<int64_t>(idx, 0), in[a] - 1);
      }
      acc += w * x[off];
    }
    y[e] = acc;
  }
  return y;
}

TEST(Resize, LinearHalfPixelAnyRank) {
  struct C {
    Shape in;
    std::vector<float> scales;
  };
  for (const C& c : {C{{7}, {2.5f}}, C{{1, 2, 5, 6}, {1, 1, 1.5f, 0.5f}}, C{{2, 3, 4, 5, 3}, {1, 1, 0.75f, 2, 1.4f}},
                     C{{3, 4, 5}, {2, 0.5f, 3}}}) {
    const auto x = Random(NumElements(c.in), 1);
    Shape out_shape;
    const auto ref = RefLinearHalfPixel(c.in, x, c.scales, &out_shape);
    Attributes a;
    a.SetString("mode", "linear");
    for (bool constant : {false, true}) {
      std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
      RunOptions opt;
      opt.opset = 13;
      opt.threads = constant ? 2 : 1;
      Status st = RunKernel("Resize", a,
                            {TestTensor::Of<float>(c.in, x), TestTensor::Absent(),
                             TestTensor::Of<float>({static_cast<int64_t>(c.in.size())}, c.scales, constant)},
                            &out, opt);
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto got = out[0].As<float>();
      ASSERT_EQ(got.size(), ref.size());
      for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-5) << ShapeToString(c.in) << " at " << i;
    }
  }
}

TEST(Resize, NearestCopiesAnyDtype) {
  // asymmetric + floor: out[i] = in[floor(i / 2)].
  Attributes a;
  a.SetString("coordinate_transformation_mode", "asymmetric");
  a.SetString("nearest_mode", "floor");
  RunOptions opt;
  opt.opset = 13;
  const auto sizes = TestTensor::Const<int64_t>({2}, {2, 6});
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt8, {2, 6})};
  ASSERT_TRUE(RunKernel("Resize", a,
                        {TestTensor::Of<int8_t>({1, 3}, {-1, 2, -3}), TestTensor::Absent(), TestTensor::Absent(), sizes},
                        &out, opt)
                  .ok());
  EXPECT_EQ(out[0].As<int8_t>(), (std::vector<int8_t>{-1, -1, 2, 2, -3, -3, -1, -1, 2, 2, -3, -3}));
  TestTensor h = TestTensor::Of<uint16_t>({1, 3}, {FloatToHalf(1.5f), FloatToHalf(-2.f), FloatToHalf(4.f)});
  h.dtype = DType::kFloat16;
  out = {TestTensor::Empty(DType::kFloat16, {2, 6})};
  ASSERT_TRUE(RunKernel("Resize", a, {h, TestTensor::Absent(), TestTensor::Absent(), sizes}, &out, opt).ok());
  EXPECT_EQ(HalfToFloat(out[0].As<uint16_t>()[7]), 1.5f);
  EXPECT_EQ(HalfToFloat(out[0].As<uint16_t>()[11]), 4.f);
  out = {TestTensor::Empty(DType::kInt64, {2, 6})};
  ASSERT_TRUE(RunKernel("Resize", a,
                        {TestTensor::Of<int64_t>({1, 3}, {7, 8, 9}), TestTensor::Absent(), TestTensor::Absent(), sizes},
                        &out, opt)
                  .ok());
  EXPECT_EQ(out[0].As<int64_t>()[5], 9);
}

TEST(Resize, NearestModesAndCoordinates) {
  // 1-D, 4 -> 3 (scale 0.75): half_pixel x_orig = (o + 0.5) / 0.75 - 0.5 = 0.1667, 1.5, 2.8333.
  const auto x = TestTensor::Of<float>({4}, {10, 20, 30, 40});
  const auto scales = TestTensor::Const<float>({1}, {0.75f});
  auto run = [&](const char* nearest, const char* coord) {
    Attributes a;
    a.SetString("nearest_mode", nearest);
    a.SetString("coordinate_transformation_mode", coord);
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {3})};
    RunOptions opt;
    opt.opset = 13;
    EXPECT_TRUE(RunKernel("Resize", a, {x, TestTensor::Absent(), scales}, &out, opt).ok());
    return out[0].As<float>();
  };
  EXPECT_EQ(run("round_prefer_floor", "half_pixel"), (std::vector<float>{10, 20, 40}));
  EXPECT_EQ(run("round_prefer_ceil", "half_pixel"), (std::vector<float>{10, 30, 40}));
  EXPECT_EQ(run("floor", "half_pixel"), (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(run("ceil", "half_pixel"), (std::vector<float>{20, 30, 40}));
  // align_corners: x_orig = o * 3 / (3 - 1) = 0, 1.5, 3.
  EXPECT_EQ(run("round_prefer_floor", "align_corners"), (std::vector<float>{10, 20, 40}));
  // asymmetric: x_orig = o / 0.75 = 0, 1.33, 2.67.
  EXPECT_EQ(run("round_prefer_floor", "asymmetric"), (std::vector<float>{10, 20, 40}));
}

TEST(Resize, CubicAndCropExtrapolation) {
  // Cubic with a = -0.5 at x_orig exactly between samples uses weights
  // (-1/16, 9/16, 9/16, -1/16); asymmetric 2x upsampling hits x = 0.5 at o = 1.
  Attributes a;
  a.SetString("mode", "cubic");
  a.SetFloat("cubic_coeff_a", -0.5f);
  a.SetString("coordinate_transformation_mode", "asymmetric");
  RunOptions opt;
  opt.opset = 13;
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat64, {8})};
  const std::vector<double> x = {1, 4, 2, 8};
  ASSERT_TRUE(RunKernel("Resize", a,
                        {TestTensor::Of<double>({4}, x), TestTensor::Absent(), TestTensor::Const<float>({1}, {2.f})},
                        &out, opt)
                  .ok());
  const auto got = out[0].As<double>();
  EXPECT_NEAR(got[0], 1, 1e-12);
  EXPECT_NEAR(got[3], -1.0 / 16 * 1 + 9.0 / 16 * 4 + 9.0 / 16 * 2 - 1.0 / 16 * 8, 1e-12);  // x = 1.5
  // Edge replication: x = 0.5 reads x[-1] = x[0].
  EXPECT_NEAR(got[1], -1.0 / 16 * 1 + 9.0 / 16 * 1 + 9.0 / 16 * 4 - 1.0 / 16 * 2, 1e-12);

  // tf_crop_and_resize: roi [0.5, 1.5] on a 1-D of 3: x_orig = 1 + o * 2 / 3 (o < 4),
  // beyond 2 extrapolates.
  Attributes c;
  c.SetString("mode", "linear");
  c.SetString("coordinate_transformation_mode", "tf_crop_and_resize");
  c.SetFloat("extrapolation_value", -7.f);
  out = {TestTensor::Empty(DType::kFloat32, {4})};
  ASSERT_TRUE(RunKernel("Resize", c,
                        {TestTensor::Of<float>({3}, {0, 10, 20}), TestTensor::Of<float>({2}, {0.5f, 1.5f}),
                         TestTensor::Absent(), TestTensor::Const<int64_t>({1}, {4})},
                        &out, opt)
                  .ok());
  const auto crop = out[0].As<float>();
  EXPECT_NEAR(crop[0], 10, 1e-5);
  EXPECT_NEAR(crop[1], 16.6667, 1e-3);
  EXPECT_EQ(crop[2], -7.f);
  EXPECT_EQ(crop[3], -7.f);
}

TEST(Upsample, AttributeAndInputScales) {
  const auto x = TestTensor::Of<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  Attributes a;
  a.SetFloats("scales", {1, 1, 2, 2});
  RunOptions opt7;
  opt7.opset = 7;
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 1, 4, 4})};
  ASSERT_TRUE(RunKernel("Upsample", a, {x}, &out, opt7).ok());
  EXPECT_EQ(out[0].As<float>(), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  // Opset 9, linear (asymmetric): row 0 = 1, 1.5, 2, 2.
  Attributes lin;
  lin.SetString("mode", "linear");
  RunOptions opt9;
  opt9.opset = 9;
  out = {TestTensor::Empty(DType::kFloat32, {1, 1, 4, 4})};
  ASSERT_TRUE(RunKernel("Upsample", lin, {x, TestTensor::Of<float>({4}, {1, 1, 2, 2})}, &out, opt9).ok());
  const auto got = out[0].As<float>();
  EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 8), (std::vector<float>{1, 1.5f, 2, 2, 2, 2.5f, 3, 3}));
}

TEST(Resize, RuntimeScalesAreChecked) {
  const auto x = TestTensor::Of<float>({1, 4}, {1, 2, 3, 4});
  RunOptions opt;
  opt.opset = 13;
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 2})};
  EXPECT_TRUE(RunKernel("Resize", {}, {x, TestTensor::Absent(), TestTensor::Of<float>({2}, {1, 0.5f})}, &out, opt).ok());
  Status st = RunKernel("Resize", {}, {x, TestTensor::Absent(), TestTensor::Of<float>({2}, {1, 0.75f})}, &out, opt);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  st = RunKernel("Resize", {}, {x, TestTensor::Absent(), TestTensor::Absent(), TestTensor::Of<int64_t>({2}, {1, 3})},
                 &out, opt);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  // Constant scales that disagree with the output are refused in Prepare.
  EXPECT_FALSE(
      RunKernel("Resize", {}, {x, TestTensor::Absent(), TestTensor::Const<float>({2}, {1, 0.75f})}, &out, opt).ok());
}

TEST(Resize, RejectsBadSetups) {
  const auto x = TestTensor::Of<float>({1, 4}, {1, 2, 3, 4});
  const auto scales = TestTensor::Const<float>({2}, {1, 2});
  const auto sizes = TestTensor::Const<int64_t>({2}, {1, 8});
  RunOptions opt;
  opt.opset = 13;
  auto run = [&](const Attributes& a, std::vector<TestTensor> in) {
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, 8})};
    return RunKernel("Resize", a, in, &out, opt);
  };
  EXPECT_TRUE(run({}, {x, TestTensor::Absent(), scales}).ok());
  EXPECT_TRUE(run({}, {x, TestTensor::Absent(), TestTensor::Const<float>({0}, {}), sizes}).ok());
  EXPECT_FALSE(run({}, {x, TestTensor::Absent(), scales, sizes}).ok());       // both
  EXPECT_FALSE(run({}, {x}).ok());                                             // neither
  EXPECT_FALSE(run({}, {x, TestTensor::Absent(), TestTensor::Const<float>({1}, {2})}).ok());
  EXPECT_FALSE(run({}, {x, TestTensor::Absent(), TestTensor::Const<float>({2}, {1, -2})}).ok());
  Attributes bad;
  bad.SetString("mode", "area");
  EXPECT_FALSE(run(bad, {x, TestTensor::Absent(), scales}).ok());
  bad = {};
  bad.SetString("coordinate_transformation_mode", "center");
  EXPECT_FALSE(run(bad, {x, TestTensor::Absent(), scales}).ok());
  bad = {};
  bad.SetInt("antialias", 1);
  EXPECT_EQ(run(bad, {x, TestTensor::Absent(), scales}).code(), StatusCode::kUnsupported);
  bad = {};
  bad.SetString("mode", "linear");
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt32, {1, 8})};
  EXPECT_EQ(RunKernel("Resize", bad, {TestTensor::Of<int32_t>({1, 4}, {1, 2, 3, 4}), TestTensor::Absent(), scales}, &out,
                      opt)
                .code(),
            StatusCode::kUnsupported);
}

TEST(Resize, InferOutputShapes) {
  RunOptions opt;
  opt.opset = 13;
  std::vector<Shape> shapes;
  ASSERT_TRUE(InferShapes("Resize", {},
                          {TestTensor::Of<float>({1, 3, 5, 5}, std::vector<float>(75)), TestTensor::Absent(),
                           TestTensor::Const<float>({4}, {1, 1, 1.5f, 0.6f})},
                          {DType::kFloat32}, &shapes, opt)
                  .ok());
  EXPECT_EQ(shapes, (std::vector<Shape>{{1, 3, 7, 3}}));
  EXPECT_FALSE(InferShapes("Resize", {},
                           {TestTensor::Of<float>({1, 3, 5, 5}, std::vector<float>(75)), TestTensor::Absent(),
                            TestTensor::Of<float>({4}, {1, 1, 1.5f, 0.6f})},
                           {DType::kFloat32}, &shapes, opt)
                   .ok());
}

}  // namespace
}  // namespace nn
}  // namespace loom
