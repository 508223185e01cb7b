#include "kernels/cpu/nn/gemm_f32.h"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/thread_pool.h"

namespace loom {
namespace nn {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

std::string IsaName(const ::testing::TestParamInfo<const GemmF32Isa*>& info) { return info.param->name; }

// Every GEMM test runs once per path this CPU supports (gemm_f32_isa.h),
// forced through GemmF32Params::isa and PackedMatrixF32's isa argument.
class GemmF32Test : public ::testing::TestWithParam<const GemmF32Isa*> {
 protected:
  const GemmF32Isa& isa() const { return *GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(Isas, GemmF32Test, ::testing::ValuesIn(SupportedGemmF32Isas()), IsaName);

struct Case {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

// kPackedB: B packed ahead of time, A packed on the fly (MatMul and Gemm with
// constant weights).
enum class Source { kPlain, kPacked, kGather, kPackedB };

struct Epilogue {
  bool row_bias = false, col_bias = false;
  bool residual = false;  // a residual matrix of C's shape (Conv + Add)
  Activation act;
};

// C = act(alpha*op(A)*op(B) + beta*C + residual + bias) with the products
// summed in double; `bound` gets, per element, the sum of the absolute values
// of every term (the scale of its rounding error).
std::vector<float> Reference(const Case& c, const std::vector<float>& a, const std::vector<float>& b,
                             const std::vector<float>& c0, const float* row_bias, const float* col_bias,
                             const float* residual, const Activation& act, std::vector<double>* bound) {
  std::vector<float> out(c.m * c.n);
  bound->assign(out.size(), 0.0);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = 0, abs_s = 0;
      for (int64_t k = 0; k < c.k; ++k) {
        const double av = c.ta ? a[k * c.m + i] : a[i * c.k + k];
        const double bv = c.tb ? b[j * c.k + k] : b[k * c.n + j];
        s += av * bv;
        abs_s += std::fabs(av * bv);
      }
      const double cterm = c.beta == 0 ? 0.0 : c.beta * c0[i * c.n + j];
      double v = c.alpha * s + cterm;
      double abs_v = std::fabs(c.alpha) * abs_s + std::fabs(cterm);
      if (residual) v += residual[i * c.n + j], abs_v += std::fabs(residual[i * c.n + j]);
      if (row_bias) v += row_bias[i], abs_v += std::fabs(row_bias[i]);
      if (col_bias) v += col_bias[j], abs_v += std::fabs(col_bias[j]);
      out[i * c.n + j] = static_cast<float>(v);
      (*bound)[i * c.n + j] = abs_v;
    }
  for (int64_t i = 0; i < c.m; ++i) ApplyActivation(act, out.data() + i * c.n, c.n);
  return out;
}

void RunCase(const GemmF32Isa& isa, const Case& c, int threads, Source source, const Epilogue& e) {
  SCOPED_TRACE(::testing::Message() << isa.name << " " << c.m << "x" << c.n << "x" << c.k << " ta=" << c.ta
                                    << " tb=" << c.tb << " alpha=" << c.alpha << " beta=" << c.beta
                                    << " threads=" << threads << " source=" << static_cast<int>(source)
                                    << " row_bias=" << e.row_bias << " col_bias=" << e.col_bias
                                    << " residual=" << e.residual << " act=" << static_cast<int>(e.act.kind));
  const auto a = Random(c.m * c.k, 1), b = Random(c.k * c.n, 2), c0 = Random(c.m * c.n, 3);
  const auto rb = Random(c.m, 4), cb = Random(c.n, 5), res = Random(c.m * c.n, 6);
  std::vector<float> out = c0;
  GemmF32Params p;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = c.alpha;
  p.beta = c.beta;
  p.isa = &isa;
  const int64_t lda = c.ta ? c.m : c.k, ldb = c.tb ? c.k : c.n;
  PackedMatrixF32 pa, pb;
  // The gathered source: op(B) copied into rows of `width`-column groups with
  // gaps (as a convolution's output rows over a padded input), columns `step`
  // apart (a strided convolution), so panels hold one run, a few runs or many.
  const int64_t width = 1 + c.n % 37, step = c.tb ? 2 : 1;
  const int64_t row = (c.n / width + 1) * (width + 2) * step;
  std::vector<float> gathered(c.k * row);
  std::vector<int32_t> k_offset(c.k), n_offset(c.n);
  for (int64_t j = 0; j < c.n; ++j) n_offset[j] = static_cast<int32_t>(((j / width) * (width + 2) + j % width) * step);
  for (int64_t kk = 0; kk < c.k; ++kk) {
    k_offset[kk] = static_cast<int32_t>(kk * row);
    for (int64_t j = 0; j < c.n; ++j) gathered[kk * row + n_offset[j]] = c.tb ? b[j * c.k + kk] : b[kk * c.n + j];
  }
  if (source == Source::kPacked) {
    pa.PackA(a.data(), lda, c.ta, c.m, c.k, isa);
    pb.PackB(b.data(), ldb, c.tb, c.k, c.n, isa);
    p.packed_a = &pa;
    p.packed_b = &pb;
  } else if (source == Source::kPackedB) {
    pb.PackB(b.data(), ldb, c.tb, c.k, c.n, isa);
    p.packed_b = &pb;
    p.a = a.data();
    p.lda = lda;
    p.trans_a = c.ta;
  } else {
    p.a = a.data();
    p.lda = lda;
    p.trans_a = c.ta;
    p.b = source == Source::kGather ? gathered.data() : b.data();
    if (source == Source::kGather) {
      p.b_k_offset = k_offset.data();
      p.b_n_offset = n_offset.data();
    } else {
      p.ldb = ldb;
      p.trans_b = c.tb;
    }
  }
  p.c = out.data();
  p.ldc = c.n;
  p.row_bias = e.row_bias ? rb.data() : nullptr;
  p.col_bias = e.col_bias ? cb.data() : nullptr;
  p.residual = e.residual ? res.data() : nullptr;
  p.act = e.act;
  StaticThreadPool pool(threads);
  std::vector<float> scratch(GemmF32ScratchBytes(threads) / sizeof(float));
  GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);
  std::vector<double> bound;
  const auto ref = Reference(c, a, b, c0, p.row_bias, p.col_bias, p.residual, e.act, &bound);
  ASSERT_EQ(out.size(), ref.size());
  // FMA and blocking reorder the sums: allow a few ulps per sqrt(K) of the
  // sum of absolute terms (a missing or doubled product is far outside).
  const double rel = 2e-6 * std::sqrt(static_cast<double>(c.k + 1));
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(out[i], ref[i], rel * bound[i] + 1e-6) << "at row " << i / c.n << " column " << i % c.n;
}

TEST_P(GemmF32Test, MatchesReferenceOnEdgeShapes) {
  const std::vector<Case> cases = {
      {1, 1, 1, false, false, 1.f, 0.f},     {3, 5, 7, false, false, 1.f, 0.f},   {4, 8, 16, false, false, 1.f, 1.f},
      {17, 13, 300, true, false, 0.5f, 2.f}, {33, 70, 9, false, true, -1.f, 0.f}, {5, 1100, 20, true, true, 1.f, 0.25f},
      {131, 9, 513, false, false, 1.f, 0.f}, {64, 200, 64, true, true, 2.f, 1.f},
  };
  Epilogue bias;
  bias.row_bias = bias.col_bias = true;
  for (const Case& c : cases)
    for (int threads : {1, 2})
      for (Source s : {Source::kPlain, Source::kPacked, Source::kGather, Source::kPackedB})
        for (const Epilogue& e : {Epilogue(), bias}) RunCase(isa(), c, threads, s, e);
}

// Token-row products (a transformer's 197 tokens times a weight packed ahead
// of time): M not a multiple of MR, K over several K blocks and not a
// multiple of the unroll, N past a multiple of NR; at one thread (one wide A
// block) and two (A packed once, shared, columns split between the threads),
// and M at and past the wide block (kGemmMcWide).
TEST_P(GemmF32Test, MatchesReferenceOnTokenRowShapes) {
  const std::vector<Case> cases = {
      {197, 2 * isa().nr + 5, 2 * kGemmKc + 13, false, false, 1.f, 0.f},
      {197, 197, 64, false, true, 1.f, 0.f},
      {197, 64, 197, true, false, 0.5f, 1.f},
      {kGemmMcWide, 3 * isa().nr, 31, false, false, 1.f, 0.f},
      {kGemmMcWide + 5, 40, kGemmKc + 1, false, false, 1.f, 0.f},
  };
  Epilogue finish;
  finish.col_bias = true;
  finish.residual = true;
  finish.act.kind = ActivationKind::kRelu;
  for (const Case& c : cases)
    for (int threads : {1, 2})
      for (Source s : {Source::kPackedB, Source::kPlain})
        for (const Epilogue& e : {Epilogue(), finish}) RunCase(isa(), c, threads, s, e);
}

// Every row count of the last row panel (the shorter row kernels) and of full
// panels, with one and several K blocks: plain stores, accumulation over K
// blocks, beta blending and a finishing epilogue.
TEST_P(GemmF32Test, MatchesReferenceForEveryEdgeRowCount) {
  const int mr = isa().mr, nr = isa().nr;
  Epilogue finish;
  finish.col_bias = true;
  finish.act.kind = ActivationKind::kRelu;
  for (int64_t m = 1; m <= 2 * mr + 1; ++m)
    for (int64_t n : {int64_t{nr}, int64_t{2 * nr + 3}})
      for (int64_t k : {int64_t{7}, kGemmKc + 5})
        for (Source s : {Source::kPlain, Source::kPacked, Source::kPackedB}) {
          RunCase(isa(), {m, n, k, false, false, 1.f, 0.f}, 1, s, Epilogue());
          RunCase(isa(), {m, n, k, false, false, 1.f, 1.f}, 2, s, finish);
        }
}

// The residual epilogue (Conv + Add): full and partial register tiles (every
// row count of the last panel, columns past a multiple of NR), one and
// several K blocks (added once, on the last), with beta, biases and
// activations after it, every operand source, K == 0.
TEST_P(GemmF32Test, ResidualEpilogue) {
  const int mr = isa().mr, nr = isa().nr;
  Epilogue plain, finish, clip;
  plain.residual = finish.residual = clip.residual = true;
  finish.row_bias = true;
  finish.act.kind = ActivationKind::kRelu;
  clip.col_bias = true;
  clip.act.kind = ActivationKind::kClip;
  clip.act.min = -0.25f;
  clip.act.max = 0.5f;
  for (int64_t m = 1; m <= 2 * mr + 1; ++m)
    for (int64_t n : {int64_t{nr}, int64_t{2 * nr + 3}})
      for (int64_t k : {int64_t{5}, kGemmKc + 7})
        for (Source s : {Source::kPlain, Source::kPacked, Source::kGather, Source::kPackedB}) {
          RunCase(isa(), {m, n, k, false, false, 1.f, 0.f}, 1, s, plain);
          RunCase(isa(), {m, n, k, false, false, 1.f, 0.f}, 2, s, finish);
          RunCase(isa(), {m, n, k, true, false, 0.5f, 1.f}, 1, s, clip);
          if (HasFatalFailure()) return;
        }
  RunCase(isa(), {7, 300, 2 * kGemmKc + 3, false, false, 1.f, 0.f}, 2, Source::kGather, finish);
  RunCase(isa(), {130, 1100, 40, false, false, 1.f, 0.f}, 2, Source::kPacked, finish);
  RunCase(isa(), {5, 9, 0, false, false, 1.f, 0.5f}, 1, Source::kPlain, finish);
}

// Shapes around the path's MR, NR and the KC / MC / NC blocks, and random
// shapes up to a few hundred, with random transposes, alpha, beta, biases,
// activations, operand sources and thread counts.
TEST_P(GemmF32Test, MatchesReferenceOnRandomShapes) {
  std::mt19937 gen(1234);
  auto pick = [&](std::initializer_list<int64_t> values) { return values.begin()[gen() % values.size()]; };
  auto dim = [&](int64_t tile) {
    switch (gen() % 4) {
      case 0:
        return static_cast<int64_t>(1 + gen() % 8);
      case 1:
        return std::max<int64_t>(1, tile * (1 + gen() % 4) + pick({-1, 0, 1}));
      case 2:
        return pick({kGemmKc - 1, kGemmKc, kGemmKc + 1, kGemmMc + 3, 2 * kGemmKc + 5});
      default:
        return static_cast<int64_t>(1 + gen() % 300);
    }
  };
  const ActivationKind kinds[] = {ActivationKind::kNone,      ActivationKind::kRelu,    ActivationKind::kClip,
                                  ActivationKind::kLeakyRelu, ActivationKind::kSigmoid, ActivationKind::kHardSigmoid,
                                  ActivationKind::kHardSwish, ActivationKind::kTanh};
  for (int t = 0; t < 60; ++t) {
    Case c;
    c.m = dim(isa().mr);
    c.n = dim(isa().nr);
    c.k = dim(16);
    c.ta = gen() % 2;
    c.tb = gen() % 2;
    c.alpha = static_cast<float>(pick({1, 1, -1, 2})) * (gen() % 2 ? 1.f : 0.5f);
    c.beta = static_cast<float>(pick({0, 0, 1, 2})) * (gen() % 2 ? 1.f : 0.25f);
    Epilogue e;
    e.row_bias = gen() % 2;
    e.col_bias = gen() % 2;
    e.act.kind = kinds[gen() % 8];
    e.act.min = -0.5f;
    e.act.max = 0.75f;
    e.act.alpha = e.act.kind == ActivationKind::kLeakyRelu ? 0.1f : 0.2f;
    e.act.beta = 0.5f;
    const Source source = static_cast<Source>(gen() % 4);
    RunCase(isa(), c, 1 + static_cast<int>(gen() % 2), source, e);
    if (HasFatalFailure()) return;
  }
}

// The packed layouts, read back value by value: every element of op(src) in
// its panel, exact zeros (+0.f) in the padding below row M (A) or right of
// column N (B), across KC blocks; a role-B matrix written panel by panel
// through AllocateB / MutableBlockB reads back through BlockB.
TEST_P(GemmF32Test, PackedLayoutsHoldEveryValueAndZeroPadding) {
  const int mr = isa().mr, nr = isa().nr;
  const int64_t shapes[][2] = {{1, 1}, {5, 3}, {13, 7}, {33, 400}, {kGemmKc + 5, 17}};
  for (const auto& shape : shapes) {
    for (bool trans : {false, true}) {
      const int64_t rows = shape[0], cols = shape[1];
      SCOPED_TRACE(::testing::Message() << isa().name << " " << rows << "x" << cols << " trans=" << trans);
      const std::vector<float> src = Random(rows * cols, 7);
      const auto at = [&](int64_t r, int64_t c) { return trans ? src[c * rows + r] : src[r * cols + c]; };
      const int64_t ld = trans ? rows : cols;
      // Role A: rows = M, cols = K.
      PackedMatrixF32 pa;
      pa.PackA(src.data(), ld, trans, rows, cols, isa());
      for (int64_t k = 0; k < cols; ++k) {
        const int64_t k0 = k / kGemmKc * kGemmKc;
        for (int64_t r = 0; r < (rows + mr - 1) / mr * mr; ++r) {
          const float v = pa.BlockA(k0, r / mr * mr)[(k - k0) * mr + r % mr];
          if (r < rows) {
            ASSERT_EQ(v, at(r, k)) << "A (" << r << ", " << k << ")";
          } else {
            ASSERT_TRUE(v == 0.f && !std::signbit(v)) << "A padding (" << r << ", " << k << ") = " << v;
          }
        }
      }
      // Role B: rows = K, cols = N.
      PackedMatrixF32 pb, written;
      pb.PackB(src.data(), ld, trans, rows, cols, isa());
      written.AllocateB(rows, cols, isa());
      ASSERT_EQ(written.rows(), rows);
      ASSERT_EQ(written.cols(), cols);
      for (int64_t k0 = 0; k0 < rows; k0 += kGemmKc) {
        const int64_t kc = std::min(kGemmKc, rows - k0);
        for (int64_t n0 = 0; n0 < cols; n0 += nr) {
          float* panel = written.MutableBlockB(k0, n0);
          for (int64_t kk = 0; kk < kc; ++kk)
            for (int j = 0; j < nr; ++j) panel[kk * nr + j] = n0 + j < cols ? at(k0 + kk, n0 + j) : 0.f;
        }
      }
      for (int64_t k = 0; k < rows; ++k) {
        const int64_t k0 = k / kGemmKc * kGemmKc;
        for (int64_t c = 0; c < (cols + nr - 1) / nr * nr; ++c) {
          const float v = pb.BlockB(k0, c / nr * nr)[(k - k0) * nr + c % nr];
          ASSERT_EQ(v, written.BlockB(k0, c / nr * nr)[(k - k0) * nr + c % nr]) << "B (" << k << ", " << c << ")";
          if (c < cols) {
            ASSERT_EQ(v, at(k, c)) << "B (" << k << ", " << c << ")";
          } else {
            ASSERT_TRUE(v == 0.f && !std::signbit(v)) << "B padding (" << k << ", " << c << ") = " << v;
          }
        }
      }
      EXPECT_EQ(reinterpret_cast<uintptr_t>(pa.BlockA(0, 0)) % 64, 0u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(pb.BlockB(0, 0)) % 64, 0u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(written.BlockB(0, 0)) % 64, 0u);
    }
  }
}

// AllocateManyB: every matrix has the AllocateB layout, its own 64-byte-aligned
// storage that no other matrix of the block overlaps.
TEST_P(GemmF32Test, AllocateManyBGivesDisjointAlignedMatrices) {
  const int64_t k = kGemmKc + 3, n = 2 * isa().nr + 5;
  const int64_t floats = (n + isa().nr - 1) / isa().nr * isa().nr * k;
  std::vector<PackedMatrixF32> many = PackedMatrixF32::AllocateManyB(5, k, n, isa());
  ASSERT_EQ(many.size(), 5u);
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  for (size_t i = 0; i < many.size(); ++i) {
    EXPECT_EQ(many[i].rows(), k);
    EXPECT_EQ(many[i].cols(), n);
    EXPECT_EQ(many[i].isa(), &isa());
    const uintptr_t start = reinterpret_cast<uintptr_t>(many[i].BlockB(0, 0));
    EXPECT_EQ(start % 64, 0u) << i;
    ranges.push_back({start, start + floats * sizeof(float)});
    // The last panel of the last KC block ends where the matrix does.
    const float* last = many[i].BlockB(kGemmKc, (n - 1) / isa().nr * isa().nr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(last + 3 * isa().nr), ranges.back().second) << i;
    std::fill(many[i].MutableBlockB(0, 0), many[i].MutableBlockB(0, 0) + floats, static_cast<float>(i));
  }
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j)
      EXPECT_TRUE(ranges[i].second <= ranges[j].first || ranges[j].second <= ranges[i].first) << i << " " << j;
  for (size_t i = 0; i < many.size(); ++i) EXPECT_EQ(many[i].BlockB(0, 0)[floats - 1], static_cast<float>(i)) << i;
}

TEST(GemmF32, ActiveIsaIsSupportedAndFollowsTheEnvironment) {
  const std::vector<const GemmF32Isa*> isas = SupportedGemmF32Isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_STREQ(isas.front()->name, "generic");
  const GemmF32Isa& active = ActiveGemmF32Isa();
  EXPECT_NE(std::find(isas.begin(), isas.end(), &active), isas.end());
  const char* forced = std::getenv("LOOM_CPU_ISA");
  bool supported = false;
  for (const GemmF32Isa* isa : isas) supported = supported || (forced && std::string(forced) == isa->name);
  if (supported) {
    EXPECT_STREQ(active.name, forced);
  } else {
    EXPECT_EQ(&active, isas.back()) << "without a supported LOOM_CPU_ISA the fastest path runs";
  }
  std::printf("GemmF32 paths:");
  for (const GemmF32Isa* isa : isas) std::printf(" %s (%dx%d)", isa->name, isa->mr, isa->nr);
  std::printf("; active: %s\n", active.name);
}

TEST(GemmF32, ZeroKScalesC) {
  std::vector<float> c = {1, 2, 3, 4, 5, 6};
  const std::vector<float> rb = {10, 20};
  GemmF32Params p;
  p.m = 2;
  p.n = 3;
  p.k = 0;
  p.beta = 2.f;
  p.c = c.data();
  p.ldc = 3;
  p.row_bias = rb.data();
  GemmF32(p, nullptr, nullptr);
  EXPECT_EQ(c, (std::vector<float>{12, 14, 16, 28, 30, 32}));
}

TEST(GemmF32, BetaZeroIgnoresGarbage) {
  const std::vector<float> a = {1, 2}, b = {3, 4};
  std::vector<float> c = {NAN, NAN, NAN, NAN};
  GemmF32Params p;
  p.m = 2;
  p.n = 2;
  p.k = 1;
  p.a = a.data();
  p.lda = 1;
  p.b = b.data();
  p.ldb = 2;
  p.c = c.data();
  p.ldc = 2;
  std::vector<float> scratch(GemmF32ScratchBytes(1) / sizeof(float));
  GemmF32(p, scratch.data(), nullptr);
  EXPECT_EQ(c, (std::vector<float>{3, 4, 6, 8}));
}

TEST(GemmF32, AppliesActivationOnStore) {
  const auto a = Random(20 * 30, 7), b = Random(30 * 10, 8);
  std::vector<float> c(200);
  GemmF32Params p;
  p.m = 20;
  p.n = 10;
  p.k = 30;
  p.a = a.data();
  p.lda = 30;
  p.b = b.data();
  p.ldb = 10;
  p.c = c.data();
  p.ldc = 10;
  p.act.kind = ActivationKind::kClip;
  p.act.min = -0.5f;
  p.act.max = 0.25f;
  std::vector<float> scratch(GemmF32ScratchBytes(1) / sizeof(float));
  GemmF32(p, scratch.data(), nullptr);
  std::vector<double> bound;
  const auto ref = Reference({20, 10, 30, false, false, 1.f, 0.f}, a, b, c, nullptr, nullptr, nullptr, p.act, &bound);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(c[i], ref[i], 1e-4);
}

TEST(GemmF64, MatchesReference) {
  const int64_t m = 7, n = 9, k = 11;
  std::vector<double> a(m * k), b(n * k), c(m * n, 1.0), bias(n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(1.0 + i);
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(2.0 + i);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1 * i;
  GemmF64Params p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = 0.5;
  p.beta = 3.0;
  p.a = a.data();
  p.lda = k;
  p.b = b.data();
  p.ldb = k;
  p.trans_b = true;  // b holds B^T (n x k)
  p.c = c.data();
  p.ldc = n;
  p.col_bias = bias.data();
  StaticThreadPool pool(2);
  GemmF64(p, &pool);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += a[i * k + kk] * b[j * k + kk];
      EXPECT_NEAR(c[i * n + j], 0.5 * s + 3.0 + bias[j], 1e-12);
    }
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Throughput report per path (no assertion on speed: the machine is shared):
// square products, two ResNet-18 3x3 convolutions (M = output channels,
// N = output pixels, K = input channels x 9) and two MobileNet-v2 1x1 ones.
TEST_P(GemmF32Test, Throughput) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  const int64_t shapes[][3] = {{256, 256, 256}, {1024, 1024, 1024}, {64, 3136, 576},
                               {512, 49, 4608}, {144, 3136, 24},    {24, 3136, 144}};
  for (const auto& shape : shapes) {
    const int64_t m = shape[0], n = shape[1], k = shape[2];
    for (int threads : {1, 2}) {
      const auto a = Random(m * k, 1), b = Random(k * n, 2);
      std::vector<float> c(m * n);
      GemmF32Params p;
      p.m = m;
      p.n = n;
      p.k = k;
      p.a = a.data();
      p.lda = k;
      p.b = b.data();
      p.ldb = n;
      p.c = c.data();
      p.ldc = n;
      p.isa = &isa();
      StaticThreadPool pool(threads);
      std::vector<float> scratch(GemmF32ScratchBytes(threads) / sizeof(float));
      const double flop = 2.0 * m * n * k;
      const int reps = std::max(2, static_cast<int>(2e9 / flop));
      GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);  // warm up
      // One thread: the thread's CPU time (robust on a busy machine); two: wall time.
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = ThreadCpuSeconds();
      for (int r = 0; r < reps; ++r) GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);
      const double s = threads == 1 ? ThreadCpuSeconds() - c0
                                    : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("GemmF32 %s %lldx%lldx%lld threads=%d: %.2f GFLOP/s (%s time)\n", isa().name,
                  static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), threads,
                  flop * reps / s / 1e9, threads == 1 ? "cpu" : "wall");
    }
  }
}

