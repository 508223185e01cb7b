// The u8 · s8 GEMM core against a naive int8 product with the reference
// output stages, on its portable form (whole and split weights) and, when the
// CPU has them, AVX-512 VNNI (whole) and AVX2 (split): partial register
// tiles, depths off multiples of 4, extreme operands and biases (the
// weight-offset correction wrapping), weights built to break vpmaddubsw's
// saturating pair sums, the split itself, and the gathering packer on
// unit-stride, stride-2 and irregular columns against a naive pack.
#include "kernels/cpu/int8/gemm_u8s8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using linear_test::RandomInt32;
using linear_test::RandomInt8;
using linear_test::Wrap;

struct Problem {
  int64_t m, k, n;
};

// Y = requantize(bias + A · B) per row; A [m, k], B [k, n].
std::vector<int8_t> Naive(const Problem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                          const std::vector<int32_t>& bias, const std::vector<requant::OutputStage>& stages) {
  std::vector<int8_t> y(static_cast<size_t>(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      int64_t acc = 0;
      for (int64_t kk = 0; kk < p.k; ++kk) acc += int64_t{a[i * p.k + kk]} * b[kk * p.n + j];
      y[i * p.n + j] = static_cast<int8_t>(requant::Requantize(Wrap(acc + bias[i]), stages[i]));
    }
  return y;
}

std::vector<requant::OutputStage> RandomStages(int64_t count, int64_t depth, std::mt19937* gen) {
  std::vector<requant::OutputStage> stages;
  for (int64_t c = 0; c < count; ++c) {
    linear_test::Clamp clamp;
    if (c % 3 == 1) clamp.kind = linear_test::Clamp::kRelu;
    stages.push_back(linear_test::RandomLinearQuant(1, depth, false, clamp, gen).Stage(0));
  }
  return stages;
}

// A GEMM implementation and the weight form it takes.
struct U8S8Impl {
  std::function<void(const GemmU8S8Block&)> gemm;
  bool split = false;  // SplitQuadWeights
};

// The product through PackAQuads (and SplitQuadWeights), PackBGatherU8
// (identity offsets) and `impl`, in column blocks of `block` (a multiple of
// 16) and row blocks of `row_block` (a multiple of 4), as the Conv splits its
// tasks.
std::vector<int8_t> RunCore(const Problem& p, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                            const std::vector<int32_t>& bias, const std::vector<requant::OutputStage>& stages,
                            const U8S8Impl& impl, int64_t block, int64_t row_block) {
  std::vector<int8_t> pa(static_cast<size_t>(NumAPanels(p.m) * QuadAPanelSize(p.k)) + 1);
  std::vector<int32_t> offsets(static_cast<size_t>(p.m) + 1);
  PackAQuads(a.data(), p.k, p.m, p.k, pa.data());
  std::vector<int64_t> row_begin;
  std::vector<QuadRemainder> remainder;
  if (impl.split) SplitQuadWeights(pa.data(), p.m, p.k, &row_begin, &remainder);
  WeightOffsets(a.data(), p.k, p.m, p.k, offsets.data());
  std::vector<int32_t> taps(static_cast<size_t>(p.k)), cols(static_cast<size_t>(p.n));
  for (int64_t kk = 0; kk < p.k; ++kk) taps[kk] = static_cast<int32_t>(kk * p.n);
  for (int64_t j = 0; j < p.n; ++j) cols[j] = static_cast<int32_t>(j);
  OutputSteps steps;
  steps.Build(stages);
  std::vector<int8_t> y(static_cast<size_t>(p.m * p.n), 0x5A);
  std::vector<uint8_t> pb(static_cast<size_t>(NumBPanels(block) * QuadBPanelSize(p.k)) + 1);
  for (int64_t j0 = 0; j0 < p.n; j0 += block) {
    const int64_t n = std::min(block, p.n - j0);
    PackBGatherU8(b.data(), taps.data(), p.k, cols.data() + j0, n, pb.data());
    for (int64_t i0 = 0; i0 < p.m; i0 += row_block) {
      GemmU8S8Block blk;
      blk.a = pa.data() + (i0 / kGemmS8Mr) * QuadAPanelSize(p.k);
      blk.b = pb.data();
      blk.rows = std::min(row_block, p.m - i0);
      blk.cols = n;
      blk.kq = KQuads(p.k);
      blk.y = y.data() + i0 * p.n + j0;
      blk.ldy = p.n;
      blk.bias = bias.data() + i0;
      blk.offset = offsets.data() + i0;
      if (impl.split) {
        blk.remainder = remainder.data();
        blk.row_begin = row_begin.data() + i0;
      }
      blk.steps = &steps;
      blk.channel0 = i0;
      impl.gemm(blk);
    }
  }
  return y;
}

// The implementations to check: the portable form on both weight forms, and
// the dispatched ones the CPU has.
void ForEachU8S8Impl(const std::function<void(const U8S8Impl&)>& body) {
  for (bool split : {false, true}) {
    SCOPED_TRACE(split ? "portable split" : "portable");
    body({GemmU8S8Portable, split});
  }
  if (GemmU8S8Available()) {
    SCOPED_TRACE("avx512vnni");
    body({GemmU8S8, false});
  }
  if (GemmU8S8SplitAvailable()) {
    SCOPED_TRACE("avx2 split");
    body({GemmU8S8, true});
  }
}

TEST(GemmU8S8Test, MatchesNaive) {
  // The last two: deep B panels (rows the outer loop), with a column block of only a narrow panel.
  const Problem problems[] = {
      {1, 1, 1},    {4, 2, 16},    {5, 3, 17},   {3, 7, 15},    {8, 64, 32},   {13, 27, 45},
      {9, 147, 33}, {64, 576, 50}, {2, 1001, 3}, {31, 0, 18},   {17, 130, 1},  {1, 512, 100},
      {8, 9, 48},   {16, 2, 96},   {21, 33, 97}, {6, 1, 130},   {11, 18, 47},  {24, 65, 144},
      {12, 6, 200}, {20, 5, 49},   {7, 4, 64},   {40, 290, 81}, {6, 1300, 20}, {9, 1290, 3},
  };
  std::mt19937 gen(17);
  for (const Problem& p : problems) {
    SCOPED_TRACE(::testing::Message() << "m=" << p.m << " k=" << p.k << " n=" << p.n);
    const auto a = RandomInt8(p.m * p.k, &gen), b = RandomInt8(p.k * p.n, &gen);
    const auto bias = RandomInt32(p.m, &gen, -200000, 200000);
    const auto stages = RandomStages(p.m, p.k, &gen);
    const auto want = Naive(p, a, b, bias, stages);
    ForEachU8S8Impl([&](const U8S8Impl& impl) {
      for (int64_t block : {int64_t{16}, int64_t{48}, int64_t{1024}}) {
        for (int64_t row_block : {int64_t{4}, int64_t{12}, int64_t{1024}}) {
          const auto got = RunCore(p, a, b, bias, stages, impl, block, row_block);
          const int64_t diff = linear_test::FirstDifference(got, want);
          ASSERT_EQ(diff, -1) << "block=" << block << " row_block=" << row_block << " got " << int{got[diff]}
                              << " want " << int{want[diff]};
        }
      }
    });
  }
}

// All-(-128) weights and activations at the deepest supported reduction: the
// true accumulator near 2^31, the shifted one (and 128 · Σ w) far outside
// int32, so only the wrapping arithmetic gives the right result; biases at
// the int32 limits.
TEST(GemmU8S8Test, ExtremeOperandsAndBiases) {
  std::mt19937 gen(19);
  for (int64_t k : {int64_t{4099}, kGemmS8MaxDepth}) {
    SCOPED_TRACE(::testing::Message() << "k=" << k);
    const Problem p = {7, k, 19};
    std::vector<int8_t> a(static_cast<size_t>(p.m * p.k), -128), b(static_cast<size_t>(p.k * p.n), -128);
    for (int64_t j = 0; j < p.n; j += 3) b[j] = 127;         // vary a few columns
    for (int64_t kk = 0; kk < p.k; ++kk) a[p.k + kk] = 127;  // and one row
    std::vector<int32_t> bias = RandomInt32(p.m, &gen, -1000, 1000);
    bias[0] = std::numeric_limits<int32_t>::max();
    bias[1] = std::numeric_limits<int32_t>::min();
    bias[2] = -std::numeric_limits<int32_t>::max();
    const auto stages = RandomStages(p.m, p.k, &gen);
    const auto want = Naive(p, a, b, bias, stages);
    ForEachU8S8Impl([&](const U8S8Impl& impl) { EXPECT_EQ(RunCore(p, a, b, bias, stages, impl, 1024, 1024), want); });
  }
}

// Weights whose pairs break vpmaddubsw's int16 pair sums unless split
// ((127, 127), (-128, -128), (-127, 127), ...: up to 255 · 256 in magnitude),
// mixed with ones that just fit (|w0| + |w1| = 128) and small ones, against
// activations at the extremes (stored as 0 and 255) and random ones; depths
// off multiples of 4 and partial tiles.
TEST(GemmU8S8Test, SaturatingPairsAreExact) {
  const int8_t big[][2] = {{127, 127},  {-127, -127}, {-128, -128}, {-128, 127}, {127, -128}, {-127, 127},
                           {127, -127}, {100, 29},    {-65, -64},   {64, 64},    {-128, 0},   {0, -128},
                           {-64, -64},  {127, 1},     {1, -127},    {3, -5}};
  constexpr int kPatterns = sizeof(big) / sizeof(big[0]);
  std::mt19937 gen(31);
  const Problem problems[] = {{6, 4, 16}, {13, 37, 33}, {7, 130, 50}, {29, 258, 17}, {2, 3, 100}, {64, 576, 49}};
  for (const Problem& p : problems) {
    for (int mode = 0; mode < 4; ++mode) {
      SCOPED_TRACE(::testing::Message() << "m=" << p.m << " k=" << p.k << " n=" << p.n << " mode=" << mode);
      std::vector<int8_t> a(static_cast<size_t>(p.m * p.k));
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const int64_t pair = kk / 2;
          int8_t v;
          if (mode == 0) {  // every pattern, row by row
            v = big[(i + pair) % kPatterns][kk % 2];
          } else if (mode == 1) {  // all +-127, alternating signs
            v = static_cast<int8_t>((i + kk) % 2 ? -127 : 127);
          } else if (mode == 2) {  // all -128
            v = -128;
          } else {  // sparse: mostly small, a few violating pairs
            v = gen() % 16 == 0 ? big[gen() % kPatterns][kk % 2]
                                : static_cast<int8_t>(static_cast<int>(gen() % 61) - 30);
          }
          a[i * p.k + kk] = v;
        }
      std::vector<int8_t> b(static_cast<size_t>(p.k * p.n));
      for (size_t e = 0; e < b.size(); ++e)
        b[e] = e % 5 == 4 ? static_cast<int8_t>(gen()) : (mode + e) % 2 ? int8_t{127} : int8_t{-128};
      const auto bias = RandomInt32(p.m, &gen, -200000, 200000);
      const auto stages = RandomStages(p.m, p.k, &gen);
      const auto want = Naive(p, a, b, bias, stages);
      ForEachU8S8Impl([&](const U8S8Impl& impl) {
        for (int64_t row_block : {int64_t{4}, int64_t{1024}}) {
          const auto got = RunCore(p, a, b, bias, stages, impl, 32, row_block);
          const int64_t diff = linear_test::FirstDifference(got, want);
          ASSERT_EQ(diff, -1) << "row_block=" << row_block << " got " << int{got[diff]} << " want " << int{want[diff]};
        }
      });
    }
  }
}

