// loom.DepthwiseConvNchwc (conv_nchwc_depthwise.h) against the plain float32
// Conv kernel with group = C on the same data in NCHW: random windows
// (1x1 to 7x7, strides 1 and 2, symmetric and asymmetric pads, dilation 2),
// bias, residual and fused activations, N = 1 and 2, 8 to 96 channels, on
// every instruction-set path and 1 to 3 threads; then the registered kernel
// and its refusal of malformed nodes.
#include "kernels/cpu/nn/conv_nchwc_depthwise.h"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"
#include "kernels/cpu/testing/kernel_tester.h"
#include "kernels/cpu/testing/nchwc_layout.h"

namespace loom {
namespace nn {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

constexpr int64_t kB = kNchwcBlock;

struct Case {
  int64_t n = 1, c = 8, h = 1, w = 1;
  int64_t kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  bool bias = false, residual = false;
  Activation act;

  int64_t OutH() const { return (h + pt + pb - (kh - 1) * dh - 1) / sh + 1; }
  int64_t OutW() const { return (w + pl + pr - (kw - 1) * dw - 1) / sw + 1; }
  bool Valid() const { return h + pt + pb >= (kh - 1) * dh + 1 && w + pl + pr >= (kw - 1) * dw + 1; }
  std::string Describe() const {
    char s[200];
    std::snprintf(s, sizeof(s),
                  "N%lld C%lld %lldx%lld k%lldx%lld s%lld,%lld d%lld,%lld pads %lld,%lld,%lld,%lld "
                  "bias %d residual %d act %d",
                  (long long)n, (long long)c, (long long)h, (long long)w, (long long)kh, (long long)kw, (long long)sh,
                  (long long)sw, (long long)dh, (long long)dw, (long long)pt, (long long)pl, (long long)pb,
                  (long long)pr, bias, residual, static_cast<int>(act.kind));
    return s;
  }
};

std::vector<float> Random(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*rng);
  return v;
}

// NCHW [n, c, h, w] -> NCHW8c [n, c/8, h, w, 8] (empty stays empty).
std::vector<float> ToBlocked(const std::vector<float>& x, int64_t n, int64_t c, int64_t h, int64_t w) {
  return testing::ToNchwcLayout(x, n, c, h * w);
}

Activation MakeActivation(ActivationKind kind) {
  Activation a;
  a.kind = kind;
  if (kind == ActivationKind::kClip) {
    a.min = -0.25f;
    a.max = 0.5f;
  } else if (kind == ActivationKind::kLeakyRelu) {
    a.alpha = 0.1f;
  } else if (kind == ActivationKind::kHardSigmoid || kind == ActivationKind::kHardSwish) {
    a.alpha = 0.25f;
    a.beta = 0.4f;
  } else if (kind == ActivationKind::kSwish) {
    a.alpha = 1.5f;
  }
  return a;
}

// The node attributes of case c (Conv's, plus group when `group`).
Attributes Attrs(const Case& c, bool group) {
  Attributes a;
  a.SetInts("kernel_shape", {c.kh, c.kw});
  a.SetInts("strides", {c.sh, c.sw});
  a.SetInts("dilations", {c.dh, c.dw});
  a.SetInts("pads", {c.pt, c.pl, c.pb, c.pr});
  if (group) a.SetInt("group", c.c);
  if (c.residual) a.SetInt("loom.residual", 1);
  const char* names[] = {"", "Relu", "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Swish"};
  if (!c.act.none()) {
    a.SetString("loom.activation", names[static_cast<int>(c.act.kind)]);
    if (c.act.kind == ActivationKind::kClip) {
      a.SetFloat("loom.activation_min", c.act.min);
      a.SetFloat("loom.activation_max", c.act.max);
    } else {
      a.SetFloat("loom.activation_alpha", c.act.alpha);
      a.SetFloat("loom.activation_beta", c.act.beta);
    }
  }
  return a;
}

// A case's data in both layouts and the Conv kernel's result, blocked.
struct Data {
  std::vector<float> x, w, b, r;        // NCHW, OIHW, [C], NCHW
  std::vector<float> xb, wb, rb, want;  // blocked
};

Data MakeData(const Case& c, std::mt19937* rng) {
  Data d;
  const int64_t oh = c.OutH(), ow = c.OutW();
  d.x = Random(static_cast<size_t>(c.n * c.c * c.h * c.w), rng);
  d.w = Random(static_cast<size_t>(c.c * c.kh * c.kw), rng);
  d.b = Random(static_cast<size_t>(c.c), rng);
  d.r = Random(c.residual ? static_cast<size_t>(c.n * c.c * oh * ow) : 0, rng);
  d.xb = ToBlocked(d.x, c.n, c.c, c.h, c.w);
  d.wb = ToBlocked(d.w, 1, c.c, c.kh, c.kw);  // [C/8, KH, KW, 8]
  d.rb = ToBlocked(d.r, c.n, c.c, oh, ow);
  std::vector<TestTensor> in = {TestTensor::Of<float>({c.n, c.c, c.h, c.w}, d.x),
                                TestTensor::Const<float>({c.c, 1, c.kh, c.kw}, d.w),
                                c.bias ? TestTensor::Of<float>({c.c}, d.b) : TestTensor::Absent()};
  if (c.residual) in.push_back(TestTensor::Of<float>({c.n, c.c, oh, ow}, d.r));
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {c.n, c.c, oh, ow})};
  const Status st = RunKernel("Conv", Attrs(c, true), in, &out);
  EXPECT_TRUE(st.ok()) << c.Describe() << ": " << st.ToString();
  d.want = ToBlocked(out[0].As<float>(), c.n, c.c, oh, ow);
  return d;
}

