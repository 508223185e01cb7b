// The GEMM core against a naive int8 matrix product with the reference
// output stages, on every implementation: edge tiles, odd depths, per-row and
// per-column stages, extreme operands and biases (wrap and saturation), and
// the three packers giving the same panels.
#include "kernels/cpu/int8/gemm_s8.h"

#include <gtest/gtest.h>

#include <functional>
#include <iterator>
#include <random>
#include <vector>

#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using linear_test::ForEachGemmImpl;
using linear_test::RandomInt32;
using linear_test::RandomInt8;
using linear_test::Wrap;

struct Problem {
  int64_t m, k, n;
  bool per_row;
};

// Y = requantize(bias + A · B) in the plain way; A [m, k], B [k, n].
std::vector<int8_t> Naive(const Problem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                          const std::vector<int32_t>& bias, const std::vector<requant::OutputStage>& stages) {
  std::vector<int8_t> y(static_cast<size_t>(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      int64_t acc = 0;
      for (int64_t kk = 0; kk < p.k; ++kk) acc += int64_t{a[i * p.k + kk]} * b[kk * p.n + j];
      const size_t c = static_cast<size_t>(p.per_row ? i : j);
      y[i * p.n + j] = static_cast<int8_t>(requant::Requantize(Wrap(acc + bias[c]), stages[c]));
    }
  return y;
}

std::vector<requant::OutputStage> RandomStages(int64_t count, int64_t depth, std::mt19937* gen) {
  std::vector<requant::OutputStage> stages;
  for (int64_t c = 0; c < count; ++c) {
    linear_test::Clamp clamp;
    if (c % 3 == 1) clamp.kind = linear_test::Clamp::kRelu;
    const linear_test::LinearQuant q = linear_test::RandomLinearQuant(1, depth, false, clamp, gen);
    stages.push_back(q.Stage(0));
  }
  return stages;
}

// Runs the product through PackA / PackB and GemmS8 in blocks of `block_cols`.
std::vector<int8_t> RunCore(const Problem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                            const std::vector<int32_t>& bias, const std::vector<requant::OutputStage>& stages,
                            bool b_transposed) {
  std::vector<int16_t> pa(static_cast<size_t>(NumAPanels(p.m) * APanelSize(p.k)) + 1);
  std::vector<int16_t> pb(static_cast<size_t>(NumBPanels(p.n) * BPanelSize(p.k)) + 1);
  PackA(a.data(), p.k, p.m, p.k, pa.data());
  if (b_transposed) {
    std::vector<int8_t> bt(b.size());
    for (int64_t kk = 0; kk < p.k; ++kk)
      for (int64_t j = 0; j < p.n; ++j) bt[j * p.k + kk] = b[kk * p.n + j];
    PackB(bt.data(), p.k, true, p.k, p.n, pb.data());
  } else {
    PackB(b.data(), p.n, false, p.k, p.n, pb.data());
  }
  OutputSteps steps;
  steps.Build(stages);
  std::vector<int8_t> y(static_cast<size_t>(p.m * p.n), 0x5A);
  GemmS8Block blk;
  blk.a = pa.data();
  blk.b = pb.data();
  blk.rows = p.m;
  blk.cols = p.n;
  blk.kp = KPairs(p.k);
  blk.y = y.data();
  blk.ldy = p.n;
  blk.bias = bias.data();
  blk.steps = &steps;
  blk.per_row = p.per_row;
  GemmS8(blk);
  return y;
}

TEST(GemmS8Test, MatchesNaiveOnEveryImplementation) {
  const Problem problems[] = {
      {1, 1, 1, true},     {4, 2, 16, true},   {5, 3, 17, false},   {3, 7, 15, true},
      {8, 64, 32, false},  {13, 27, 45, true}, {9, 147, 33, false}, {64, 576, 50, true},
      {2, 1001, 3, false}, {31, 0, 18, true},  {17, 130, 1, false}, {1, 512, 100, false},
      // Every combination of full and partial 8 x 48 register tiles.
      {8, 9, 48, true},    {16, 2, 96, false}, {21, 33, 97, true},  {6, 1, 130, false},
      {11, 18, 47, true},  {24, 65, 144, false},
  };
  std::mt19937 gen(7);
  for (const Problem& p : problems) {
    SCOPED_TRACE(::testing::Message() << "m=" << p.m << " k=" << p.k << " n=" << p.n << " per_row=" << p.per_row);
    const auto a = RandomInt8(p.m * p.k, &gen), b = RandomInt8(p.k * p.n, &gen);
    const int64_t channels = p.per_row ? p.m : p.n;
    const auto bias = RandomInt32(channels, &gen, -200000, 200000);
    const auto stages = RandomStages(channels, p.k, &gen);
    const auto want = Naive(p, a, b, bias, stages);
    ForEachGemmImpl([&] {
      for (bool transposed : {false, true}) {
        const auto got = RunCore(p, a, b, bias, stages, transposed);
        const int64_t diff = linear_test::FirstDifference(got, want);
        ASSERT_EQ(diff, -1) << "transposed=" << transposed << " got " << int{got[diff]} << " want " << int{want[diff]};
      }
    });
  }
}

// All-(-128) operands at the deepest supported reduction (every pair sum at
// its 2^15 extreme, the accumulator near 2^31), and biases at the int32
// limits (the wrapping add, then the requantizer's saturation).
TEST(GemmS8Test, ExtremeOperandsAndBiases) {
  std::mt19937 gen(11);
  for (int64_t k : {int64_t{4099}, kGemmS8MaxDepth}) {
    SCOPED_TRACE(::testing::Message() << "k=" << k);
    const Problem p = {5, k, 19, false};
    std::vector<int8_t> a(static_cast<size_t>(p.m * p.k), -128), b(static_cast<size_t>(p.k * p.n), -128);
    for (int64_t j = 0; j < p.n; j += 3) b[j] = 127;  // vary a few columns
    std::vector<int32_t> bias = RandomInt32(p.n, &gen, -1000, 1000);
    bias[0] = std::numeric_limits<int32_t>::max();
    bias[1] = std::numeric_limits<int32_t>::min();
    bias[2] = -std::numeric_limits<int32_t>::max();
    const auto stages = RandomStages(p.n, p.k, &gen);
    const auto want = Naive(p, a, b, bias, stages);
    ForEachGemmImpl([&] { EXPECT_EQ(RunCore(p, a, b, bias, stages, false), want); });
  }
}

// PackBGather over column offsets of every kind (consecutive, stride 2, rows
// of 7 columns wrapping in a 9-byte row as a padded Conv's output positions
// do, stride 3) packs what PackB packs of the gathered matrix, on every
// implementation (x86 vector ones pack panels whose columns lie within 32
// bytes with vector loads and byte shuffles).
TEST(GemmS8Test, GatherPacksTheSamePanels) {
  std::mt19937 gen(3);
  for (int64_t k : {1, 2, 5, 36}) {
    for (int64_t n : {1, 15, 16, 17, 40}) {
      const auto b = RandomInt8(k * n * 4, &gen);
      std::vector<int32_t> taps(static_cast<size_t>(k));
      for (int64_t i = 0; i < k; ++i) taps[i] = static_cast<int32_t>(i * 4 * n);
      const std::function<int32_t(int64_t)> kinds[] = {
          [](int64_t j) { return static_cast<int32_t>(j); },
          [](int64_t j) { return static_cast<int32_t>(2 * j); },
          [](int64_t j) { return static_cast<int32_t>(j / 7 * 9 + j % 7); },
          [](int64_t j) { return static_cast<int32_t>(3 * j); },
      };
      for (size_t kind = 0; kind < std::size(kinds); ++kind) {
        std::vector<int32_t> cols(static_cast<size_t>(n));
        for (int64_t j = 0; j < n; ++j) cols[j] = kinds[kind](j);
        std::vector<int8_t> gathered(static_cast<size_t>(k * n));
        for (int64_t i = 0; i < k; ++i)
          for (int64_t j = 0; j < n; ++j) gathered[i * n + j] = b[taps[i] + cols[j]];
        const size_t size = static_cast<size_t>(NumBPanels(n) * BPanelSize(k));
        std::vector<int16_t> want(size);
        PackB(gathered.data(), n, false, k, n, want.data());
        ForEachGemmImpl([&] {
          std::vector<int16_t> got(size, 0x5A5A);
          PackBGather(b.data(), taps.data(), k, cols.data(), n, got.data());
          EXPECT_EQ(got, want) << "kind " << kind << " k=" << k << " n=" << n;
        });
      }
    }
  }
}

TEST(GemmS8Test, ImplementationSelection) {
  const auto impls = AvailableGemmS8Impls();
  ASSERT_FALSE(impls.empty());
  EXPECT_EQ(impls.front(), GemmS8Impl::kPortable);
  const GemmS8Impl saved = ActiveGemmS8Impl();
  EXPECT_TRUE(SetGemmS8Impl(GemmS8Impl::kPortable));
  EXPECT_EQ(ActiveGemmS8Impl(), GemmS8Impl::kPortable);
  EXPECT_TRUE(SetGemmS8Impl(saved));
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")) {
    EXPECT_EQ(impls.back(), GemmS8Impl::kAvx512VnniU8);
    EXPECT_EQ(impls[impls.size() - 2], GemmS8Impl::kAvx512Vnni);
  } else if (__builtin_cpu_supports("avx512bw")) {
    EXPECT_EQ(impls.back(), GemmS8Impl::kAvx512);
  } else if (__builtin_cpu_supports("avx2")) {
    EXPECT_EQ(impls.back(), GemmS8Impl::kAvx2U8);
    EXPECT_EQ(impls[impls.size() - 2], GemmS8Impl::kAvx2);
  }
  if (__builtin_cpu_supports("avx2")) {  // the u8 · s8 core's name round-trips
    EXPECT_STREQ(GemmS8ImplName(GemmS8Impl::kAvx2U8), "avx2-u8");
    EXPECT_TRUE(SetGemmS8Impl(GemmS8Impl::kAvx2U8));
    EXPECT_EQ(ActiveGemmS8Impl(), GemmS8Impl::kAvx2U8);
    EXPECT_TRUE(SetGemmS8Impl(saved));
  }
#else
  EXPECT_FALSE(SetGemmS8Impl(GemmS8Impl::kAvx2));
  EXPECT_FALSE(SetGemmS8Impl(GemmS8Impl::kAvx2U8));
  EXPECT_FALSE(SetGemmS8Impl(GemmS8Impl::kAvx512));
  EXPECT_FALSE(SetGemmS8Impl(GemmS8Impl::kAvx512Vnni));
  EXPECT_FALSE(SetGemmS8Impl(GemmS8Impl::kAvx512VnniU8));
#endif
}

}  // namespace
}  // namespace int8
}  // namespace loom