// SplitQuadWeights: main + remainder is the packed weights, every pair of
// both within |w0| + |w1| <= 128, and an entry exactly for the k-quads that
// need one.
TEST(GemmU8S8Test, SplitKeepsPairsWithinBound) {
  std::mt19937 gen(37);
  for (int64_t rows : {1, 5, 9}) {
    for (int64_t k : {1, 6, 13, 40}) {
      std::vector<int8_t> a(static_cast<size_t>(rows * k));
      for (int8_t& v : a) v = static_cast<int8_t>(gen() % 3 == 0 ? gen() : gen() % 41 - 20);
      if (k >= 2) a[0] = a[1] = -128;
      std::vector<int8_t> whole(static_cast<size_t>(NumAPanels(rows) * QuadAPanelSize(k)));
      PackAQuads(a.data(), k, rows, k, whole.data());
      std::vector<int8_t> split = whole;
      std::vector<int64_t> row_begin;
      std::vector<QuadRemainder> remainder;
      SplitQuadWeights(split.data(), rows, k, &row_begin, &remainder);
      ASSERT_EQ(row_begin.size(), static_cast<size_t>(rows + 1));
      ASSERT_EQ(row_begin.back(), static_cast<int64_t>(remainder.size()));
      std::vector<int8_t> rest(whole.size(), 0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t e = row_begin[r]; e < row_begin[r + 1]; ++e)
          std::memcpy(&rest[(r / 4) * QuadAPanelSize(k) + remainder[e].quad * 16 + 4 * (r % 4)], &remainder[e].bytes,
                      4);
      auto fits = [](const int8_t* w) { return std::abs(w[0]) + std::abs(w[1]) <= 128; };
      for (size_t q = 0; q < whole.size(); q += 4) {
        const bool needs = !fits(&whole[q]) || !fits(&whole[q + 2]);
        const bool has = std::any_of(rest.begin() + q, rest.begin() + q + 4, [](int8_t v) { return v != 0; });
        EXPECT_EQ(has, needs) << "rows=" << rows << " k=" << k << " at " << q;
        for (size_t e = q; e < q + 4; e += 2) {
          EXPECT_TRUE(fits(&split[e]) && fits(&rest[e])) << "rows=" << rows << " k=" << k << " at " << e;
          for (size_t x = e; x < e + 2; ++x) EXPECT_EQ(split[x] + rest[x], whole[x]) << "at " << x;
        }
      }
    }
  }
}

