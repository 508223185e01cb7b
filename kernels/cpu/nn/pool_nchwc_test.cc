// loom.MaxPoolNchwc / loom.AveragePoolNchwc against the NCHW MaxPool /
// AveragePool kernels on the same data (reordered here), bit for bit, on
// randomized shapes, on every path this CPU runs; and the bad inputs.
#include "kernels/cpu/nn/pool_nchwc.h"

#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"
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
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
  bool ceil_mode = false, count_include_pad = false;

  std::string ToString() const {
    char s[256];
    std::snprintf(s, sizeof(s),
                  "x %lldx%lldx%lldx%lld kernel %lldx%lld strides %lld,%lld dilations %lld,%lld "
                  "pads %lld,%lld,%lld,%lld ceil_mode %d count_include_pad %d",
                  (long long)n, (long long)c, (long long)h, (long long)w, (long long)kh, (long long)kw, (long long)sh,
                  (long long)sw, (long long)dh, (long long)dw, (long long)pads[0], (long long)pads[1],
                  (long long)pads[2], (long long)pads[3], ceil_mode, count_include_pad);
    return s;
  }
};

// ONNX's output size along one axis (explicit pads).
int64_t OutDim(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, bool ceil_mode) {
  const int64_t span = in + pb + pe - ((k - 1) * d + 1);
  if (!ceil_mode) return span / s + 1;
  int64_t o = (span + s - 1) / s + 1;
  if ((o - 1) * s >= in + pb) --o;  // the last window starts inside the input or its left padding
  return o;
}

Attributes PoolAttrs(const Case& c, bool max) {
  Attributes a;
  a.SetInts("kernel_shape", {c.kh, c.kw});
  a.SetInts("strides", {c.sh, c.sw});
  a.SetInts("pads", {c.pads[0], c.pads[1], c.pads[2], c.pads[3]});
  if (c.dh != 1 || c.dw != 1) a.SetInts("dilations", {c.dh, c.dw});
  if (c.ceil_mode) a.SetInt("ceil_mode", 1);
  if (!max) a.SetInt("count_include_pad", c.count_include_pad ? 1 : 0);
  return a;
}

using testing::FromNchwcLayout;
using testing::ToNchwcLayout;

// Values in [-2, 2); with `specials`, also NaNs, infinities and signed zeros.
std::vector<float> RandomInput(size_t size, uint32_t seed, bool specials) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  std::vector<float> v(size);
  for (float& x : v) {
    x = dist(gen);
    if (!specials) continue;
    const uint32_t r = gen() % 64;
    if (r == 0) x = std::numeric_limits<float>::quiet_NaN();
    if (r == 1) x = -std::numeric_limits<float>::infinity();
    if (r == 2) x = std::numeric_limits<float>::infinity();
    if (r == 3) x = -0.f;
  }
  return v;
}

// Index of the first float whose bits differ, or -1. NaNs compare equal to
// each other: which operand's NaN a sum keeps is the compiler's choice.
int64_t FirstBitDifference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && !(std::isnan(a[i]) && std::isnan(b[i])))
      return static_cast<int64_t>(i);
  return -1;
}