DepthwiseNchwcGeometry Geometry(const Case& c) {
  DepthwiseNchwcGeometry g;
  g.batch = c.n;
  g.blocks = c.c / kB;
  g.in_h = c.h;
  g.in_w = c.w;
  g.out_h = c.OutH();
  g.out_w = c.OutW();
  g.kernel_h = c.kh;
  g.kernel_w = c.kw;
  g.stride_h = c.sh;
  g.stride_w = c.sw;
  g.dilation_h = c.dh;
  g.dilation_w = c.dw;
  g.pad_top = c.pt;
  g.pad_left = c.pl;
  return g;
}

// Runs c on `isa` with `threads` threads; checks the output and the guard
// floats around it.
void Check(const Case& c, const Data& d, const DepthwiseNchwcIsa& isa, int threads) {
  const DepthwiseConvNchwc conv(Geometry(c), c.act, isa);
  constexpr size_t kGuard = 64;
  const float sentinel = 12345.f;
  std::vector<float> y(d.want.size() + 2 * kGuard, sentinel);
  StaticThreadPool pool(threads);
  conv.Run(d.xb.data(), d.wb.data(), c.bias ? d.b.data() : nullptr, c.residual ? d.rb.data() : nullptr,
           y.data() + kGuard, &pool);
  const std::string what = c.Describe() + " on " + isa.name + ", threads " + std::to_string(threads);
  for (size_t i = 0; i < kGuard; ++i) {
    ASSERT_EQ(y[i], sentinel) << what << " wrote before y";
    ASSERT_EQ(y[kGuard + d.want.size() + i], sentinel) << what << " wrote after y";
  }
  const double tol = 2e-6 * static_cast<double>(3 + c.kh * c.kw);
  for (size_t i = 0; i < d.want.size(); ++i) ASSERT_NEAR(y[kGuard + i], d.want[i], tol) << what << " at " << i;
}

Case RandomCase(std::mt19937* rng) {
  Case c;
  c.n = 1 + static_cast<int64_t>((*rng)() % 4 == 0);
  c.c = kB * (1 + (*rng)() % 12);
  const int64_t sizes[] = {1, 2, 3, 5, 7, 8, 9, 11, 14, 16, 19, 23, 29};
  c.h = sizes[(*rng)() % 13];
  c.w = (*rng)() % 3 == 0 ? c.h : sizes[(*rng)() % 13];
  const int64_t kernels[] = {1, 3, 3, 3, 5, 5, 7, 2};
  c.kh = kernels[(*rng)() % 8];
  c.kw = (*rng)() % 6 == 0 ? kernels[(*rng)() % 8] : c.kh;
  c.sh = 1 + (*rng)() % 2;
  c.sw = (*rng)() % 5 == 0 ? 3 - c.sh : c.sh;
  if ((*rng)() % 6 == 0) (c.dh = 2, c.dw = 1 + (*rng)() % 2);
  if ((*rng)() % 8 == 0) c.sw = 3;
  const int64_t p = c.kh / 2;
  if ((*rng)() % 2 == 0) {
    c.pt = c.pl = c.pb = c.pr = p * c.dh;  // symmetric "same"
  } else {
    c.pt = (*rng)() % (c.kh + 1);
    c.pl = (*rng)() % (c.kw + 1);
    c.pb = (*rng)() % (c.kh + 1);
    c.pr = (*rng)() % (c.kw + 1);
  }
  c.bias = (*rng)() % 2 == 0;
  c.residual = (*rng)() % 3 == 0;
  c.act = MakeActivation(static_cast<ActivationKind>((*rng)() % 9));
  return c;
}

