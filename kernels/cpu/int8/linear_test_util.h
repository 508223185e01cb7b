// Test helpers for the int8 Conv, Gemm and MatMul: random operands and
// quantization parameters that spread the outputs over the int8 range, the
// reference output stages (requantize.h, as the contract says), fused clamps,
// the naive int8 matrix product, and loops running a node on every GEMM
// implementation this CPU has (and 1 and 3 threads) against a reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/requantize.h"
#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace int8 {
namespace linear_test {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

inline std::vector<int8_t> RandomInt8(int64_t n, std::mt19937* gen, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(dist(*gen));
  return v;
}

inline std::vector<int32_t> RandomInt32(int64_t n, std::mt19937* gen, int64_t lo, int64_t hi) {
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& x : v) x = static_cast<int32_t>(dist(*gen));
  return v;
}

// A fused activation as the builder writes it (loom.activation*).
struct Clamp {
  enum Kind { kNone, kRelu, kClip } kind = kNone;
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};

inline Attributes WithClamp(Attributes a, const Clamp& c) {
  if (c.kind == Clamp::kRelu) a.SetString("loom.activation", "Relu");
  if (c.kind == Clamp::kClip) {
    a.SetString("loom.activation", "Clip");
    if (std::isfinite(c.lo)) a.SetFloat("loom.activation_min", c.lo);
    if (std::isfinite(c.hi)) a.SetFloat("loom.activation_max", c.hi);
  }
  return a;
}

// Quantization of a linear op with `channels` outputs reducing over `depth`
// inputs: random input parameters, per-channel (or one) weight scales, and an
// output scale that spreads the accumulators over the int8 range.
struct LinearQuant {
  float x_scale = 0.f;
  int32_t x_zero_point = 0;
  std::vector<float> w_scales;
  float y_scale = 0.f;
  int32_t y_zero_point = 0;
  Clamp clamp;

  // The reference output stage of channel c.
  requant::OutputStage Stage(int64_t c) const {
    const float inf = std::numeric_limits<float>::infinity();
    const float lo = clamp.kind == Clamp::kRelu ? 0.f : clamp.kind == Clamp::kClip ? clamp.lo : -inf;
    const float hi = clamp.kind == Clamp::kClip ? clamp.hi : inf;
    const requant::Range range = requant::ActivationRange(true, y_scale, y_zero_point, lo, hi);
    requant::OutputStage s;
    const float ws = w_scales.size() == 1 ? w_scales[0] : w_scales[static_cast<size_t>(c)];
    EXPECT_TRUE(requant::MakeOutputStage(x_scale, ws, y_scale, y_zero_point, range, &s).ok());
    return s;
  }
};

// The typical magnitude of an accumulator over `depth` random int8 products.
inline int64_t AccumulatorSpan(int64_t depth) {
  return static_cast<int64_t>(5476.0 * std::sqrt(static_cast<double>(std::max<int64_t>(depth, 1))));
}

inline LinearQuant RandomLinearQuant(int64_t channels, int64_t depth, bool per_channel, Clamp clamp,
                                     std::mt19937* gen) {
  LinearQuant q;
  q.x_scale = std::uniform_real_distribution<float>(0.01f, 0.1f)(*gen);
  q.x_zero_point = std::uniform_int_distribution<int>(-128, 127)(*gen);
  const float w_base = std::uniform_real_distribution<float>(0.002f, 0.02f)(*gen);
  std::uniform_real_distribution<float> spread(0.7f, 1.4f);
  q.w_scales.resize(per_channel ? static_cast<size_t>(channels) : 1);
  for (float& s : q.w_scales) s = w_base * spread(*gen);
  // |x · w| averages about 74 · 74 per term; aim at accumulators of +-60
  // steps, with room for padded taps reading the zero point.
  const float padded = 1.f + static_cast<float>(std::abs(q.x_zero_point)) / 128.f;
  q.y_scale = q.x_scale * w_base * static_cast<float>(AccumulatorSpan(depth)) * padded / 60.f;
  q.y_zero_point = std::uniform_int_distribution<int>(-40, 40)(*gen);
  q.clamp = clamp;
  return q;
}

