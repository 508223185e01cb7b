#include <gtest/gtest.h>

#include <time.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace nn {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

template <typename T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(gen));
  return v;
}

struct ConvCase {
  Shape x;                     // N, C, spatial...
  int64_t out_channels;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides, dilations, pads;  // explicit (pads: begins then ends)
  int64_t group = 1;
  bool bias = true;
};

// Direct N-D convolution (spatial rank 1..3) in double.
std::vector<double> ReferenceConv(const ConvCase& c, const std::vector<double>& x, const std::vector<double>& w,
                                  const std::vector<double>& b, Shape* out_shape) {
  const size_t r = c.kernel.size();
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, p[3] = {0, 0, 0}, o[3] = {1, 1, 1};
  for (size_t i = 0; i < r; ++i) {
    const size_t a = 3 - r + i;
    in[a] = c.x[2 + i];
    k[a] = c.kernel[i];
    s[a] = c.strides[i];
    d[a] = c.dilations[i];
    p[a] = c.pads[i];
    o[a] = (in[a] + c.pads[i] + c.pads[i + r] - ((k[a] - 1) * d[a] + 1)) / s[a] + 1;
  }
  *out_shape = {c.x[0], c.out_channels};
  for (size_t i = 0; i < r; ++i) out_shape->push_back(o[3 - r + i]);
  const int64_t n_n = c.x[0], cin = c.x[1], cout = c.out_channels, cg = cin / c.group, mg = cout / c.group;
  std::vector<double> y(n_n * cout * o[0] * o[1] * o[2]);
  size_t idx = 0;
  for (int64_t n = 0; n < n_n; ++n)
    for (int64_t m = 0; m < cout; ++m)
      for (int64_t od = 0; od < o[0]; ++od)
        for (int64_t oh = 0; oh < o[1]; ++oh)
          for (int64_t ow = 0; ow < o[2]; ++ow) {
            double acc = c.bias ? b[m] : 0.0;
            const int64_t g = m / mg;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t id = od * s[0] - p[0] + kd * d[0], ih = oh * s[1] - p[1] + kh * d[1],
                                  iw = ow * s[2] - p[2] + kw * d[2];
                    if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2]) continue;
                    const double xv = x[(((n * cin + g * cg + ci) * in[0] + id) * in[1] + ih) * in[2] + iw];
                    const double wv = w[(((m * cg + ci) * k[0] + kd) * k[1] + kh) * k[2] + kw];
                    acc += xv * wv;
                  }
            y[idx++] = acc;
          }
  return y;
}

Attributes ConvAttrs(const ConvCase& c) {
  Attributes a;
  a.SetInts("strides", c.strides);
  a.SetInts("dilations", c.dilations);
  a.SetInts("pads", c.pads);
  if (c.group != 1) a.SetInt("group", c.group);
  return a;
}

void CheckConvF32(const ConvCase& c, bool const_weights, int threads) {
  SCOPED_TRACE(::testing::Message() << "x=" << ShapeToString(c.x) << " k=" << c.kernel.size() << "d group=" << c.group
                                    << " const=" << const_weights << " threads=" << threads);
  Shape w_shape = {c.out_channels, c.x[1] / c.group};
  for (int64_t k : c.kernel) w_shape.push_back(k);
  const auto xd = Random<double>(NumElements(c.x), 1), wd = Random<double>(NumElements(w_shape), 2),
             bd = Random<double>(c.out_channels, 3);
  Shape out_shape;
  const auto ref = ReferenceConv(c, xd, wd, bd, &out_shape);
  std::vector<float> xf(xd.begin(), xd.end()), wf(wd.begin(), wd.end()), bf(bd.begin(), bd.end());
  std::vector<TestTensor> in = {TestTensor::Of<float>(c.x, xf), TestTensor::Of<float>(w_shape, wf, const_weights)};
  if (c.bias) in.push_back(TestTensor::Of<float>({c.out_channels}, bf));
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
  RunOptions opt;
  opt.threads = threads;
  Status st = RunKernel("Conv", ConvAttrs(c), in, &out, opt);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const auto got = out[0].As<float>();
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-4 * (1 + std::fabs(ref[i]))) << "at " << i;
}