class DepthwiseConvNchwcTest : public ::testing::TestWithParam<const DepthwiseNchwcIsa*> {};

std::string IsaName(const ::testing::TestParamInfo<const DepthwiseNchwcIsa*>& info) { return info.param->name; }

INSTANTIATE_TEST_SUITE_P(Isas, DepthwiseConvNchwcTest, ::testing::ValuesIn(SupportedDepthwiseNchwcIsas()), IsaName);

// Calls check(c, d, iter) on `iters` random cases c with their data d, until
// a failure; returns how many ran.
template <typename F>
int ForRandomCases(uint32_t seed, int iters, F check) {
  std::mt19937 rng(seed);
  int checked = 0;
  for (int iter = 0; iter < iters; ++iter) {
    const Case c = RandomCase(&rng);
    if (!c.Valid()) continue;
    const Data d = MakeData(c, &rng);
    if (::testing::Test::HasFailure()) break;
    check(c, d, iter);
    if (::testing::Test::HasFatalFailure()) break;
    ++checked;
  }
  return checked;
}

TEST_P(DepthwiseConvNchwcTest, MatchesConvOnRandomShapes) {
  const int checked = ForRandomCases(
      2024, 300, [&](const Case& c, const Data& d, int iter) { Check(c, d, *GetParam(), 1 + iter % 3); });
  EXPECT_GT(checked, 250);
}

TEST_P(DepthwiseConvNchwcTest, MatchesConvOnNetworkShapes) {
  std::mt19937 rng(7);
  struct Layer {
    int64_t c, h, k, s, pad_begin, pad_end;
  };
  for (const Layer& s : {Layer{32, 112, 3, 1, 1, 1}, Layer{96, 112, 3, 2, 0, 1}, Layer{144, 56, 3, 1, 1, 1},
                         Layer{144, 56, 3, 2, 1, 1}, Layer{240, 28, 5, 2, 1, 2}, Layer{672, 14, 5, 1, 2, 2},
                         Layer{960, 7, 3, 1, 1, 1}, Layer{1152, 7, 5, 1, 2, 2}, Layer{576, 14, 3, 2, 0, 1}}) {
    Case c;
    c.c = s.c;
    c.h = c.w = s.h;
    c.kh = c.kw = s.k;
    c.sh = c.sw = s.s;
    c.pt = c.pl = s.pad_begin;
    c.pb = c.pr = s.pad_end;
    c.bias = true;
    c.residual = s.s == 1;
    c.act = MakeActivation(s.k == 5 ? ActivationKind::kSwish : ActivationKind::kClip);
    const Data d = MakeData(c, &rng);
    if (HasFailure()) return;
    for (int threads = 1; threads <= 2; ++threads) {
      Check(c, d, *GetParam(), threads);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(DepthwiseConvNchwc, InteriorColumnsReadOnlyTheInput) {
  Case c;
  c.w = 10;
  c.kw = 3;
  c.pl = c.pr = 1;
  DepthwiseNchwcGeometry g = Geometry(c);
  FinishDepthwiseNchwcGeometry(&g);
  EXPECT_EQ(g.interior_begin, 1);
  EXPECT_EQ(g.interior_end, 9);
  c.sw = 2;  // out 5: columns 1..4 read 1..9
  g = Geometry(c);
  FinishDepthwiseNchwcGeometry(&g);
  EXPECT_EQ(g.interior_begin, 1);
  EXPECT_EQ(g.interior_end, 5);
  c.w = 2;  // a window wider than the input: no interior column
  c.kw = 5;
  c.sw = 1;
  c.pl = c.pr = 2;
  g = Geometry(c);
  FinishDepthwiseNchwcGeometry(&g);
  EXPECT_EQ(g.interior_begin, g.interior_end);
}

TEST(DepthwiseConvNchwc, ActivePathFollowsTheGemm) {
  const std::string gemm = ActiveGemmF32Isa().name;
  bool avx2 = false, avx512 = false;
  for (const DepthwiseNchwcIsa* isa : SupportedDepthwiseNchwcIsas()) {
    avx2 = avx2 || std::string(isa->name) == "avx2";
    avx512 = avx512 || std::string(isa->name) == "avx512";
  }
  std::string want = "generic";
  if (avx2 && (gemm == "avx2" || gemm == "avx512")) want = "avx2";
  if (avx512 && gemm == "avx512") want = "avx512";
  EXPECT_EQ(ActiveDepthwiseNchwcIsa().name, want) << "GEMM path " << gemm;
}

// The node's blocked inputs for case c.
std::vector<TestTensor> NodeInputs(const Case& c, const Data& d) {
  std::vector<TestTensor> in = {TestTensor::Of<float>({c.n, c.c / kB, c.h, c.w, kB}, d.xb),
                                TestTensor::Const<float>({c.c / kB, c.kh, c.kw, kB}, d.wb),
                                c.bias ? TestTensor::Of<float>({c.c}, d.b) : TestTensor::Absent()};
  if (c.residual) in.push_back(TestTensor::Of<float>({c.n, c.c / kB, c.OutH(), c.OutW(), kB}, d.rb));
  return in;
}

RunOptions LoomOptions(int threads) {
  RunOptions o;
  o.domain = "loom";
  o.threads = threads;
  return o;
}

TEST(DepthwiseConvNchwc, RegisteredKernelMatchesConv) {
  const int checked = ForRandomCases(55, 40, [](const Case& c, const Data& d, int iter) {
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {c.n, c.c / kB, c.OutH(), c.OutW(), kB})};
    // The group attribute is optional (it can only be C).
    const Status st = RunKernel("DepthwiseConvNchwc", Attrs(c, iter % 2 == 0), NodeInputs(c, d), &out,
                                LoomOptions(1 + iter % 2));
    ASSERT_TRUE(st.ok()) << c.Describe() << ": " << st.ToString();
    const std::vector<float> y = out[0].As<float>();
    ASSERT_EQ(y.size(), d.want.size());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], d.want[i], 1e-4) << c.Describe() << " at " << i;
  });
  EXPECT_GT(checked, 30);
}

