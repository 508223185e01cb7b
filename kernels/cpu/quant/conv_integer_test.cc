#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/quant/quant_test_util.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace quant {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

enum class ZeroPoint { kAbsent, kScalar, kOne, kPerChannel };

void CheckConv(const ConvCase& c, DType xt, DType wt, bool x_zp_present, ZeroPoint wzp, bool const_w, int threads,
               uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "x=" << ShapeToString(c.x) << " m=" << c.out_channels
                                    << " group=" << c.group << " auto_pad=" << c.auto_pad << " " << DTypeName(xt)
                                    << "x" << DTypeName(wt) << " x_zp=" << x_zp_present
                                    << " w_zp=" << static_cast<int>(wzp) << " const_w=" << const_w
                                    << " threads=" << threads);
  std::mt19937 gen(seed);
  Shape w_shape = {c.out_channels, c.x[1] / c.group};
  for (int64_t k : c.kernel) w_shape.push_back(k);
  const auto x = Random8(xt, NumElements(c.x), &gen), w = Random8(wt, NumElements(w_shape), &gen);
  std::vector<int32_t> x_zp, w_zp;
  if (x_zp_present) x_zp = Random8(xt, 1, &gen);
  if (wzp != ZeroPoint::kAbsent) w_zp = Random8(wt, wzp == ZeroPoint::kPerChannel ? c.out_channels : 1, &gen);
  Shape out_shape;
  const auto ref = ReferenceConv(c, x, w, x_zp_present ? x_zp[0] : 0, w_zp, &out_shape);
  std::vector<TestTensor> in = {Make8(xt, c.x, x), Make8(wt, w_shape, w, const_w)};
  if (x_zp_present || wzp != ZeroPoint::kAbsent)
    in.push_back(x_zp_present ? Make8(xt, seed % 2 ? Shape{} : Shape{1}, x_zp) : TestTensor::Absent());
  if (wzp != ZeroPoint::kAbsent) {
    const Shape s = wzp == ZeroPoint::kScalar ? Shape{} : wzp == ZeroPoint::kOne ? Shape{1} : Shape{c.out_channels};
    in.push_back(Make8(wt, s, w_zp, const_w));
  }
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt32, out_shape)};
  RunOptions opt;
  opt.threads = threads;
  const Status st = RunKernel("ConvInteger", ConvAttrs(c), in, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out[0].As<int32_t>(), ref);
}