std::vector<ConvCase> Cases() {
  return {
      // 2-D general (im2col), padding, strides, dilations.
      {{1, 3, 9, 11}, 8, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{2, 5, 10, 7}, 6, {3, 2}, {2, 1}, {1, 2}, {0, 2, 1, 0}},
      {{1, 4, 13, 13}, 17, {5, 5}, {2, 3}, {1, 1}, {2, 1, 0, 2}, 1, false},
      // pointwise
      {{2, 16, 5, 6}, 12, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      // 1x1 with stride 2 (im2col gather)
      {{1, 8, 9, 9}, 4, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      // groups
      {{1, 6, 8, 8}, 9, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 3},
      // depthwise, with multiplier, strides, dilations, asymmetric pads
      {{2, 4, 9, 10}, 4, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 4},
      {{1, 3, 11, 9}, 6, {3, 5}, {2, 2}, {2, 1}, {1, 0, 3, 2}, 3, false},
      {{1, 5, 1, 30}, 5, {1, 4}, {1, 3}, {1, 1}, {0, 2, 0, 1}, 5},
      // 1-D and 3-D
      {{2, 3, 20}, 5, {4}, {2}, {2}, {3, 1}},
      {{1, 4, 17}, 4, {3}, {1}, {1}, {1, 1}, 4},
      {{1, 2, 5, 6, 7}, 3, {2, 3, 3}, {1, 2, 1}, {2, 1, 1}, {1, 0, 1, 0, 1, 1}},
      {{1, 4, 4, 5, 6}, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, 2},
      // wide output (several GEMM column blocks and tasks)
      {{1, 3, 40, 60}, 10, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
  };
}

TEST(Conv, Float32MatchesReference) {
  for (const ConvCase& c : Cases())
    for (bool const_w : {false, true})
      for (int threads : {1, 2}) CheckConvF32(c, const_w, threads);
}

TEST(Conv, Float64MatchesReference) {
  for (const ConvCase& c : Cases()) {
    Shape w_shape = {c.out_channels, c.x[1] / c.group};
    for (int64_t k : c.kernel) w_shape.push_back(k);
    const auto x = Random<double>(NumElements(c.x), 4), w = Random<double>(NumElements(w_shape), 5),
               b = Random<double>(c.out_channels, 6);
    Shape out_shape;
    const auto ref = ReferenceConv(c, x, w, b, &out_shape);
    std::vector<TestTensor> in = {TestTensor::Of<double>(c.x, x), TestTensor::Of<double>(w_shape, w)};
    if (c.bias) in.push_back(TestTensor::Of<double>({c.out_channels}, b));
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat64, out_shape)};
    ASSERT_TRUE(RunKernel("Conv", ConvAttrs(c), in, &out).ok());
    const auto got = out[0].As<double>();
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], ref[i], 1e-12);
  }
}

// auto_pad: SAME_UPPER puts the odd padding at the end, SAME_LOWER at the start.
TEST(Conv, AutoPad) {
  const Shape xs = {1, 1, 5, 6};
  const auto x = Random<float>(30, 7), w = Random<float>(4, 8);
  struct Mode {
    const char* name;
    std::vector<int64_t> pads;
    Shape out;
  };
  // kernel 2x2, stride 2: out = ceil(in/2) = 3x3; total pad rows 1 (5), cols 0 (6).
  for (const Mode& m : {Mode{"SAME_UPPER", {0, 0, 1, 0}, {1, 1, 3, 3}}, Mode{"SAME_LOWER", {1, 0, 0, 0}, {1, 1, 3, 3}},
                        Mode{"VALID", {0, 0, 0, 0}, {1, 1, 2, 3}}}) {
    Attributes a;
    a.SetString("auto_pad", m.name);
    a.SetInts("strides", {2, 2});
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, m.out)};
    ASSERT_TRUE(RunKernel("Conv", a, {TestTensor::Of<float>(xs, x), TestTensor::Of<float>({1, 1, 2, 2}, w)}, &out).ok())
        << m.name;
    ConvCase c{xs, 1, {2, 2}, {2, 2}, {1, 1}, m.pads, 1, false};
    Shape ref_shape;
    const auto ref = ReferenceConv(c, std::vector<double>(x.begin(), x.end()), std::vector<double>(w.begin(), w.end()),
                                   {}, &ref_shape);
    ASSERT_EQ(ref_shape, m.out);
    const auto got = out[0].As<float>();
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(got[i], ref[i], 1e-5) << m.name << " at " << i;
  }
}