// PackBGatherU8 against a naive pack of the gathered matrix, for unit-stride,
// stride-2 (the vector paths), both split where output rows end, and
// irregular columns; full and partial panels.
TEST(GemmU8S8Test, GatherPacksQuads) {
  std::mt19937 gen(23);
  for (int64_t k : {1, 3, 4, 5, 8, 27, 36}) {
    for (int64_t n : {1, 15, 16, 17, 40, 64}) {
      for (int pattern = 0; pattern < 6; ++pattern) {
        const int64_t row = 3 * n + 40;
        const auto src = RandomInt8(k * row, &gen);
        std::vector<int32_t> taps(static_cast<size_t>(k)), cols(static_cast<size_t>(n));
        for (int64_t i = 0; i < k; ++i) taps[i] = static_cast<int32_t>(i * row + i % 3);
        for (int64_t j = 0; j < n; ++j)
          cols[j] = static_cast<int32_t>(pattern == 0   ? j
                                         : pattern == 1 ? 2 * j
                                         : pattern == 2 ? 3 * j - (j / 5) * 2         // irregular
                                         : pattern == 3 ? (j / 10) * 13 + j % 10      // rows of 10, 3 apart
                                         : pattern == 4 ? (j / 7) * 20 + 2 * (j % 7)  // stride 2 over rows of 7
                                                        : (j / 3) * 4 + j % 3);       // short rows

        const size_t size = static_cast<size_t>(NumBPanels(n) * QuadBPanelSize(k));
        std::vector<uint8_t> want(size, 0), got(size, 0xEE);
        for (int64_t j = 0; j < n; ++j)
          for (int64_t kk = 0; kk < k; ++kk)
            want[(j / 16) * QuadBPanelSize(k) + (kk / 4) * 64 + 4 * (j % 16) + kk % 4] =
                static_cast<uint8_t>(src[taps[kk] + cols[j]] + 128);
        PackBGatherU8(src.data(), taps.data(), k, cols.data(), n, got.data());
        EXPECT_EQ(got, want) << "k=" << k << " n=" << n << " pattern=" << pattern;
      }
    }
  }
}