// GFLOP/s of `run` at `threads` threads: the thread's CPU time at one thread
// (robust on a busy machine), wall time at two.
template <typename Run>
double MeasureGflops(double flop, int threads, Run run) {
  const int reps = std::max(3, static_cast<int>(1e9 / flop));
  run();  // warm up
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = ThreadCpuSeconds();
  for (int r = 0; r < reps; ++r) run();
  const double s = threads == 1 ? ThreadCpuSeconds() - c0
                                : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return flop * reps / s / 1e9;
}

// ViT-B/16's products at batch 1 (197 tokens, width 768, MLP 3072): the four
// weight GEMMs (QKV, projection, FC1, FC2; B constant and packed ahead of
// time, bias fused, as MatMul / Gemm run them) and the attention's batched
// products (12 heads: Q K^T and softmax(..) V, both operands computed).
// Percent of a peak of LOOM_PEAK_GFLOPS per thread (default 102.4: two 8-lane
// FMAs per cycle at 3.2 GHz).
TEST_P(GemmF32Test, VitThroughput) {
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  const char* peak_env = std::getenv("LOOM_PEAK_GFLOPS");
  const double peak = peak_env ? std::atof(peak_env) : 102.4;
  const int64_t tokens = 197;
  const int64_t weights[][2] = {{768, 2304}, {768, 768}, {768, 3072}, {3072, 768}};  // K x N
  for (const auto& w : weights) {
    const int64_t m = tokens, k = w[0], n = w[1];
    const auto a = Random(m * k, 1), b = Random(k * n, 2), bias = Random(n, 3);
    std::vector<float> c(m * n);
    PackedMatrixF32 pb;
    pb.PackB(b.data(), n, false, k, n, isa());
    GemmF32Params p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.a = a.data();
    p.lda = k;
    p.packed_b = &pb;
    p.c = c.data();
    p.ldc = n;
    p.col_bias = bias.data();
    p.isa = &isa();
    for (int threads : {1, 2}) {
      StaticThreadPool pool(threads);
      std::vector<float> scratch(GemmF32ScratchBytes(threads) / sizeof(float));
      const double g =
          MeasureGflops(2.0 * m * n * k, threads, [&] { GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr); });
      std::printf("GemmF32 %s vit %lldx%lldx%lld packed B threads=%d: %.1f GFLOP/s, %.0f%% of peak\n", isa().name,
                  static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), threads, g,
                  100.0 * g / (peak * threads));
    }
  }
  // Per head: [197 x 64] x [64 x 197] (B = K^T, given transposed) and
  // [197 x 197] x [197 x 64].
  const int64_t heads = 12, dim = 64;
  const int64_t attention[][3] = {{tokens, tokens, dim}, {tokens, dim, tokens}};  // M, N, K
  for (const auto& s : attention) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const bool trans_b = n == tokens;
    const auto a = Random(heads * m * k, 1), b = Random(heads * k * n, 2);
    std::vector<float> c(heads * m * n);
    for (int threads : {1, 2}) {
      StaticThreadPool pool(threads);
      std::vector<float> scratch(GemmF32ScratchBytes(threads) / sizeof(float));
      const double g = MeasureGflops(2.0 * heads * m * n * k, threads, [&] {
        for (int64_t h = 0; h < heads; ++h) {
          GemmF32Params p;
          p.m = m;
          p.n = n;
          p.k = k;
          p.a = a.data() + h * m * k;
          p.lda = k;
          p.b = b.data() + h * k * n;
          p.ldb = trans_b ? k : n;
          p.trans_b = trans_b;
          p.c = c.data() + h * m * n;
          p.ldc = n;
          p.isa = &isa();
          GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);
        }
      });
      std::printf("GemmF32 %s vit attention %lld x %lldx%lldx%lld%s threads=%d: %.1f GFLOP/s, %.0f%% of peak\n",
                  isa().name, static_cast<long long>(heads), static_cast<long long>(m), static_cast<long long>(n),
                  static_cast<long long>(k), trans_b ? " (B^T)" : "", threads, g, 100.0 * g / (peak * threads));
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