// Runs the NCHW kernel and the blocked one (through the registry, on the
// process's path, with `threads`; then each path's rows directly) and
// compares every result bit for bit.
void CheckCase(const Case& c, bool max, uint32_t seed, bool specials, int threads) {
  SCOPED_TRACE((max ? "MaxPool " : "AveragePool ") + c.ToString());
  const int64_t oh = OutDim(c.h, c.kh, c.sh, c.dh, c.pads[0], c.pads[2], c.ceil_mode);
  const int64_t ow = OutDim(c.w, c.kw, c.sw, c.dw, c.pads[1], c.pads[3], c.ceil_mode);
  const std::vector<float> x = RandomInput(c.n * c.c * c.h * c.w, seed, specials);
  const Attributes attrs = PoolAttrs(c, max);
  const std::string op = max ? "MaxPool" : "AveragePool";

  std::vector<TestTensor> ref = {TestTensor::Empty(DType::kFloat32, {c.n, c.c, oh, ow})};
  ASSERT_TRUE(RunKernel(op, attrs, {TestTensor::Of<float>({c.n, c.c, c.h, c.w}, x)}, &ref).ok());
  const std::vector<float> want = ref[0].As<float>();

  const TestTensor xb = TestTensor::Of<float>({c.n, c.c / kB, c.h, c.w, kB}, ToNchwcLayout(x, c.n, c.c, c.h * c.w));
  std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {c.n, c.c / kB, oh, ow, kB})};
  RunOptions options;
  options.domain = "loom";
  options.threads = threads;
  const Status s = RunKernel(op + "Nchwc", attrs, {xb}, &out, options);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::vector<float> got = FromNchwcLayout(out[0].As<float>(), c.n, c.c, oh * ow);
  int64_t bad = FirstBitDifference(got, want);
  ASSERT_EQ(bad, -1) << "at " << bad << ": " << got[bad] << " vs " << want[bad] << " (" << threads << " threads)";

  // Every path, from the same plan.
  WindowGeometry g;
  WindowOptions opts;
  opts.allow_ceil_mode = true;
  const KernelSetup setup = testing::MakeKernelSetup(op + "Nchwc", attrs, {xb}, out, options);
  ASSERT_TRUE(ParseWindowGeometry(setup, {c.h, c.w}, nullptr, opts, &g).ok());
  const PoolNchwcPlan plan = MakePoolNchwcPlan(g, max, c.count_include_pad);
  for (const PoolNchwcIsa* isa : SupportedPoolNchwcIsas()) {
    SCOPED_TRACE(isa->name);
    std::vector<float> yb(out[0].As<float>().size() + kB, 12345.f);
    isa->rows(plan, xb.As<float>().data(), yb.data(), 0, c.n * (c.c / kB) * oh);
    for (int64_t i = 0; i < kB; ++i) ASSERT_EQ(yb[yb.size() - kB + i], 12345.f) << "wrote past the output";
    yb.resize(yb.size() - kB);
    const std::vector<float> path = FromNchwcLayout(yb, c.n, c.c, oh * ow);
    bad = FirstBitDifference(path, want);
    ASSERT_EQ(bad, -1) << "at " << bad << ": " << path[bad] << " vs " << want[bad];
  }
}

// A random valid case: kernels 1/2/3/5, strides 1-3, pads up to the kernel
// (sometimes past it: windows without input), odd and even sizes up to 113.
Case RandomCase(std::mt19937* gen, bool max) {
  auto pick = [&](std::vector<int64_t> v) { return v[(*gen)() % v.size()]; };
  for (;;) {
    Case c;
    c.n = pick({1, 1, 2});
    c.c = 8 * pick({1, 2, 3, 4, 8});
    const bool large = (*gen)() % 5 == 0;
    c.h = large ? pick({27, 55, 56, 111, 113, 57 + 2 * static_cast<int64_t>((*gen)() % 28)}) : 1 + (*gen)() % 20;
    c.w = (*gen)() % 4 == 0 ? 1 + (*gen)() % 20 : c.h;
    if (large) c.c = std::min<int64_t>(c.c, 32);
    c.kh = pick({1, 2, 3, 3, 5});
    c.kw = (*gen)() % 4 == 0 ? pick({1, 2, 3, 5}) : c.kh;
    c.sh = pick({1, 2, 2, 3});
    c.sw = (*gen)() % 4 == 0 ? pick({1, 2, 3}) : c.sh;
    if ((*gen)() % 4 == 0) c.dh = c.dw = 2;
    const int64_t k[4] = {c.kh, c.kw, c.kh, c.kw};
    const bool symmetric = (*gen)() % 2 == 0;
    for (int i = 0; i < 4; ++i) {
      const int64_t limit = (*gen)() % 16 == 0 ? k[i] + 1 : k[i];  // pads >= kernel: empty windows
      c.pads[i] = symmetric && i >= 2 ? c.pads[i - 2] : static_cast<int64_t>((*gen)() % limit);
    }
    c.ceil_mode = (*gen)() % 2 == 0;
    c.count_include_pad = !max && (*gen)() % 2 == 0;
    if (c.h + c.pads[0] + c.pads[2] < (c.kh - 1) * c.dh + 1) continue;
    if (c.w + c.pads[1] + c.pads[3] < (c.kw - 1) * c.dw + 1) continue;
    return c;
  }
}

