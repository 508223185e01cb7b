// Test helpers for loom.ConvNchwc and loom.ConvNchwcStem (conv_nchwc_test.cc,
// conv_nchwc_winograd_test.cc): a Case (shapes, window, epilogue, threads)
// checked against the NCHW Conv kernel on the same problem, with the data
// blocked here, and running one loom op.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/nn/nchwc_vector.h"
#include "kernels/cpu/testing/kernel_tester.h"
#include "kernels/cpu/testing/nchwc_layout.h"

namespace loom {
namespace nn {
namespace conv_nchwc_test {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

inline constexpr int64_t kB = kNchwcBlock;

inline std::vector<float> Random(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*rng);
  return v;
}

// NCHW [n, c, hw] -> [n, c/8, hw, 8].
inline std::vector<float> Blocked(const std::vector<float>& x, int64_t n, int64_t c, int64_t hw) {
  return testing::ToNchwcLayout(x, n, c, hw);
}

// OIHW -> [Cout/8, Cin/8, KH, KW, 8 (ci), 8 (co)].
inline std::vector<float> BlockedWeights(const std::vector<float>& w, int64_t cout, int64_t cin, int64_t taps) {
  std::vector<float> y(w.size());
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t i = 0; i < cin; ++i)
      for (int64_t t = 0; t < taps; ++t)
        y[(((o / kB) * (cin / kB) + i / kB) * taps + t) * kB * kB + (i % kB) * kB + o % kB] =
            w[(o * cin + i) * taps + t];
  return y;
}

// OIHW -> loom.ConvNchwcStem's [Cout/8, Cin, KH, KW, 8 (co)].
inline std::vector<float> StemWeights(const std::vector<float>& w, int64_t cout, int64_t cin, int64_t taps) {
  std::vector<float> y(w.size());
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t i = 0; i < cin; ++i)
      for (int64_t t = 0; t < taps; ++t)
        y[(((o / kB) * cin + i) * taps + t) * kB + o % kB] = w[(o * cin + i) * taps + t];
  return y;
}

struct Case {
  bool stem = false;  // loom.ConvNchwcStem: X stays NCHW, any Cin
  int64_t n = 1, cin = 8, cout = 8, h = 1, w = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
  bool bias = false, residual = false;
  bool scale = false;      // loom.input_scale: X's channels scaled per image (not the stem)
  bool runtime_w = false;  // W an ordinary input, not a constant (no Winograd; paired in Run)
  int winograd = -1;       // loom.winograd (0: direct, 2 or 4: the Winograd tile); -1: unset
  std::string act;         // empty or a fused activation (Clip: [-0.25, 0.5])
  int threads = 1;

  int64_t OutH() const { return (h + pads[0] + pads[2] - dh * (kh - 1) - 1) / sh + 1; }
  int64_t OutW() const { return (w + pads[1] + pads[3] - dw * (kw - 1) - 1) / sw + 1; }
  bool Valid() const {
    return h + pads[0] + pads[2] >= dh * (kh - 1) + 1 && w + pads[1] + pads[3] >= dw * (kw - 1) + 1;
  }
  std::string Describe() const {
    return std::string(stem ? "stem " : "") + "N" + std::to_string(n) + " " + std::to_string(cin) + "->" +
           std::to_string(cout) + " " + std::to_string(h) + "x" + std::to_string(w) + " k" + std::to_string(kh) + "x" +
           std::to_string(kw) + " s" + std::to_string(sh) + std::to_string(sw) + " d" + std::to_string(dh) +
           std::to_string(dw) + " pads " + std::to_string(pads[0]) + "," + std::to_string(pads[1]) + "," +
           std::to_string(pads[2]) + "," + std::to_string(pads[3]) + " bias " + std::to_string(bias) + " residual " +
           std::to_string(residual) + (scale ? " scale" : "") + (runtime_w ? " runtime W" : "") +
           (winograd >= 0 ? " loom.winograd " + std::to_string(winograd) : "") + " act '" + act + "' threads " +
           std::to_string(threads);
  }
};

inline Attributes Attrs(const Case& c) {
  Attributes a;
  a.SetInts("kernel_shape", {c.kh, c.kw});
  a.SetInts("strides", {c.sh, c.sw});
  a.SetInts("dilations", {c.dh, c.dw});
  a.SetInts("pads", {c.pads[0], c.pads[1], c.pads[2], c.pads[3]});
  if (!c.act.empty()) a.SetString("loom.activation", c.act);
  if (c.act == "Clip") {
    a.SetFloat("loom.activation_min", -0.25f);
    a.SetFloat("loom.activation_max", 0.5f);
  }
  if (c.residual) a.SetInt("loom.residual", 1);
  if (c.scale) a.SetInt("loom.input_scale", 1);
  if (c.winograd >= 0) a.SetInt("loom.winograd", c.winograd);
  return a;
}