TEST(Conv, FusedActivationOnEveryPath) {
  for (const ConvCase& c : {Cases()[0], Cases()[3], Cases()[6]}) {
    Shape w_shape = {c.out_channels, c.x[1] / c.group};
    for (int64_t k : c.kernel) w_shape.push_back(k);
    const auto x = Random<double>(NumElements(c.x), 9), w = Random<double>(NumElements(w_shape), 10),
               b = Random<double>(c.out_channels, 11);
    Shape out_shape;
    const auto ref = ReferenceConv(c, x, w, b, &out_shape);
    Attributes a = ConvAttrs(c);
    a.SetString("loom.activation", "Clip");
    a.SetFloat("loom.activation_min", -0.1f);
    a.SetFloat("loom.activation_max", 0.3f);
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
    ASSERT_TRUE(RunKernel("Conv", a,
                          {TestTensor::Of<float>(c.x, std::vector<float>(x.begin(), x.end())),
                           TestTensor::Const<float>(w_shape, std::vector<float>(w.begin(), w.end())),
                           TestTensor::Of<float>({c.out_channels}, std::vector<float>(b.begin(), b.end()))},
                          &out)
                    .ok());
    const auto got = out[0].As<float>();
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(got[i], std::min(0.3, std::max(-0.1, ref[i])), 1e-4);
  }
}

// The fused residual (loom.residual, input 3): Y = act(conv + B + R) on every
// float32 path (pointwise, im2col incl. groups and 1-D/3-D, the vector
// depthwise kernels and the generic depthwise loop, Winograd F(2x2) and
// F(4x4) forced through LOOM_CONV_WINOGRAD), constant or variable weights, 1
// and 2 threads.
TEST(Conv, ResidualOnEveryPath) {
  const char* saved = std::getenv("LOOM_CONV_WINOGRAD");
  const std::string saved_value = saved ? saved : "";
  for (const char* mode : {"0", "f2", "f4"}) {
    setenv("LOOM_CONV_WINOGRAD", mode, 1);
    for (const ConvCase& c : Cases()) {
      for (bool relu : {false, true}) {
        Shape w_shape = {c.out_channels, c.x[1] / c.group};
        for (int64_t k : c.kernel) w_shape.push_back(k);
        const auto x = Random<double>(NumElements(c.x), 21), w = Random<double>(NumElements(w_shape), 22),
                   b = Random<double>(c.out_channels, 23);
        Shape out_shape;
        auto ref = ReferenceConv(c, x, w, b, &out_shape);
        const auto r = Random<float>(ref.size(), 24);
        for (size_t i = 0; i < ref.size(); ++i) ref[i] = ref[i] + r[i];
        if (relu)
          for (double& v : ref) v = std::max(v, 0.0);
        Attributes a = ConvAttrs(c);
        a.SetInt("loom.residual", 1);
        if (relu) a.SetString("loom.activation", "Relu");
        for (bool const_w : {false, true}) {
          for (int threads : {1, 2}) {
            SCOPED_TRACE(::testing::Message() << "mode=" << mode << " x=" << ShapeToString(c.x)
                                              << " k=" << c.kernel.size() << "d group=" << c.group << " bias=" << c.bias
                                              << " relu=" << relu << " const=" << const_w << " threads=" << threads);
            std::vector<TestTensor> in = {
                TestTensor::Of<float>(c.x, std::vector<float>(x.begin(), x.end())),
                TestTensor::Of<float>(w_shape, std::vector<float>(w.begin(), w.end()), const_w),
                c.bias ? TestTensor::Of<float>({c.out_channels}, std::vector<float>(b.begin(), b.end()))
                       : TestTensor::Absent(),
                TestTensor::Of<float>(out_shape, r)};
            std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, out_shape)};
            RunOptions opt;
            opt.threads = threads;
            const Status st = RunKernel("Conv", a, in, &out, opt);
            ASSERT_TRUE(st.ok()) << st.ToString();
            const auto got = out[0].As<float>();
            ASSERT_EQ(got.size(), ref.size());
            for (size_t i = 0; i < ref.size(); ++i)
              ASSERT_NEAR(got[i], ref[i], 1e-4 * (1 + std::fabs(ref[i]))) << "at " << i;
          }
        }
      }
    }
  }
  if (saved) {
    setenv("LOOM_CONV_WINOGRAD", saved_value.c_str(), 1);
  } else {
    unsetenv("LOOM_CONV_WINOGRAD");
  }
}

