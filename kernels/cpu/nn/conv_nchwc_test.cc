// loom.ConvNchwc and loom.ConvNchwcStem against the NCHW Conv kernel on the
// same problem (data blocked in the test): random shapes (1x1, 3x3, 5x5, 7x7
// with Cin = 8, or Cin 1, 3, 4, 5 for the stem; strides 1/2, symmetric and
// asymmetric pads, dilation 2, bias, residual, Relu/Clip/Swish/HardSwish/
// Sigmoid, N = 1 and 2, outputs from 1x1 to odd sizes, 1 and 2 threads),
// network layer shapes, the paired weights as a derived constant, and bad
// nodes (the Winograd path: conv_nchwc_winograd_test.cc). Runs on the
// process's path: CMake runs it once per path (LOOM_CPU_ISA).
#include "kernels/cpu/nn/conv_nchwc.h"

#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"
#include "kernels/cpu/nn/conv_nchwc_test_util.h"
#include "kernels/cpu/nn/nchwc_vector.h"
#include "kernels/cpu/testing/kernel_tester.h"
#include "kernels/cpu/testing/nchwc_layout.h"

namespace loom {
namespace nn {
namespace {

using namespace conv_nchwc_test;  // NOLINT(build/namespaces): the file's helpers
using testing::TestTensor;

// A random case, valid or not: ConvNchwc's (Cin a multiple of 8) or the
// stem's (Cin 1, 3, 4 or 5, Cout up to 64, wider rows so that tiles inside
// the input columns occur with 7x7 windows too, column stride 3 now and then).
Case RandomCase(bool stem, std::mt19937& rng) {
  const char* acts[] = {"", "Relu", "Clip", "Swish", "HardSwish", "Sigmoid"};
  Case c;
  c.stem = stem;
  const int64_t k =
      stem ? std::vector<int64_t>{1, 3, 3, 5, 7, 7}[rng() % 6] : std::vector<int64_t>{1, 1, 3, 3, 5, 7}[rng() % 6];
  c.kh = c.kw = k;
  if (rng() % 8 == 0) c.kw = k == 1 ? 3 : 1;  // a non-square window now and then
  c.cin = stem ? std::vector<int64_t>{1, 3, 4, 5}[rng() % 4] : k == 7 ? 8 : kB * (1 + rng() % 6);
  c.cout = stem ? std::vector<int64_t>{8, 16, 24, 32, 64}[rng() % 5] : kB * (1 + rng() % 7);
  c.n = 1 + rng() % 2;
  c.h = 1 + rng() % 15;
  c.w = 1 + rng() % (stem ? 40 : 19);
  c.sh = 1 + rng() % 2;
  c.sw = rng() % 4 == 0 ? 3 - c.sh : c.sh;
  if (stem && rng() % 8 == 0) c.sw = 3;
  if (rng() % 5 == 0) c.dh = c.dw = 2;
  for (int64_t& p : c.pads) p = rng() % 3 == 0 ? 0 : rng() % (k / 2 + 1);
  if (rng() % 3 == 0) c.pads[2] = c.pads[0], c.pads[3] = c.pads[1];  // symmetric
  c.bias = rng() % 2 == 0;
  c.residual = rng() % 3 == 0;
  c.act = acts[rng() % 6];
  c.threads = 1 + rng() % 2;
  return c;
}

// 300 random cases, more than 200 of them valid; every fifth with W not a
// constant.
void CheckRandomShapes(bool stem, unsigned seed) {
  std::mt19937 rng(seed);
  int checked = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Case c = RandomCase(stem, rng);
    c.runtime_w = iter % 5 == 4;
    if (!c.Valid()) continue;
    Check(c, &rng);
    if (::testing::Test::HasFatalFailure()) return;
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST(ConvNchwc, MatchesConvOnRandomShapes) { CheckRandomShapes(false, 7); }

TEST(ConvNchwcStem, MatchesConvOnRandomShapes) { CheckRandomShapes(true, 13); }

TEST(ConvNchwc, MatchesConvOnPointwiseShapes) {
  std::mt19937 rng(11);
  for (int64_t cin : {8, 16, 24, 64})
    for (int64_t cout : {8, 16, 24, 40})
      for (int64_t hw : {1, 5, 6, 7, 13, 49})
        for (int threads : {1, 2}) {
          Case c;
          c.cin = cin;
          c.cout = cout;
          c.h = hw == 49 ? 7 : 1;
          c.w = hw == 49 ? 7 : hw;
          c.n = hw == 13 ? 2 : 1;
          c.bias = cout != 16;
          c.residual = cin == 16;
          c.act = cout == 24 ? "Relu" : cout == 40 ? "Swish" : "";
          c.threads = threads;
          Check(c, &rng);
          if (HasFatalFailure()) return;
        }
}

// loom.input_scale (a squeeze-and-excitation scale folded in): random
// ConvNchwc cases, N = 1 and 2, and 3x3 stride-1 layers that would
// otherwise run through Winograd.
TEST(ConvNchwc, InputScaleMatchesConvOfScaledInput) {
  std::mt19937 rng(23);
  int checked = 0;
  for (int iter = 0; iter < 120; ++iter) {
    Case c = RandomCase(false, rng);
    if (!c.Valid()) continue;
    c.scale = true;
    c.runtime_w = iter % 4 == 3;  // scaled from W paired in Run on the avx512 path
    Check(c, &rng);
    if (HasFatalFailure()) return;
    ++checked;
  }
  EXPECT_GT(checked, 80);
  for (int64_t n : {1, 2}) {
    Case c;
    c.n = n;
    c.cin = 32;
    c.cout = 48;
    c.h = c.w = 16;
    c.kh = c.kw = 3;
    c.pads[0] = c.pads[1] = c.pads[2] = c.pads[3] = 1;
    c.bias = c.residual = c.scale = true;
    c.act = "Relu";
    c.threads = 2;
    Check(c, &rng);
    if (HasFatalFailure()) return;
  }
}

TEST(ConvNchwc, MatchesConvOnNetworkShapes) {
  std::mt19937 rng(5);
  for (const Layer& l : {Layer{16, 96, 28, 1, 1, 0}, Layer{32, 16, 30, 1, 1, 0}, Layer{144, 24, 14, 1, 1, 0},
                         Layer{960, 320, 7, 1, 1, 0}, Layer{64, 1280, 1, 1, 1, 0}, Layer{16, 32, 27, 3, 1, 1},
                         Layer{32, 64, 15, 3, 2, 1}, Layer{64, 64, 13, 3, 1, 1}, Layer{8, 32, 33, 7, 2, 3},
                         Layer{24, 40, 19, 3, 2, 1, 2}, Layer{40, 24, 17, 1, 1, 0, 2}, Layer{16, 16, 9, 5, 1, 2, 2}}) {
    for (int threads : {1, 2}) {
      Check(LayerCase(l, "Clip", threads), &rng);
      if (HasFatalFailure()) return;
    }
  }
}

// General convs whose rows take the avx512 path's tiles of 8 blocks (rows of
// 12 pixels or more): 8 blocks and more, a last group of 1 to 7 blocks,
// 3x3 stride 1 on the direct path (loom.winograd 0) and stride 2, 1x1
// stride 2, residual, activations, W not constant, batch 2, 1 and 2
// threads; rows of 7 beside them (4 blocks, 6 on one thread).
TEST(ConvNchwc, MatchesConvOnEightBlockShapes) {
  std::mt19937 rng(29);
  const char* acts[] = {"Relu", "", "Swish", "Clip"};
  int i = 0;
  for (const Layer& l : {Layer{16, 64, 14, 3, 1, 1}, Layer{24, 72, 12, 3, 1, 1}, Layer{16, 104, 25, 3, 2, 1},
                         Layer{32, 128, 28, 1, 2, 0}, Layer{40, 120, 7, 3, 1, 1}, Layer{8, 64, 13, 5, 1, 2, 2}})
    for (int threads : {1, 2}) {
      Case c = LayerCase(l, acts[i % 4], threads);
      c.residual = i % 3 == 0;
      c.bias = i % 2 == 0;
      c.runtime_w = i % 5 == 4;
      if (l.k == 3 && l.s == 1 && !c.runtime_w) c.winograd = 0;
      ++i;
      Check(c, &rng);
      if (HasFatalFailure()) return;
    }
}

// Wide pointwise convs (up to 144 input blocks): residual, bias or none,
// activations, a last group of 1 to 3 blocks on the avx512 path, batch 2,
// 1 and 2 threads.
TEST(ConvNchwc, MatchesConvOnWidePointwiseShapes) {
  std::mt19937 rng(17);
  const char* acts[] = {"", "Relu", "Swish", "Clip"};
  int i = 0;
  for (int64_t cin : {200, 264, 1152})
    for (int64_t cout : {8, 40, 56})
      for (int threads : {1, 2}) {
        Case c = LayerCase(Layer{cin, cout, 5, 1, 1, 0, 1 + i % 2}, acts[i % 4], threads);
        c.bias = i % 3 != 0;
        c.residual = i % 2 == 0;
        ++i;
        Check(c, &rng);
        if (HasFatalFailure()) return;
      }
}

// On a path that reads W paired (avx512), the paired copy is the kernel's
// derived constant, for ConvNchwc (5 blocks: two pairs and a last single
// one) and the stem: offered back under its key it is used in place (poisoned
// bytes change the result, W is never read); under another key it is
// ignored. Other paths derive nothing here.
TEST(ConvNchwc, PairedWeightsAreADerivedConstant) {
  std::mt19937 rng(9);
  for (const bool stem : {false, true}) {
    SCOPED_TRACE(stem ? "stem" : "ConvNchwc");
    Case c;
    c.stem = stem;
    c.cin = stem ? 3 : 16;
    c.cout = 40;
    c.h = c.w = 9;
    c.kh = c.kw = 3;
    c.sh = c.sw = 2;
    const std::vector<float> w = Random(c.cout * c.cin * 9, &rng);
    const std::vector<TestTensor> in = KernelInputs(c, Random(c.cin * c.h * c.w, &rng), w);
    const TestTensor out = TestTensor::Empty(DType::kFloat32, {1, c.cout / kB, c.OutH(), c.OutW(), kB});
    auto run = [&](const std::vector<TestTensor>& inputs, const std::vector<DerivedConstant>& offered) {
      std::vector<TestTensor> y = {out};
      RunOptions o = Options(1, "loom");
      o.derived = offered;
      const Status st = RunKernel(OpOf(c), Attrs(c), inputs, &y, o);
      EXPECT_TRUE(st.ok()) << st.ToString();
      return y[0].As<float>();
    };
    const std::string id = std::string("cpu.") + OpOf(c) + ".loom";
    std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById(id)->create();
    const KernelSetup setup = testing::MakeKernelSetup(OpOf(c), Attrs(c), in, {out}, Options(1, "loom"));
    ASSERT_TRUE(kernel->Prepare(setup).ok());
    EXPECT_TRUE(kernel->ReadsConstantInput(1));
    const std::vector<DerivedConstant> derived = kernel->DerivedConstants();
    if (!ConvNchwcIsaFor(ActiveNchwcIsa())->paired_weights) {
      EXPECT_TRUE(derived.empty());
      continue;
    }
    ASSERT_EQ(derived.size(), 1u);
    EXPECT_NE(derived[0].key.find(".paired_w."), std::string::npos) << derived[0].key;
    const std::vector<float> reference = run(in, {});
    std::vector<float> storage(derived[0].bytes / sizeof(float) + 16);
    float* copy = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 / sizeof(float);
    std::memcpy(copy, derived[0].data, derived[0].bytes);
    const std::vector<DerivedConstant> offered = {{derived[0].key, copy, derived[0].bytes}};
    std::vector<TestTensor> nan_in = in;
    nan_in[1] = TestTensor::Const<float>(in[1].shape, std::vector<float>(w.size(), NAN));
    EXPECT_EQ(run(nan_in, offered), reference);
    KernelSetup offered_setup = setup;
    offered_setup.derived = offered;
    std::unique_ptr<Kernel> taker = KernelRegistry::Global().FindById(id)->create();
    ASSERT_TRUE(taker->Prepare(offered_setup).ok());
    EXPECT_FALSE(taker->ReadsConstantInput(1));
    std::fill(copy, copy + derived[0].bytes / sizeof(float), 0.f);
    EXPECT_NE(run(in, offered), reference);
    EXPECT_EQ(run(in, {{derived[0].key + " other", copy, derived[0].bytes}}), reference);
  }
}

// The stems of the zoo's networks (smaller images): MobileNetV2 and
// EfficientNet-B0 (3 -> 32, 3x3 / 2, pads 1 or the asymmetric 0, 0, 1, 1
// of TensorFlow's SAME), SqueezeNet 1.1 (3 -> 64, 3x3 / 2, no pads), ResNet
// (3 -> 64, 7x7 / 2, pads 3), with the activations they fuse.
TEST(ConvNchwcStem, MatchesConvOnNetworkShapes) {
  std::mt19937 rng(17);
  for (const Layer& l : {Layer{3, 32, 33, 3, 2, 1}, Layer{3, 64, 31, 3, 2, 0}, Layer{3, 64, 38, 7, 2, 3},
                         Layer{3, 32, 16, 3, 2, 1, 2}, Layer{1, 16, 28, 5, 1, 2}}) {
    for (const char* act : {"Clip", "Swish", "Relu"})
      for (int threads : {1, 2}) {
        Case c = LayerCase(l, act, threads);
        c.stem = true;
        Check(c, &rng);
        if (HasFatalFailure()) return;
        if (l.k == 3 && l.pad == 1) {  // SAME padding of TensorFlow's exporters
          c.pads[0] = c.pads[1] = 0;
          Check(c, &rng);
          if (HasFatalFailure()) return;
        }
      }
  }
}

TEST(ConvNchwc, ActivePathFollowsTheGemm) {
  const NchwcIsa active = ActiveNchwcIsa();
  const std::vector<NchwcIsa> supported = SupportedNchwcIsas();
  EXPECT_EQ(supported.front(), NchwcIsa::kGeneric);
  EXPECT_NE(std::find(supported.begin(), supported.end(), active), supported.end());
  const char* forced = std::getenv("LOOM_CPU_ISA");
  if (forced && std::string(forced) == "generic") {
    EXPECT_EQ(active, NchwcIsa::kGeneric);
  }
  if (forced && std::string(forced) == "avx2" && supported.size() > 1) {
    EXPECT_EQ(active, NchwcIsa::kAvx2);
  }
  const bool has_avx512 = std::find(supported.begin(), supported.end(), NchwcIsa::kAvx512) != supported.end();
  if (forced && std::string(forced) == "avx512" && has_avx512) {
    EXPECT_EQ(active, NchwcIsa::kAvx512);
  }
}

void ExpectInvalid(const Status& st, const char* what) {
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << what << ": " << st.ToString();
}

TEST(ConvNchwc, RejectsBadNodes) {
  const TestTensor x = TestTensor::Of<float>({1, 2, 5, 5, kB}, std::vector<float>(2 * 25 * kB, 1.f));
  const TestTensor w = TestTensor::Const<float>({3, 2, 3, 3, kB, kB}, std::vector<float>(3 * 2 * 9 * 64, 1.f));
  const Shape y = {1, 3, 5, 5, kB};
  const Attributes pad1 = Window3x3Pad1();
  auto run = [&](const Attributes& a, const std::vector<TestTensor>& in, const Shape& out) {
    return RunOneThread("ConvNchwc", a, in, out);
  };
  ASSERT_TRUE(run(pad1, {x, w}, y).ok());
  ExpectInvalid(run(pad1, {TestTensor::Of<float>({1, 16, 5, 5}, std::vector<float>(400)), w}, y), "NCHW X");
  ExpectInvalid(run(pad1, {TestTensor::Of<float>({1, 2, 5, 5, 4}, std::vector<float>(200)), w}, y), "block of 4");
  ExpectInvalid(run(pad1, {TestTensor::Of<float>({1, 1, 5, 5, kB}, std::vector<float>(200)), w}, y), "Cin blocks");
  ExpectInvalid(run(pad1, {TestTensor::Of<double>({1, 2, 5, 5, kB}, std::vector<double>(400)), w}, y), "dtype");
  ExpectInvalid(run(pad1, {x, TestTensor::Const<float>({3, 2, 3, 3, kB}, std::vector<float>(3 * 2 * 9 * 8))}, y),
                "W rank");
  ExpectInvalid(run(pad1, {x, w, TestTensor::Of<float>({3}, std::vector<float>(3))}, y), "B size");
  ExpectInvalid(run(pad1, {x, w}, {1, 3, 3, 3, kB}), "output shape");
  ExpectInvalid(run(pad1, {x, w, TestTensor::Absent(), TestTensor::Of<float>(y, std::vector<float>(600))}, y),
                "residual without loom.residual");
  Attributes a = pad1;
  a.SetInt("loom.residual", 1);
  ExpectInvalid(run(a, {x, w, TestTensor::Absent(), TestTensor::Of<float>({1, 3, 5, 5}, std::vector<float>(75))}, y),
                "residual shape");
  a = pad1;
  a.SetInts("kernel_shape", {1, 1});
  ExpectInvalid(run(a, {x, w}, y), "kernel_shape");
  a = pad1;
  a.SetInts("strides", {0, 1});
  ExpectInvalid(run(a, {x, w}, y), "stride 0");
  a = pad1;
  a.SetInts("pads", {1, 1});
  ExpectInvalid(run(a, {x, w}, y), "pads length");
  a = pad1;
  a.SetInt("group", 2);
  ExpectInvalid(run(a, {x, w}, y), "group");
  ExpectInvalid(run({}, {TestTensor::Of<float>({1, 2, 2, 2, kB}, std::vector<float>(64)), w}, {1, 3, 0, 0, kB}),
                "window larger than the input");
  const TestTensor none = TestTensor::Absent();
  const TestTensor scale = TestTensor::Of<float>({1, 2, 1, 1, kB}, std::vector<float>(16, 0.5f));
  ExpectInvalid(run(pad1, {x, w, none, none, scale}, y), "scale without loom.input_scale");
  a = pad1;
  a.SetInt("loom.input_scale", 1);
  ASSERT_TRUE(run(a, {x, w, none, none, scale}, y).ok());
  ExpectInvalid(run(a, {x, w}, y), "loom.input_scale without a scale");
  ExpectInvalid(run(a, {x, w, none, none, TestTensor::Of<float>({1, 16, 1, 1}, std::vector<float>(16))}, y),
                "NCHW scale");
  ExpectInvalid(run(a, {x, w, none, none, TestTensor::Of<float>({2, 2, 1, 1, kB}, std::vector<float>(32))}, y),
                "scale batch");
  a = pad1;
  a.SetString("loom.activation", "Gelu");
  EXPECT_EQ(run(a, {x, w}, y).code(), StatusCode::kUnsupported);
}

TEST(ConvNchwcStem, RejectsBadNodes) {
  const TestTensor x = TestTensor::Of<float>({1, 3, 5, 5}, std::vector<float>(75, 1.f));
  const TestTensor w = TestTensor::Const<float>({2, 3, 3, 3, kB}, std::vector<float>(2 * 27 * kB, 1.f));
  const Shape y = {1, 2, 5, 5, kB};
  const Attributes pad1 = Window3x3Pad1();
  auto run = [&](const Attributes& a, const std::vector<TestTensor>& in, const Shape& out) {
    return RunOneThread("ConvNchwcStem", a, in, out);
  };
  ASSERT_TRUE(run(pad1, {x, w}, y).ok());
  ExpectInvalid(run(pad1, {TestTensor::Of<float>({1, 1, 5, 5, kB}, std::vector<float>(200)), w}, y), "blocked X");
  ExpectInvalid(run(pad1, {TestTensor::Of<float>({1, 4, 5, 5}, std::vector<float>(100)), w}, y), "Cin");
  ExpectInvalid(run(pad1, {x, TestTensor::Const<float>({2, 3, 3, 3, 4}, std::vector<float>(2 * 27 * 4))}, y),
                "W block of 4");
  ExpectInvalid(run(pad1, {x, TestTensor::Const<float>({2, 1, 3, 3, kB, kB}, std::vector<float>(2 * 9 * 64))}, y),
                "blocked W");
  ExpectInvalid(run(pad1, {x, w, TestTensor::Of<float>({8}, std::vector<float>(8))}, y), "B size");
  ExpectInvalid(run(pad1, {x, w}, {1, 16, 5, 5}), "NCHW output");
  Attributes a = pad1;
  a.SetInt("loom.input_scale", 1);
  ExpectInvalid(run(a,
                    {x, w, TestTensor::Absent(), TestTensor::Absent(),
                     TestTensor::Of<float>({1, 3, 1, 1}, std::vector<float>(3))},
                    y),
                "loom.input_scale on the stem");
  a = pad1;
  a.SetInt("group", 3);
  ExpectInvalid(run(a, {x, w}, y), "group");
  a = pad1;
  a.SetInt("loom.residual", 1);
  ExpectInvalid(run(a, {x, w, TestTensor::Absent(), TestTensor::Of<float>({1, 16, 5, 5}, std::vector<float>(400))}, y),
                "NCHW residual");
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Median time in ms of `reps` runs of the kernel `id` prepared on `setup`:
// the thread's CPU time with 1 thread (robust on a busy machine), wall time
// with more.
double MedianMs(const char* id, const KernelSetup& setup, const std::vector<TestTensor>& in, int threads, int reps) {
  std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById(id)->create();
  const Status st = kernel->Prepare(setup);
  if (!st.ok()) return -1;
  std::vector<const void*> ins;
  for (const TestTensor& t : in) ins.push_back(t.bytes.data());
  std::vector<float> y(static_cast<size_t>(NumElements(setup.outputs[0].shape)));
  void* outs[1] = {y.data()};
  std::vector<double> scratch(kernel->ScratchBytes(threads) / sizeof(double) + 8);
  StaticThreadPool pool(threads);
  KernelArgs args;
  args.inputs = ins.data();
  args.outputs = outs;
  args.num_inputs = ins.size();
  args.num_outputs = 1;
  args.scratch = scratch.data();
  args.pool = threads > 1 ? &pool : nullptr;
  std::vector<double> ms;
  for (int rep = 0; rep < reps + 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = ThreadCpuMs();
    if (!kernel->Run(args).ok()) return -1;
    const double cpu = ThreadCpuMs() - c0;
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rep >= 3) ms.push_back(threads == 1 ? cpu : wall);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// ConvNchwc against Conv on the same 1x1 and 3x3 layers, and ConvNchwcStem
// against Conv on the zoo's stems (reported, not asserted: the machine is
// shared).
TEST(ConvNchwc, LayerTimings) {
  // A measurement, not a check: opt in with LOOM_KERNEL_TIMINGS=1.
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  std::mt19937 rng(3);
  std::vector<Case> cases;
  for (const Layer& l : {Layer{16, 96, 112, 1, 1, 0}, Layer{32, 16, 112, 1, 1, 0}, Layer{576, 96, 14, 1, 1, 0},
                         Layer{144, 24, 56, 1, 1, 0}, Layer{960, 320, 7, 1, 1, 0}, Layer{32, 32, 55, 3, 1, 1},
                         Layer{64, 64, 27, 3, 2, 1}, Layer{16, 64, 13, 3, 1, 1}, Layer{512, 1000, 13, 1, 1, 0}})
    cases.push_back(LayerCase(l, "Relu", 1));
  for (const Layer& l : {Layer{3, 32, 224, 3, 2, 1}, Layer{3, 64, 224, 3, 2, 0}, Layer{3, 64, 224, 7, 2, 3}}) {
    cases.push_back(LayerCase(l, "Relu", 1));
    cases.back().stem = true;
  }
  for (const Case& c : cases) {
    const int64_t oh = c.OutH(), ow = c.OutW(), taps = c.kh * c.kw;
    const std::vector<float> x = Random(c.cin * c.h * c.w, &rng), w = Random(c.cout * c.cin * taps, &rng),
                             b = Random(c.cout, &rng);
    const std::vector<TestTensor> in = {TestTensor::Of<float>({1, c.cin, c.h, c.w}, x),
                                        TestTensor::Const<float>({c.cout, c.cin, c.kh, c.kw}, w),
                                        TestTensor::Of<float>({c.cout}, b)};
    std::vector<TestTensor> in_b = KernelInputs(c, x, w);
    in_b.push_back(in[2]);
    const std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, c.cout, oh, ow})};
    const std::vector<TestTensor> out_b = {TestTensor::Empty(DType::kFloat32, {1, c.cout / kB, oh, ow, kB})};
    const double flops = 2.0 * c.cout * oh * ow * c.cin * taps;
    const std::string id = std::string("cpu.") + OpOf(c) + ".loom";
    for (int threads : {1, 2}) {
      const double nchw = MedianMs("cpu.Conv", testing::MakeKernelSetup("Conv", Attrs(c), in, out), in, threads, 51);
      const double blocked = MedianMs(
          id.c_str(), testing::MakeKernelSetup(OpOf(c), Attrs(c), in_b, out_b, Options(1, "loom")), in_b, threads, 51);
      std::printf("%s %4lld->%-4lld %3lldx%-3lld k%lld s%lld threads %d: Conv %7.3f ms, %s %7.3f ms (%5.1f GFLOP/s)\n",
                  NchwcIsaName(ActiveNchwcIsa()), static_cast<long long>(c.cin), static_cast<long long>(c.cout),
                  static_cast<long long>(c.h), static_cast<long long>(c.w), static_cast<long long>(c.kh),
                  static_cast<long long>(c.sh), threads, nchw, OpOf(c), blocked, flops / blocked / 1e6);
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
