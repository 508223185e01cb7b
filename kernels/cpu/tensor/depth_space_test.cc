#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace loom {
namespace {

using namespace tensor_test;  // NOLINT

// Direct index formulas from the ONNX operator definitions.
std::vector<int32_t> RefDepthToSpace(const std::vector<int32_t>& x, const Shape& s, int64_t b, bool dcr) {
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3], c2 = c / (b * b);
  std::vector<int32_t> y(x.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t oc = 0; oc < c2; ++oc)
      for (int64_t oh = 0; oh < h * b; ++oh)
        for (int64_t ow = 0; ow < w * b; ++ow) {
          const int64_t bh = oh % b, bw = ow % b;
          const int64_t ic = dcr ? (bh * b + bw) * c2 + oc : oc * b * b + bh * b + bw;
          y[static_cast<size_t>(((in * c2 + oc) * h * b + oh) * w * b + ow)] =
              x[static_cast<size_t>(((in * c + ic) * h + oh / b) * w + ow / b)];
        }
  return y;
}

std::vector<int32_t> RefSpaceToDepth(const std::vector<int32_t>& x, const Shape& s, int64_t b) {
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  std::vector<int32_t> y(x.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw) {
          const int64_t oc = ((ih % b) * b + iw % b) * c + ic;
          y[static_cast<size_t>(((in * c * b * b + oc) * (h / b) + ih / b) * (w / b) + iw / b)] =
              x[static_cast<size_t>(((in * c + ic) * h + ih) * w + iw)];
        }
  return y;
}

TEST(DepthToSpaceTest, BothModesAndRoundTrip) {
  const Shape s = {2, 12, 3, 5};
  const auto x = Iota<int32_t>(NumElements(s));
  for (int64_t b : {1, 2}) {
    const Shape out = {2, 12 / (b * b), 3 * b, 5 * b};
    for (const char* mode : {"DCR", "CRD"}) {
      Attributes a;
      a.SetInt("blocksize", b);
      a.SetString("mode", mode);
      TestTensor y;
      ASSERT_TRUE(Run1("DepthToSpace", a, {TestTensor::Of<int32_t>(s, x)}, DType::kInt32, out, &y, Opset(13, 2)).ok());
      EXPECT_EQ(y.As<int32_t>(), RefDepthToSpace(x, s, b, std::string(mode) == "DCR")) << mode << b;
    }
    // SpaceToDepth inverts DepthToSpace in DCR mode.
    Attributes a;
    a.SetInt("blocksize", b);
    TestTensor y, z;
    ASSERT_TRUE(Run1("DepthToSpace", a, {TestTensor::Of<int32_t>(s, x)}, DType::kInt32, out, &y).ok());
    ASSERT_TRUE(Run1("SpaceToDepth", a, {y}, DType::kInt32, s, &z).ok());
    EXPECT_EQ(z.As<int32_t>(), x);
  }
}

TEST(SpaceToDepthTest, MatchesReference) {
  const Shape s = {1, 3, 6, 4};
  const auto x = Iota<int32_t>(NumElements(s));
  Attributes a;
  a.SetInt("blocksize", 2);
  TestTensor y;
  ASSERT_TRUE(Run1("SpaceToDepth", a, {TestTensor::Of<int32_t>(s, x)}, DType::kInt32, {1, 12, 3, 2}, &y).ok());
  EXPECT_EQ(y.As<int32_t>(), RefSpaceToDepth(x, s, 2));
}

TEST(DepthToSpaceTest, BadSetups) {
  auto x = TestTensor::Of<float>({1, 8, 2, 2}, Iota<float>(32));
  TestTensor y;
  Attributes a;
  a.SetInt("blocksize", 3);
  EXPECT_FALSE(Run1("DepthToSpace", a, {x}, DType::kFloat32, {1, 1, 6, 6}, &y).ok());
  EXPECT_FALSE(Run1("SpaceToDepth", a, {x}, DType::kFloat32, {1, 72, 0, 0}, &y).ok());
  a.SetInt("blocksize", 0);
  EXPECT_FALSE(Run1("DepthToSpace", a, {x}, DType::kFloat32, {1, 8, 2, 2}, &y).ok());
  EXPECT_FALSE(Run1("DepthToSpace", Attrs(), {x}, DType::kFloat32, {1, 8, 2, 2}, &y).ok());  // blocksize required
  a.SetInt("blocksize", 2);
  a.SetString("mode", "XYZ");
  EXPECT_FALSE(Run1("DepthToSpace", a, {x}, DType::kFloat32, {1, 2, 4, 4}, &y).ok());
  a.SetString("mode", "CRD");
  EXPECT_FALSE(
      Run1("DepthToSpace", a, {TestTensor::Of<float>({8, 2, 2}, Iota<float>(32))}, DType::kFloat32, {2, 4, 4}, &y)
          .ok());
  EXPECT_FALSE(Run1("DepthToSpace", a, {x}, DType::kFloat32, {1, 2, 4, 5}, &y).ok());
}

}  // namespace
}  // namespace loom
