// The int8 Conv's Winograd path (conv_winograd_s8.h) against its GEMM path,
// bit for bit: random 3x3 stride-1 Convs (odd and even planes, pads 0 and 1,
// asymmetric pads, channel counts off every block, zero points, fused
// clamps), extreme operands over the most channels, 1 and 2 threads,
// every GEMM implementation (the Winograd GEMMs follow it: portable or AVX2).
// The GEMM path itself is checked against a naive convolution in conv_test.cc.
#include "kernels/cpu/int8/conv_winograd_s8.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using linear_test::Clamp;
using linear_test::LinearQuant;
using testing::RunKernel;
using testing::TestTensor;

struct WinoCase {
  int64_t n, cin, h, w, cout;
  int64_t pads[4];  // top, left, bottom, right
};

// The Conv's output with the Winograd path forced on or off.
std::vector<int8_t> RunConv(const WinoCase& c, const LinearQuant& q, const std::vector<int8_t>& x,
                            const std::vector<int8_t>& w, const std::vector<int32_t>& bias, WinogradS8Mode mode,
                            int threads) {
  SetWinogradS8Mode(mode);
  Attributes a;
  a.SetInts("pads", {c.pads[0], c.pads[1], c.pads[2], c.pads[3]});
  a.SetInts("strides", {1, 1});
  const std::vector<int64_t> w_zero(q.w_scales.size(), 0);
  const std::vector<TestTensor> inputs = {
      TestTensor::Of<int8_t>({c.n, c.cin, c.h, c.w}, x).WithQuant({q.x_scale}, {q.x_zero_point}),
      TestTensor::Const<int8_t>({c.cout, c.cin, 3, 3}, w).WithQuant(q.w_scales, w_zero, 0),
      TestTensor::Const<int32_t>({c.cout}, bias)};
  const int64_t oh = c.h + c.pads[0] + c.pads[2] - 2, ow = c.w + c.pads[1] + c.pads[3] - 2;
  std::vector<TestTensor> outs = {
      TestTensor::Empty(DType::kInt8, {c.n, c.cout, oh, ow}).WithQuant({q.y_scale}, {q.y_zero_point})};
  const Status st =
      RunKernel("Conv", linear_test::WithClamp(a, q.clamp), inputs, &outs, linear_test::Int8Options("Conv", threads));
  SetWinogradS8Mode(WinogradS8Mode::kAuto);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return outs[0].As<int8_t>();
}

void ExpectSame(const WinoCase& c, const LinearQuant& q, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                const std::vector<int32_t>& bias) {
  SCOPED_TRACE(::testing::Message() << "n=" << c.n << " cin=" << c.cin << " " << c.h << "x" << c.w << " cout=" << c.cout
                                    << " pads=" << c.pads[0] << c.pads[1] << c.pads[2] << c.pads[3]
                                    << " x_zp=" << q.x_zero_point << " clamp=" << q.clamp.kind);
  linear_test::ForEachGemmImpl([&] {
    const auto want = RunConv(c, q, x, w, bias, WinogradS8Mode::kOff, 1);
    for (int threads : {1, 2}) {
      const auto got = RunConv(c, q, x, w, bias, WinogradS8Mode::kOn, threads);
      const int64_t diff = linear_test::FirstDifference(got, want);
      ASSERT_EQ(diff, -1) << "threads=" << threads << " at " << diff << ": got " << int{got[diff]} << " want "
                          << int{want[diff]};
    }
  });
}