// The op's X and W from NCHW x and OIHW w: blocked, or for the stem x as it
// is and W [Cout/8, Cin, KH, KW, 8].
inline std::vector<TestTensor> KernelInputs(const Case& c, const std::vector<float>& x, const std::vector<float>& w) {
  const int64_t taps = c.kh * c.kw;
  auto weights = [&](Shape shape, const std::vector<float>& v) {
    return c.runtime_w ? TestTensor::Of<float>(shape, v) : TestTensor::Const<float>(shape, v);
  };
  if (c.stem)
    return {TestTensor::Of<float>({c.n, c.cin, c.h, c.w}, x),
            weights({c.cout / kB, c.cin, c.kh, c.kw, kB}, StemWeights(w, c.cout, c.cin, taps))};
  return {TestTensor::Of<float>({c.n, c.cin / kB, c.h, c.w, kB}, Blocked(x, c.n, c.cin, c.h * c.w)),
          weights({c.cout / kB, c.cin / kB, c.kh, c.kw, kB, kB}, BlockedWeights(w, c.cout, c.cin, taps))};
}

inline const char* OpOf(const Case& c) { return c.stem ? "ConvNchwcStem" : "ConvNchwc"; }

inline RunOptions Options(int threads, const char* domain) {
  RunOptions o;
  o.threads = threads;
  o.domain = domain;
  return o;
}

// direct_reference: the reference Conv runs without Winograd.
inline void Check(const Case& c, std::mt19937* rng, bool direct_reference = false) {
  SCOPED_TRACE(c.Describe());
  const int64_t oh = c.OutH(), ow = c.OutW(), taps = c.kh * c.kw;
  const std::vector<float> x = Random(c.n * c.cin * c.h * c.w, rng), w = Random(c.cout * c.cin * taps, rng),
                           b = Random(c.cout, rng), r = Random(c.n * c.cout * oh * ow, rng);
  const Shape y_shape = {c.n, c.cout, oh, ow};
  // With c.scale the reference Conv reads X * S, the kernel X and S.
  std::vector<float> s(static_cast<size_t>(c.n * c.cin)), x_scaled = x;
  if (c.scale) {
    std::uniform_real_distribution<float> dist(0.f, 1.f);  // a sigmoid's range
    for (float& v : s) v = dist(*rng);
    for (size_t i = 0; i < x.size(); ++i) x_scaled[i] *= s[i / static_cast<size_t>(c.h * c.w)];
  }
  std::vector<TestTensor> in = {TestTensor::Of<float>({c.n, c.cin, c.h, c.w}, x_scaled),
                                TestTensor::Const<float>({c.cout, c.cin, c.kh, c.kw}, w)};
  std::vector<TestTensor> in_b = KernelInputs(c, x, w);
  if (c.bias || c.residual || c.scale) {
    in.push_back(c.bias ? TestTensor::Of<float>({c.cout}, b) : TestTensor::Absent());
    in_b.push_back(in.back());
  }
  if (c.residual) {
    in.push_back(TestTensor::Of<float>(y_shape, r));
    in_b.push_back(TestTensor::Of<float>({c.n, c.cout / kB, oh, ow, kB}, Blocked(r, c.n, c.cout, oh * ow)));
  } else if (c.scale) {
    in_b.push_back(TestTensor::Absent());
  }
  if (c.scale) in_b.push_back(TestTensor::Of<float>({c.n, c.cin / kB, 1, 1, kB}, Blocked(s, c.n, c.cin, 1)));
  std::vector<TestTensor> want = {TestTensor::Empty(DType::kFloat32, y_shape)};
  Attributes ref_attrs = Attrs(c);
  ref_attrs.Erase("loom.input_scale");
  ref_attrs.Erase("loom.winograd");
  if (direct_reference) setenv("LOOM_CONV_WINOGRAD", "0", 1);
  Status st = RunKernel("Conv", ref_attrs, in, &want);
  if (direct_reference) unsetenv("LOOM_CONV_WINOGRAD");
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<TestTensor> got = {TestTensor::Empty(DType::kFloat32, {c.n, c.cout / kB, oh, ow, kB})};
  st = RunKernel(OpOf(c), Attrs(c), in_b, &got, Options(c.threads, "loom"));
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<float> ref = Blocked(want[0].As<float>(), c.n, c.cout, oh * ow), y = got[0].As<float>();
  ASSERT_EQ(y.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(y[i], ref[i], 2e-4 * (1 + std::fabs(ref[i]))) << "at " << i;
}

// A square layer of a network: Cin -> Cout at hw x hw, k x k, stride s, pads
// pad, batch n.
struct Layer {
  int64_t cin, cout, hw, k, s, pad;
  int64_t n = 1;
};

inline Case LayerCase(const Layer& l, const char* act, int threads) {
  Case c;
  c.n = l.n;
  c.cin = l.cin;
  c.cout = l.cout;
  c.h = c.w = l.hw;
  c.kh = c.kw = l.k;
  c.sh = c.sw = l.s;
  for (int64_t& p : c.pads) p = l.pad;
  c.bias = true;
  c.act = act;
  c.threads = threads;
  return c;
}

// The loom op `op` on one thread, with an output of `out`'s shape.
inline Status RunOneThread(const char* op, const Attributes& a, const std::vector<TestTensor>& in, const Shape& out) {
  std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, out)};
  return RunKernel(op, a, in, &outs, Options(1, "loom"));
}

inline Attributes Window3x3Pad1() {
  Attributes a;
  a.SetInts("kernel_shape", {3, 3});
  a.SetInts("pads", {1, 1, 1, 1});
  return a;
}

}  // namespace conv_nchwc_test
}  // namespace nn
}  // namespace loom