TEST(Conv, ResidualRejectsBadSetups) {
  const auto x = TestTensor::Of<float>({1, 2, 5, 5}, Random<float>(50, 1));
  const auto w = TestTensor::Of<float>({3, 2, 3, 3}, Random<float>(54, 2));
  const auto b = TestTensor::Of<float>({3}, Random<float>(3, 3));
  const auto r = TestTensor::Of<float>({1, 3, 3, 3}, Random<float>(27, 4));
  auto run = [&](const Attributes& a, std::vector<TestTensor> in, DType dt = DType::kFloat32) {
    std::vector<TestTensor> out = {TestTensor::Empty(dt, {1, 3, 3, 3})};
    return RunKernel("Conv", a, in, &out);
  };
  Attributes marked;
  marked.SetInt("loom.residual", 1);
  EXPECT_TRUE(run(marked, {x, w, b, r}).ok());
  EXPECT_TRUE(run(marked, {x, w, TestTensor::Absent(), r}).ok());
  EXPECT_EQ(run({}, {x, w, b, r}).code(), StatusCode::kInvalidArgument);   // R without the attribute
  EXPECT_EQ(run(marked, {x, w, b}).code(), StatusCode::kInvalidArgument);  // the attribute without R
  // Broadcasting R, R of another dtype.
  EXPECT_EQ(run(marked, {x, w, b, TestTensor::Of<float>({1, 3, 1, 1}, {1, 2, 3})}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run(marked, {x, w, b, TestTensor::Of<double>({1, 3, 3, 3}, Random<double>(27, 4))}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(run(marked, {x, w, b, r, r}).code(), StatusCode::kInvalidArgument);  // five inputs
  Attributes wrong_kind;
  wrong_kind.SetFloat("loom.residual", 1.f);
  EXPECT_EQ(run(wrong_kind, {x, w, b, r}).code(), StatusCode::kInvalidArgument);
  Attributes off;
  off.SetInt("loom.residual", 0);
  EXPECT_TRUE(run(off, {x, w, b}).ok());
  // float64 has no residual epilogue.
  auto to64 = [](const TestTensor& t, size_t n) { return TestTensor::Of<double>(t.shape, Random<double>(n, 5)); };
  EXPECT_EQ(run(marked, {to64(x, 50), to64(w, 54), to64(b, 3), to64(r, 27)}, DType::kFloat64).code(),
            StatusCode::kUnsupported);
}

TEST(Conv, EmptyBatch) {
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {0, 2, 3, 3})};
  ASSERT_TRUE(RunKernel("Conv", {}, {TestTensor::Of<float>({0, 1, 5, 5}, {}), TestTensor::Of<float>({2, 1, 3, 3}, Random<float>(18, 1))},
                        &out)
                  .ok());
}

TEST(Conv, RejectsBadSetups) {
  const auto x = TestTensor::Of<float>({1, 2, 5, 5}, Random<float>(50, 1));
  const auto w = TestTensor::Of<float>({3, 2, 3, 3}, Random<float>(54, 2));
  auto run = [&](const Attributes& a, std::vector<TestTensor> in, Shape out_shape, DType dt = DType::kFloat32) {
    std::vector<TestTensor> out = {TestTensor::Empty(dt, out_shape)};
    return RunKernel("Conv", a, in, &out);
  };
  EXPECT_TRUE(run({}, {x, w}, {1, 3, 3, 3}).ok());
  EXPECT_FALSE(run({}, {x, w}, {1, 3, 4, 3}).ok());                     // wrong output shape
  EXPECT_FALSE(run({}, {x, w}, {1, 3, 3, 3}, DType::kFloat64).ok());    // wrong output dtype
  EXPECT_FALSE(run({}, {x}, {1, 3, 3, 3}).ok());                        // missing W
  EXPECT_FALSE(run({}, {x, TestTensor::Of<float>({3, 1, 3, 3}, Random<float>(27, 2))}, {1, 3, 3, 3}).ok());
  EXPECT_FALSE(run({}, {TestTensor::Of<int32_t>({1, 2, 5, 5}, std::vector<int32_t>(50)), w}, {1, 3, 3, 3}).ok());
  EXPECT_FALSE(run({}, {x, w, TestTensor::Of<float>({2}, {1, 2})}, {1, 3, 3, 3}).ok());  // bias size
  Attributes a;
  a.SetInts("strides", {0, 1});
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 3, 3}).ok());
  a = {};
  a.SetInts("pads", {1, 1});  // wrong length
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 3, 3}).ok());
  a = {};
  a.SetInt("group", 0);
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 3, 3}).ok());
  a = {};
  a.SetInt("group", 2);  // 3 output channels not divisible by 2
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 3, 3}).ok());
  a = {};
  a.SetString("auto_pad", "SAME");
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 3, 3}).ok());
  a = {};
  a.SetInts("kernel_shape", {2, 2});
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 4, 4}).ok());
  a = {};
  a.SetString("loom.activation", "Gelu");
  Status st = run(a, {x, w}, {1, 3, 3, 3});
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  a = {};
  a.SetInts("strides", {1});  // wrong kind is caught too
  a.SetFloat("strides", 1.f);
  EXPECT_FALSE(run(a, {x, w}, {1, 3, 3, 3}).ok());
  // kernel bigger than padded input
  EXPECT_FALSE(run({}, {TestTensor::Of<float>({1, 2, 2, 2}, Random<float>(8, 1)), w}, {1, 3, 0, 0}).ok());
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Timing of real CNN layer shapes (reported, not asserted).
TEST(Conv, LayerTimings) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  struct Layer {
    const char* name;
    ConvCase c;
  };
  const Layer layers[] = {
      {"resnet 1x64x56x56 3x3 -> 64", {{1, 64, 56, 56}, 64, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}}},
      {"stem 1x3x224x224 7x7/2 -> 64", {{1, 3, 224, 224}, 64, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}}},
      {"depthwise 1x144x56x56 3x3", {{1, 144, 56, 56}, 144, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, 144}},
      {"pointwise 1x144x56x56 -> 24", {{1, 144, 56, 56}, 24, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}}},
      {"resnet 1x512x7x7 3x3 -> 512", {{1, 512, 7, 7}, 512, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}}},
  };
  for (const Layer& l : layers) {
    const ConvCase& c = l.c;
    Shape w_shape = {c.out_channels, c.x[1] / c.group};
    for (int64_t k : c.kernel) w_shape.push_back(k);
    Shape out_shape = {1, c.out_channels};
    for (size_t i = 0; i < c.kernel.size(); ++i)
      out_shape.push_back((c.x[2 + i] + c.pads[i] + c.pads[i + c.kernel.size()] - c.kernel[i]) / c.strides[i] + 1);
    const std::vector<TestTensor> in = {TestTensor::Of<float>(c.x, Random<float>(NumElements(c.x), 1)),
                                        TestTensor::Const<float>(w_shape, Random<float>(NumElements(w_shape), 2)),
                                        TestTensor::Of<float>({c.out_channels}, Random<float>(c.out_channels, 3))};
    const double flops = 2.0 * NumElements(out_shape) * NumElements(w_shape) / c.out_channels;
    KernelSetup setup;
    setup.op = "Conv";
    setup.attrs = ConvAttrs(c);
    for (const TestTensor& t : in) setup.inputs.push_back(t.Info());
    setup.outputs.push_back(TestTensor::Empty(DType::kFloat32, out_shape).Info());
    std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById("cpu.Conv")->create();
    ASSERT_TRUE(kernel->Prepare(setup).ok());
    std::vector<float> y(NumElements(out_shape));
    const void* ins[3] = {in[0].bytes.data(), in[1].bytes.data(), in[2].bytes.data()};
    void* outs[1] = {y.data()};
    for (int threads : {1, 2}) {
      StaticThreadPool pool(threads);
      std::vector<double> scratch(kernel->ScratchBytes(threads) / sizeof(double) + 8);
      KernelArgs args;
      args.inputs = ins;
      args.outputs = outs;
      args.num_inputs = 3;
      args.num_outputs = 1;
      args.scratch = scratch.data();
      args.pool = threads > 1 ? &pool : nullptr;
      // Single-threaded runs report the thread's CPU time (robust on a busy
      // machine); two threads report wall time.
      double best = 1e9;
      for (int rep = 0; rep < 3; ++rep) {
        const auto w0 = std::chrono::steady_clock::now();
        const double c0 = ThreadCpuSeconds();
        ASSERT_TRUE(kernel->Run(args).ok());
        const double cpu = ThreadCpuSeconds() - c0;
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        best = std::min(best, threads == 1 ? cpu : wall);
      }
      std::printf("Conv %-30s threads=%d: %7.3f ms %s, %5.1f GFLOP/s\n", l.name, threads, best * 1e3,
                  threads == 1 ? "cpu " : "wall", flops / best / 1e9);
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