// A random bias of the accumulators' magnitude.
inline std::vector<int32_t> RandomBias(int64_t channels, int64_t depth, std::mt19937* gen) {
  return RandomInt32(channels, gen, -AccumulatorSpan(depth), AccumulatorSpan(depth));
}

// A wrapping int32 add, as the kernels add the bias.
inline int32_t Wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

// Options running `op`'s int8 kernel itself, so a refusal shows.
inline RunOptions Int8Options(const std::string& op, int threads = 1) {
  RunOptions o;
  o.kernel_id = "cpu." + op + ".int8";
  o.threads = threads;
  return o;
}

// Runs `body` once with each GEMM implementation selected, then restores the default.
inline void ForEachGemmImpl(const std::function<void()>& body) {
  const GemmS8Impl saved = ActiveGemmS8Impl();
  for (GemmS8Impl impl : AvailableGemmS8Impls()) {
    SCOPED_TRACE(std::string("gemm impl ") + GemmS8ImplName(impl));
    ASSERT_TRUE(SetGemmS8Impl(impl));
    body();
  }
  SetGemmS8Impl(saved);
}

// Checks that reference outputs spread over the int8 range (a test whose
// outputs all clamp to one value would prove little): mostly not saturated.
inline void ExpectSpread(const std::vector<int8_t>& y) {
  if (y.size() < 64) return;
  size_t extreme = 0;
  std::vector<bool> seen(256, false);
  for (int8_t v : y) {
    extreme += v == -128 || v == 127;
    seen[static_cast<size_t>(v + 128)] = true;
  }
  EXPECT_LT(extreme * 4, y.size()) << "most reference outputs saturate";
  EXPECT_GT(std::count(seen.begin(), seen.end(), true), 16) << "reference outputs take few values";
}

// Index of the first difference of two equal-sized vectors, or -1.
template <typename T>
int64_t FirstDifference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  return -1;
}

// Y[i][j] = requantize_j(bias[j] + sum_k a[i][k] · b[k][j]); a [m, k], b [k, n].
inline std::vector<int8_t> ReferenceProduct(int64_t m, int64_t k, int64_t n, const std::vector<int8_t>& a,
                                            const std::vector<int8_t>& b, const std::vector<int32_t>& bias,
                                            const LinearQuant& q) {
  std::vector<int8_t> y(static_cast<size_t>(m * n));
  for (int64_t j = 0; j < n; ++j) {
    const requant::OutputStage stage = q.Stage(j);
    for (int64_t i = 0; i < m; ++i) {
      int64_t acc = 0;
      for (int64_t kk = 0; kk < k; ++kk) acc += int64_t{a[i * k + kk]} * b[kk * n + j];
      y[i * n + j] = static_cast<int8_t>(requant::Requantize(Wrap(acc + bias[j]), stage));
    }
  }
  return y;
}

inline std::vector<int8_t> Transpose(const std::vector<int8_t>& b, int64_t k, int64_t n) {
  std::vector<int8_t> t(b.size());
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) t[j * k + kk] = b[kk * n + j];
  return t;
}

// Runs `op` on every implementation and thread count and compares with `want`.
inline void ExpectRuns(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                       const Shape& out_shape, const LinearQuant& q, const std::vector<int8_t>& want) {
  ForEachGemmImpl([&] {
    for (int threads : {1, 3}) {
      std::vector<TestTensor> outs = {
          TestTensor::Empty(DType::kInt8, out_shape).WithQuant({q.y_scale}, {q.y_zero_point})};
      const Status st = RunKernel(op, WithClamp(attrs, q.clamp), inputs, &outs, Int8Options(op, threads));
      ASSERT_TRUE(st.ok()) << st.ToString();
      const auto got = outs[0].As<int8_t>();
      const int64_t diff = FirstDifference(got, want);
      ASSERT_EQ(diff, -1) << "threads=" << threads << " at " << diff << ": got " << int{got[diff]} << " want "
                          << int{want[diff]};
    }
  });
}

}  // namespace linear_test
}  // namespace int8
}  // namespace loom