TEST(Int8WinogradTest, MatchesGemmPathOnRandomShapes) {
  std::mt19937 gen(7);
  // The last two have several tile blocks (with the 256 KiB V budget), the
  // last one shorter: 49 tiles in blocks of 32 (the last 17, computed as 24);
  // 36 in blocks of 16 (the last 4, computed as 8).
  const WinoCase cases[] = {
      {1, 3, 9, 11, 8, {1, 1, 1, 1}},     {2, 5, 10, 7, 6, {0, 0, 0, 0}},  {1, 17, 13, 12, 9, {1, 1, 1, 1}},
      {1, 40, 6, 7, 70, {1, 1, 1, 1}},    {1, 1, 5, 5, 1, {1, 0, 0, 1}},   {1, 33, 15, 17, 21, {0, 1, 1, 0}},
      {1, 64, 9, 9, 64, {1, 1, 1, 1}},    {1, 16, 3, 3, 16, {0, 0, 0, 0}}, {2, 24, 20, 19, 40, {1, 1, 1, 1}},
      {1, 130, 7, 7, 132, {1, 1, 1, 1}},  {1, 8, 30, 31, 5, {1, 1, 1, 1}}, {1, 180, 14, 14, 40, {1, 1, 1, 1}},
      {1, 260, 12, 12, 20, {1, 1, 1, 1}},
  };
  Clamp relu;
  relu.kind = Clamp::kRelu;
  int i = 0;
  for (const WinoCase& c : cases) {
    const int64_t depth = c.cin * 9;
    const LinearQuant q = linear_test::RandomLinearQuant(c.cout, depth, i % 2 == 0, i % 3 == 2 ? relu : Clamp(), &gen);
    const auto x = linear_test::RandomInt8(c.n * c.cin * c.h * c.w, &gen);
    const auto w = linear_test::RandomInt8(c.cout * depth, &gen);
    const auto bias = linear_test::RandomBias(c.cout, depth, &gen);
    ExpectSame(c, q, x, w, bias);
    ++i;
  }
}

TEST(Int8WinogradTest, ZeroPointZeroAndClip) {
  std::mt19937 gen(11);
  const WinoCase c = {1, 20, 11, 9, 18, {1, 1, 1, 1}};
  Clamp clip;
  clip.kind = Clamp::kClip;
  clip.lo = -0.5f;
  clip.hi = 2.f;
  LinearQuant q = linear_test::RandomLinearQuant(c.cout, c.cin * 9, true, clip, &gen);
  q.x_zero_point = 0;
  ExpectSame(c, q, linear_test::RandomInt8(c.cin * c.h * c.w, &gen), linear_test::RandomInt8(c.cout * c.cin * 9, &gen),
             linear_test::RandomBias(c.cout, c.cin * 9, &gen));
}

// Every activation and weight at an end of the int8 range over the most
// channels the path takes: the largest transforms (|U| = 1152, |V| = 512)
// and GEMM sums (Σ_c U · V up to 3600 · 1152 · 512, near 2^31). The output
// scale spans those accumulators, so the outputs do not all saturate.
TEST(Int8WinogradTest, ExtremeValuesOverTheMostChannels) {
  std::mt19937 gen(13);
  const WinoCase c = {1, kWinogradS8MaxChannels, 4, 5, 6, {1, 1, 1, 1}};
  const int64_t depth = c.cin * 9;
  for (int pattern = 0; pattern < 4; ++pattern) {
    LinearQuant q = linear_test::RandomLinearQuant(c.cout, depth, true, Clamp(), &gen);
    q.y_scale = q.x_scale * q.w_scales[0] * static_cast<float>(depth) * 16384.f / 100.f;
    q.x_zero_point = pattern % 2 == 0 ? -128 : 127;
    std::vector<int8_t> x(static_cast<size_t>(c.cin * c.h * c.w), static_cast<int8_t>(pattern < 2 ? -128 : 127));
    std::vector<int8_t> w(static_cast<size_t>(c.cout * depth));
    for (size_t k = 0; k < w.size(); ++k) {
      const int64_t m = static_cast<int64_t>(k) / depth;
      w[k] = static_cast<int8_t>(m == 0 ? -128 : m == 1 ? 127 : m == 2 ? -127 : (k % 3 == 0 ? 127 : -128));
    }
    const std::vector<int32_t> bias(static_cast<size_t>(c.cout), 0);
    ExpectSame(c, q, x, w, bias);
  }
}

}  // namespace
}  // namespace int8
}  // namespace loom