TEST(PoolNchwc, MaxPoolMatchesNchwKernel) {
  std::mt19937 gen(11);
  for (int i = 0; i < 300; ++i) {
    CheckCase(RandomCase(&gen, true), true, 100 + i, i % 3 == 0, i % 4 == 0 ? 3 : 1);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(PoolNchwc, AveragePoolMatchesNchwKernel) {
  std::mt19937 gen(12);
  for (int i = 0; i < 300; ++i) {
    CheckCase(RandomCase(&gen, false), false, 500 + i, i % 3 == 0, i % 4 == 0 ? 3 : 1);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

Case Squeeze(int64_t c, int64_t hw) {
  Case s;
  s.c = c;
  s.h = s.w = hw;
  s.kh = s.kw = 3;
  s.sh = s.sw = 2;
  s.ceil_mode = true;
  return s;
}

TEST(PoolNchwc, EdgeShapes) {
  std::vector<Case> cases = {Squeeze(64, 111), Squeeze(128, 55), Squeeze(256, 27), Squeeze(8, 3), Squeeze(8, 4)};
  Case c;  // 2x2 stride 2 on an odd plane, ceil_mode: the last window half outside
  c.n = 2;
  c.c = 16;
  c.h = c.w = 7;
  c.kh = c.kw = c.sh = c.sw = 2;
  c.ceil_mode = true;
  cases.push_back(c);
  c.h = c.w = 13;  // a window the size of the plane (global pooling)
  c.kh = c.kw = 13;
  c.sh = c.sw = 1;
  c.ceil_mode = false;
  cases.push_back(c);
  c.kh = c.kw = 3;  // 3x3 stride 1 pad 1 on a 1x1 plane
  c.h = c.w = 1;
  for (int64_t& p : c.pads) p = 1;
  cases.push_back(c);
  for (const Case& e : cases) {
    CheckCase(e, true, 1, true, 2);
    CheckCase(e, false, 2, false, 2);
    Case include = e;
    include.count_include_pad = true;
    CheckCase(include, false, 3, true, 1);
  }
}

Status Prepare(const std::string& op, const Attributes& attrs, const TestTensor& x, const std::vector<Shape>& outs) {
  std::vector<TestTensor> out;
  for (const Shape& s : outs) out.push_back(TestTensor::Empty(DType::kFloat32, s));
  RunOptions options;
  options.domain = "loom";
  return RunKernel(op, attrs, {x}, &out, options);
}

TEST(PoolNchwc, BadInputs) {
  Case c;
  c.h = c.w = 5;
  c.kh = c.kw = 3;
  const Attributes good = PoolAttrs(c, true);
  const TestTensor x = TestTensor::Of<float>({1, 2, 5, 5, 8}, std::vector<float>(400, 1.f));
  const Shape y = {1, 2, 3, 3, 8};
  ASSERT_TRUE(Prepare("MaxPoolNchwc", good, x, {y}).ok());
  ASSERT_TRUE(Prepare("AveragePoolNchwc", PoolAttrs(c, false), x, {y}).ok());

  auto expect = [](const Status& s, StatusCode code, const std::string& text) {
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
  };
  const StatusCode kInvalid = StatusCode::kInvalidArgument;
  expect(Prepare("MaxPoolNchwc", good, TestTensor::Of<float>({2, 5, 5, 8}, std::vector<float>(400)), {{2, 3, 3, 8}}),
         kInvalid, "expected 5");
  expect(
      Prepare("MaxPoolNchwc", good, TestTensor::Of<float>({1, 4, 5, 5, 4}, std::vector<float>(400)), {{1, 4, 3, 3, 4}}),
      kInvalid, "expected 8");
  expect(Prepare("AveragePoolNchwc", good, TestTensor::Of<int32_t>({1, 2, 5, 5, 8}, std::vector<int32_t>(400)), {y}),
         kInvalid, "float32");
  expect(Prepare("MaxPoolNchwc", good, x, {{1, 2, 4, 4, 8}}), kInvalid, "shape");
  expect(Prepare("MaxPoolNchwc", good, x, {y, y}), kInvalid, "Indices");

  auto with = [&](const char* name, std::vector<int64_t> v) {
    Attributes a = good;
    a.SetInts(name, v);
    return a;
  };
  expect(Prepare("MaxPoolNchwc", Attributes(), x, {y}), kInvalid, "kernel_shape");
  expect(Prepare("MaxPoolNchwc", with("kernel_shape", {3, 3, 3}), x, {y}), kInvalid, "kernel_shape");
  expect(Prepare("MaxPoolNchwc", with("kernel_shape", {0, 3}), x, {y}), kInvalid, "kernel_shape");
  expect(Prepare("MaxPoolNchwc", with("kernel_shape", {7, 7}), x, {y}), kInvalid, "exceeds");
  expect(Prepare("MaxPoolNchwc", with("strides", {0, 1}), x, {y}), kInvalid, "strides");
  expect(Prepare("MaxPoolNchwc", with("pads", {0, 0, -1, 0}), x, {y}), kInvalid, "pads");
  expect(Prepare("MaxPoolNchwc", with("pads", {0, 0}), x, {y}), kInvalid, "pads");
  expect(Prepare("MaxPoolNchwc", with("dilations", {0, 1}), x, {y}), kInvalid, "dilations");
  Attributes a = good;
  a.SetString("auto_pad", "SAME_UPPER");
  expect(Prepare("MaxPoolNchwc", a, x, {{1, 2, 5, 5, 8}}), StatusCode::kUnsupported, "auto_pad");
  a = PoolAttrs(c, false);
  a.SetInt("count_include_pad", 2);
  expect(Prepare("AveragePoolNchwc", a, x, {y}), kInvalid, "count_include_pad");
}

TEST(PoolNchwc, InfersOutputShape) {
  Case c = Squeeze(64, 111);
  std::vector<Shape> shapes;
  RunOptions options;
  options.domain = "loom";
  const TestTensor x = TestTensor::Of<float>({1, 8, 111, 111, 8}, {});
  ASSERT_TRUE(testing::InferShapes("MaxPoolNchwc", PoolAttrs(c, true), {x}, {DType::kFloat32}, &shapes, options).ok());
  EXPECT_EQ(shapes, std::vector<Shape>({{1, 8, 55, 55, 8}}));
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Best thread CPU time of `reps` single-threaded runs of kernel `id`.
double TimeKernel(const char* id, const char* op, const Attributes& attrs, const TestTensor& x, const Shape& y_shape,
                  int reps) {
  KernelSetup setup;
  setup.op = op;
  setup.domain = std::strstr(id, ".loom") ? "loom" : "";
  setup.attrs = attrs;
  setup.inputs.push_back(x.Info());
  setup.outputs.push_back(TestTensor::Empty(DType::kFloat32, y_shape).Info());
  std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById(id)->create();
  EXPECT_TRUE(kernel->Prepare(setup).ok());
  std::vector<float> y(NumElements(y_shape));
  std::vector<double> scratch(kernel->ScratchBytes(1) / sizeof(double) + 8);
  const void* ins[1] = {x.bytes.data()};
  void* outs[1] = {y.data()};
  KernelArgs args;
  args.inputs = ins;
  args.outputs = outs;
  args.num_inputs = 1;
  args.num_outputs = 1;
  args.scratch = scratch.data();
  double best = 1e9;
  for (int rep = 0; rep < reps; ++rep) {
    const double c0 = ThreadCpuSeconds();
    EXPECT_TRUE(kernel->Run(args).ok());
    best = std::min(best, ThreadCpuSeconds() - c0);
  }
  return best;
}

// SqueezeNet's pools and a 2x2/2 one, blocked against NCHW on one thread
// (reported, not asserted).
TEST(PoolNchwc, LayerTimings) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  Case two = Squeeze(64, 112);
  two.kh = two.kw = 2;
  two.ceil_mode = false;
  for (const Case& c : {Squeeze(64, 111), Squeeze(128, 55), Squeeze(256, 27), two}) {
    const int64_t o = OutDim(c.h, c.kh, c.sh, c.dh, c.pads[0], c.pads[2], c.ceil_mode);
    const std::vector<float> x = RandomInput(c.c * c.h * c.w, 1, false);
    const TestTensor xn = TestTensor::Of<float>({1, c.c, c.h, c.w}, x);
    const TestTensor xb = TestTensor::Of<float>({1, c.c / kB, c.h, c.w, kB}, ToNchwcLayout(x, 1, c.c, c.h * c.w));
    for (bool max : {true, false}) {
      const Attributes attrs = PoolAttrs(c, max);
      const char* op = max ? "MaxPool" : "AveragePool";
      const std::string blocked_id = std::string("cpu.") + op + "Nchwc.loom";
      const double nchw = TimeKernel(max ? "cpu.MaxPool" : "cpu.AveragePool", op, attrs, xn, {1, c.c, o, o}, 50);
      const double nchwc =
          TimeKernel(blocked_id.c_str(), (std::string(op) + "Nchwc").c_str(), attrs, xb, {1, c.c / kB, o, o, kB}, 50);
      std::printf("[%s] %-11s %3lldch %3lld->%lld %lldx%lld/%lld ceil_mode %d: NCHW %.3f ms, NCHWc %.3f ms (x%.2f)\n",
                  ActivePoolNchwcIsa().name, op, (long long)c.c, (long long)c.h, (long long)o, (long long)c.kh,
                  (long long)c.kw, (long long)c.sh, c.ceil_mode, nchw * 1e3, nchwc * 1e3, nchw / nchwc);
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
