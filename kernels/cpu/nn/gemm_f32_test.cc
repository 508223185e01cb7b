#include "kernels/cpu/nn/gemm_f32.h"

#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <random>
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

struct Case {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

// Naive C = alpha*op(A)*op(B) + beta*C + bias, in double.
std::vector<float> Reference(const Case& c, const std::vector<float>& a, const std::vector<float>& b,
                             const std::vector<float>& c0, const float* row_bias, const float* col_bias) {
  std::vector<float> out(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < c.k; ++k) {
        const double av = c.ta ? a[k * c.m + i] : a[i * c.k + k];
        const double bv = c.tb ? b[j * c.k + k] : b[k * c.n + j];
        s += av * bv;
      }
      double v = c.alpha * s + (c.beta == 0 ? 0.0 : c.beta * c0[i * c.n + j]);
      if (row_bias) v += row_bias[i];
      if (col_bias) v += col_bias[j];
      out[i * c.n + j] = static_cast<float>(v);
    }
  return out;
}

enum class Source { kPlain, kPacked, kCallback };

void RunCase(const Case& c, int threads, Source source, bool bias) {
  SCOPED_TRACE(::testing::Message() << c.m << "x" << c.n << "x" << c.k << " ta=" << c.ta << " tb=" << c.tb
                                  << " threads=" << threads << " source=" << static_cast<int>(source));
  const auto a = Random(c.m * c.k, 1), b = Random(c.k * c.n, 2), c0 = Random(c.m * c.n, 3);
  const auto rb = Random(c.m, 4), cb = Random(c.n, 5);
  std::vector<float> out = c0;
  GemmF32Params p;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.alpha = c.alpha;
  p.beta = c.beta;
  const int64_t lda = c.ta ? c.m : c.k, ldb = c.tb ? c.k : c.n;
  PackedMatrixF32 pa, pb;
  // Plain B read through a callback that packs like the core does.
  auto pack_lambda = [&](int64_t k0, int64_t kc, int64_t n0, int64_t nc, float* dst) {
    for (int64_t q = 0; q < nc; q += kGemmNr)
      for (int64_t kk = 0; kk < kc; ++kk)
        for (int j = 0; j < kGemmNr; ++j) {
          const int64_t col = n0 + q + j, row = k0 + kk;
          dst[q * kc + kk * kGemmNr + j] =
              q + j < nc ? (c.tb ? b[col * c.k + row] : b[row * c.n + col]) : 0.f;
        }
  };
  GemmPackBFn pack_fn = pack_lambda;
  if (source == Source::kPacked) {
    pa.PackA(a.data(), lda, c.ta, c.m, c.k);
    pb.PackB(b.data(), ldb, c.tb, c.k, c.n);
    p.packed_a = &pa;
    p.packed_b = &pb;
  } else {
    p.a = a.data();
    p.lda = lda;
    p.trans_a = c.ta;
    if (source == Source::kCallback) {
      p.pack_b = &pack_fn;
    } else {
      p.b = b.data();
      p.ldb = ldb;
      p.trans_b = c.tb;
    }
  }
  p.c = out.data();
  p.ldc = c.n;
  if (bias) {
    p.row_bias = rb.data();
    p.col_bias = cb.data();
  }
  StaticThreadPool pool(threads);
  std::vector<float> scratch(GemmF32ScratchBytes(threads) / sizeof(float));
  GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);
  const auto ref = Reference(c, a, b, c0, bias ? rb.data() : nullptr, bias ? cb.data() : nullptr);
  ASSERT_EQ(out.size(), ref.size());
  const double tol = 1e-5 * (c.k + 1);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[i], ref[i], tol) << "at " << i;
}

TEST(GemmF32, MatchesReferenceOnEdgeShapes) {
  const std::vector<Case> cases = {
      {1, 1, 1, false, false, 1.f, 0.f},     {3, 5, 7, false, false, 1.f, 0.f},
      {4, 8, 16, false, false, 1.f, 1.f},    {17, 13, 300, true, false, 0.5f, 2.f},
      {33, 70, 9, false, true, -1.f, 0.f},   {5, 1100, 20, true, true, 1.f, 0.25f},
      {131, 9, 513, false, false, 1.f, 0.f}, {64, 200, 64, true, true, 2.f, 1.f},
  };
  for (const Case& c : cases)
    for (int threads : {1, 2})
      for (Source s : {Source::kPlain, Source::kPacked, Source::kCallback})
        for (bool bias : {false, true}) RunCase(c, threads, s, bias);
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
  const auto ref = Reference({20, 10, 30, false, false, 1.f, 0.f}, a, b, c, nullptr, nullptr);
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(c[i], std::min(0.25f, std::max(-0.5f, ref[i])), 1e-4);
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

// Throughput report (no assertion on speed: the machine is shared).
TEST(GemmF32, Throughput) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  for (int64_t size : {256, 1024}) {
    for (int threads : {1, 2}) {
      const auto a = Random(size * size, 1), b = Random(size * size, 2);
      std::vector<float> c(size * size);
      GemmF32Params p;
      p.m = p.n = p.k = size;
      p.a = a.data();
      p.lda = size;
      p.b = b.data();
      p.ldb = size;
      p.c = c.data();
      p.ldc = size;
      StaticThreadPool pool(threads);
      std::vector<float> scratch(GemmF32ScratchBytes(threads) / sizeof(float));
      const int reps = size == 256 ? 20 : 2;
      GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);  // warm up
      // One thread: the thread's CPU time (robust on a busy machine); two: wall time.
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = ThreadCpuSeconds();
      for (int r = 0; r < reps; ++r) GemmF32(p, scratch.data(), threads > 1 ? &pool : nullptr);
      const double s = threads == 1 ? ThreadCpuSeconds() - c0
                                    : std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("GemmF32 %lldx%lldx%lld threads=%d: %.2f GFLOP/s (%s time)\n", static_cast<long long>(size),
                  static_cast<long long>(size), static_cast<long long>(size), threads,
                  2.0 * size * size * size * reps / s / 1e9, threads == 1 ? "cpu" : "wall");
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