TEST(DepthwiseConvNchwc, RefusesMalformedNodes) {
  std::mt19937 rng(3);
  Case c;
  c.c = 16;
  c.h = c.w = 6;
  c.pt = c.pl = c.pb = c.pr = 1;
  c.bias = true;
  const Data d = MakeData(c, &rng);
  const Shape out_shape = {1, 2, 6, 6, kB};
  // Runs the node with the inputs and attributes edited by `edit`; expects
  // an InvalidArgument whose message contains `message`.
  auto expect_invalid = [&](const std::string& message, auto edit) {
    std::vector<TestTensor> in = NodeInputs(c, d);
    Attributes attrs = Attrs(c, true);
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
    edit(&in, &attrs, &out);
    const Status st = RunKernel("DepthwiseConvNchwc", attrs, in, &out, LoomOptions(1));
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << message << ": " << st.ToString();
    EXPECT_NE(st.message().find(message), std::string::npos) << st.message();
  };
  using In = std::vector<TestTensor>;
  using Out = std::vector<TestTensor>;
  {  // the unedited node runs
    In in = NodeInputs(c, d);
    Out out = {TestTensor::Empty(DType::kFloat32, out_shape)};
    ASSERT_TRUE(RunKernel("DepthwiseConvNchwc", Attrs(c, true), in, &out, LoomOptions(1)).ok());
  }
  expect_invalid("has 1 inputs, expected", [](In* in, Attributes*, Out*) { in->resize(1); });
  expect_invalid("X has shape", [&](In* in, Attributes*, Out*) {
    (*in)[0] = TestTensor::Of<float>({1, 16, 6, 6}, d.x);  // NCHW, not blocked
  });
  expect_invalid("X has shape", [&](In* in, Attributes*, Out*) {
    (*in)[0] = TestTensor::Of<float>({1, 4, 6, 6, 4}, d.xb);  // blocks of 4
  });
  expect_invalid("X has dtype float64", [&](In* in, Attributes*, Out*) {
    (*in)[0] = TestTensor::Of<double>({1, 2, 6, 6, kB}, std::vector<double>(d.xb.begin(), d.xb.end()));
  });
  expect_invalid("W has shape", [&](In* in, Attributes*, Out*) {
    (*in)[1] = TestTensor::Const<float>({1, 3, 3, kB}, std::vector<float>(72));  // 1 block, X has 2
  });
  expect_invalid("W has shape", [&](In* in, Attributes*, Out*) {
    (*in)[1] = TestTensor::Const<float>({16, 1, 3, 3}, d.w);  // OIHW, not blocked
  });
  expect_invalid("B has dtype float32 and shape 8",
                 [&](In* in, Attributes*, Out*) { (*in)[2] = TestTensor::Of<float>({8}, std::vector<float>(8)); });
  expect_invalid("group 1", [](In*, Attributes* a, Out*) { a->SetInt("group", 1); });
  expect_invalid("kernel_shape", [](In*, Attributes* a, Out*) { a->SetInts("kernel_shape", {5, 5}); });
  expect_invalid("strides", [](In*, Attributes* a, Out*) { a->SetInts("strides", {0, 1}); });
  expect_invalid("pads", [](In*, Attributes* a, Out*) { a->SetInts("pads", {1, -1, 1, 1}); });
  expect_invalid("window extent", [](In*, Attributes* a, Out*) {
    a->SetInts("dilations", {4, 4});
    a->SetInts("pads", {0, 0, 0, 0});
  });
  expect_invalid("output 0 has shape", [&](In*, Attributes*, Out* out) {
    (*out)[0] = TestTensor::Empty(DType::kFloat32, {1, 16, 6, 6});
  });
  expect_invalid("loom.residual without a residual input",
                 [](In*, Attributes* a, Out*) { a->SetInt("loom.residual", 1); });
  expect_invalid("residual has shape", [&](In* in, Attributes* a, Out*) {
    a->SetInt("loom.residual", 1);
    in->push_back(TestTensor::Of<float>({1, 2, 3, 3, kB}, std::vector<float>(144)));
  });
  expect_invalid("fused Clip", [](In*, Attributes* a, Out*) {
    a->SetString("loom.activation", "Clip");
    a->SetFloat("loom.activation_min", 1.f);
    a->SetFloat("loom.activation_max", 0.f);
  });
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Median thread CPU time of `run` over many calls (milliseconds).
template <typename F>
double MedianMs(F run) {
  run();  // warm the caches
  std::vector<double> t;
  for (int rep = 0; rep < 101; ++rep) {
    const double c0 = ThreadCpuSeconds();
    run();
    t.push_back((ThreadCpuSeconds() - c0) * 1e3);
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

// MobileNetV2 / EfficientNet depthwise layers, one thread: each path of this
// kernel and the NCHW Conv kernel (the process's path) on the same problem.
TEST(DepthwiseConvNchwc, LayerTimings) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  struct Layer {
    int64_t c, h, k, s;
  };
  std::mt19937 rng(1);
  for (const Layer& l :
       {Layer{32, 112, 3, 1}, Layer{96, 112, 3, 2}, Layer{144, 56, 3, 1}, Layer{144, 56, 3, 2}, Layer{576, 14, 3, 2},
        Layer{960, 7, 3, 1}, Layer{240, 28, 5, 2}, Layer{672, 14, 5, 1}, Layer{1152, 7, 5, 1}}) {
    Case c;
    c.c = l.c;
    c.h = c.w = l.h;
    c.kh = c.kw = l.k;
    c.sh = c.sw = l.s;
    c.pt = c.pl = c.pb = c.pr = l.k / 2;
    c.bias = true;
    c.act = MakeActivation(ActivationKind::kClip);
    const Data d = MakeData(c, &rng);
    std::vector<float> y(d.want.size());
    std::string line;
    for (const DepthwiseNchwcIsa* isa : SupportedDepthwiseNchwcIsas()) {
      const DepthwiseConvNchwc conv(Geometry(c), c.act, *isa);
      const double ms = MedianMs([&] { conv.Run(d.xb.data(), d.wb.data(), d.b.data(), nullptr, y.data(), nullptr); });
      char s[64];
      std::snprintf(s, sizeof(s), "  nchwc %s %.3f ms", isa->name, ms);
      line += s;
    }
    KernelSetup setup = testing::MakeKernelSetup(
        "Conv", Attrs(c, true),
        {TestTensor::Of<float>({1, c.c, c.h, c.w}, d.x), TestTensor::Const<float>({c.c, 1, c.kh, c.kw}, d.w),
         TestTensor::Of<float>({c.c}, d.b)},
        {TestTensor::Empty(DType::kFloat32, {1, c.c, c.OutH(), c.OutW()})});
    std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById("cpu.Conv")->create();
    ASSERT_TRUE(kernel->Prepare(setup).ok());
    std::vector<float> scratch(kernel->ScratchBytes(1) / sizeof(float) + 16);
    const void* ins[3] = {d.x.data(), d.w.data(), d.b.data()};
    void* outs[1] = {y.data()};
    KernelArgs args;
    args.inputs = ins;
    args.outputs = outs;
    args.num_inputs = 3;
    args.num_outputs = 1;
    args.scratch = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) / 64 * 64);
    const double conv_ms = MedianMs([&] { ASSERT_TRUE(kernel->Run(args).ok()); });
    std::printf("depthwise %4lldch %3lldx%-3lld %lldx%lld s%lld: Conv (NCHW) %.3f ms%s\n", (long long)c.c,
                (long long)c.h, (long long)c.w, (long long)c.kh, (long long)c.kw, (long long)c.sh, conv_ms,
                line.c_str());
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