TEST(GemmU8S8Test, QuadAPanelsAndOffsets) {
  std::mt19937 gen(29);
  for (int64_t rows : {1, 4, 5, 9}) {
    for (int64_t k : {1, 4, 6, 13}) {
      const auto a = RandomInt8(rows * k, &gen);
      std::vector<int8_t> got(static_cast<size_t>(NumAPanels(rows) * QuadAPanelSize(k)), 0x11);
      PackAQuads(a.data(), k, rows, k, got.data());
      std::vector<int8_t> want(got.size(), 0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t kk = 0; kk < k; ++kk)
          want[(r / 4) * QuadAPanelSize(k) + (kk / 4) * 16 + 4 * (r % 4) + kk % 4] = a[r * k + kk];
      EXPECT_EQ(got, want) << "rows=" << rows << " k=" << k;
      std::vector<int32_t> offsets(static_cast<size_t>(rows));
      WeightOffsets(a.data(), k, rows, k, offsets.data());
      for (int64_t r = 0; r < rows; ++r) {
        int64_t sum = 0;
        for (int64_t kk = 0; kk < k; ++kk) sum += a[r * k + kk];
        EXPECT_EQ(offsets[r], Wrap(128 * sum)) << "row " << r;
      }
    }
  }
}

}  // namespace
}  // namespace int8
}  // namespace loom