std::vector<ConvCase> Cases() {
  return {
      // 2-D: padding, strides, dilations, asymmetric pads.
      {{1, 3, 9, 11}, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{2, 5, 10, 7}, 6, {3, 2}, {2, 1}, {1, 2}, {0, 2, 1, 0}},
      {{1, 4, 13, 13}, 5, {5, 5}, {2, 3}, {1, 1}, {2, 1, 0, 2}},
      // pointwise, and 1x1 with stride 2
      {{2, 16, 5, 6}, 12, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      {{1, 8, 9, 9}, 4, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      // groups, depthwise (with multiplier)
      {{1, 6, 8, 8}, 9, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 3},
      {{2, 4, 9, 10}, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 4},
      {{1, 3, 11, 9}, 6, {3, 5}, {2, 2}, {2, 1}, {1, 0, 3, 2}, 3},
      // auto_pad
      {{1, 2, 7, 8}, 3, {3, 4}, {2, 3}, {1, 1}, {}, 1, "SAME_UPPER"},
      {{1, 2, 7, 8}, 3, {4, 3}, {2, 2}, {1, 2}, {}, 1, "SAME_LOWER"},
      {{1, 2, 7, 8}, 4, {3, 3}, {2, 1}, {1, 1}, {}, 2, "VALID"},
      // 1-D and 3-D
      {{2, 3, 20}, 5, {4}, {2}, {2}, {3, 1}},
      {{1, 4, 17}, 4, {3}, {1}, {1}, {1, 1}, 4},
      {{1, 2, 5, 6, 7}, 3, {2, 3, 3}, {1, 2, 1}, {2, 1, 1}, {1, 0, 1, 0, 1, 1}},
      {{1, 4, 4, 5, 6}, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {}, 2, "SAME_UPPER"},
      // many output positions (several tiles) and a long reduction
      {{1, 3, 30, 40}, 5, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 64, 6, 6}, 3, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
  };
}

TEST(ConvInteger, MatchesReference) {
  const DType types[] = {DType::kUInt8, DType::kInt8};
  uint32_t seed = 1;
  for (const ConvCase& c : Cases())
    for (DType xt : types)
      for (DType wt : types)
        for (bool x_zp : {false, true})
          for (ZeroPoint wzp : {ZeroPoint::kAbsent, ZeroPoint::kScalar, ZeroPoint::kOne, ZeroPoint::kPerChannel})
            for (bool const_w : {false, true}) CheckConv(c, xt, wt, x_zp, wzp, const_w, const_w ? 2 : 1, seed++);
}

TEST(ConvInteger, RandomShapes) {
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> small(1, 3), pick(0, 3), in_dim(1, 9);
  const char* modes[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  for (int i = 0; i < 80; ++i) {
    ConvCase c;
    const int r = small(gen);
    c.group = small(gen);
    c.x = {small(gen), c.group * small(gen)};
    c.out_channels = c.group * small(gen);
    c.auto_pad = modes[pick(gen)];
    for (int d = 0; d < r; ++d) {
      c.kernel.push_back(small(gen));
      c.strides.push_back(small(gen));
      c.dilations.push_back(small(gen));
    }
    for (int d = 0; d < 2 * r; ++d) c.pads.push_back(pick(gen) % 3);
    for (int d = 0; d < r; ++d) {
      const int64_t ext = (c.kernel[d] - 1) * c.dilations[d] + 1;
      c.x.push_back(std::max<int64_t>(ext, in_dim(gen)));  // every mode has an output
    }
    const DType xt = pick(gen) % 2 ? DType::kInt8 : DType::kUInt8, wt = pick(gen) % 2 ? DType::kInt8 : DType::kUInt8;
    CheckConv(c, xt, wt, pick(gen) % 2, static_cast<ZeroPoint>(pick(gen)), pick(gen) % 2, 1 + pick(gen) % 2,
              1000 + i);
  }
}

// Padding counts as x_zero_point: with w all ones, a padded 3x3 window sums
// only its inside taps of (x - x_zp).
TEST(ConvInteger, PaddingIsTheZeroPoint) {
  const auto x = TestTensor::Of<uint8_t>({1, 1, 2, 2}, {10, 11, 12, 13});
  const auto w = TestTensor::Of<uint8_t>({1, 1, 3, 3}, std::vector<uint8_t>(9, 1));
  Attributes attrs;
  attrs.SetInts("pads", {1, 1, 1, 1});
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kInt32, {1, 1, 2, 2})};
  const Status st = RunKernel("ConvInteger", attrs, {x, w, TestTensor::Of<uint8_t>({}, {10})}, &out);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out[0].As<int32_t>(), (std::vector<int32_t>{6, 6, 6, 6}));
}

Status RunConv(const std::vector<TestTensor>& in, DType out_dtype = DType::kInt32, Shape out_shape = {1, 2, 2, 2}) {
  std::vector<TestTensor> out = {TestTensor::Empty(out_dtype, std::move(out_shape))};
  return RunKernel("ConvInteger", {}, in, &out);
}

TEST(ConvInteger, RejectsBadNodes) {
  const auto x = TestTensor::Of<uint8_t>({1, 1, 3, 3}, std::vector<uint8_t>(9, 1));
  const auto w = TestTensor::Of<int8_t>({2, 1, 2, 2}, std::vector<int8_t>(8, 1));
  ASSERT_TRUE(RunConv({x, w}).ok());
  // Operand dtypes.
  Status st = RunConv({TestTensor::Of<float>({1, 1, 3, 3}, std::vector<float>(9)), w});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("x has dtype float32"), std::string::npos) << st.message();
  st = RunConv({x, TestTensor::Of<int16_t>({2, 1, 2, 2}, std::vector<int16_t>(8))});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Output dtype.
  st = RunConv({x, w}, DType::kFloat32);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Zero-point dtypes must match their tensors.
  st = RunConv({x, w, TestTensor::Of<int8_t>({}, {1})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("x_zero_point has dtype int8"), std::string::npos) << st.message();
  st = RunConv({x, w, TestTensor::Absent(), TestTensor::Of<uint8_t>({}, {1})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Zero-point shapes: x_zero_point a scalar, w_zero_point scalar or [M] = [2].
  st = RunConv({x, w, TestTensor::Of<uint8_t>({2}, {1, 2})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("x_zero_point has shape"), std::string::npos) << st.message();
  st = RunConv({x, w, TestTensor::Absent(), TestTensor::Of<int8_t>({3}, {1, 2, 3})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("w_zero_point has shape"), std::string::npos) << st.message();
  st = RunConv({x, w, TestTensor::Absent(), TestTensor::Of<int8_t>({2, 1}, {1, 2})});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // Channels per group.
  st = RunConv({x, TestTensor::Of<int8_t>({2, 2, 2, 2}, std::vector<int8_t>(16, 1))});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
}

}  // namespace
}  // namespace quant
}  // namespace loom
