// Timing of the int8 Conv against the float Conv ("cpu.Conv") on ResNet-18's
// layer shapes (and two depthwise ones): a measurement printed for people,
// not a check. Opt in with
// LOOM_KERNEL_TIMINGS=1; 3x3 stride-1 layers print a second row, "wino",
// with the int8 Winograd path (conv_winograd_s8.h) forced on, the first row
// having it off; single-threaded runs report the thread's CPU time
// (robust on a busy machine), two threads wall time.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"
#include "kernels/cpu/int8/conv_winograd_s8.h"
#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/linear_test_util.h"

namespace loom {
namespace int8 {
namespace {

using testing::TestTensor;

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Layer {
  const char* name;
  int64_t c, h, m, k, stride, pad;  // square input, kernel and pads
  int64_t group = 1;
};

// Best time of a few runs of `kernel_id` on the node.
double TimeKernel(const std::string& kernel_id, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                  const TestTensor& output, int threads) {
  KernelSetup setup;
  setup.op = "Conv";
  setup.attrs = attrs;
  for (const TestTensor& t : inputs) setup.inputs.push_back(t.Info());
  setup.outputs.push_back(output.Info());
  std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById(kernel_id)->create();
  const Status st = kernel->Prepare(setup);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return 0;
  std::vector<uint8_t> y(output.bytes.size());
  std::vector<const void*> ins;
  for (const TestTensor& t : inputs) ins.push_back(t.bytes.data());
  void* outs[1] = {y.data()};
  StaticThreadPool pool(threads);
  std::vector<double> scratch(kernel->ScratchBytes(threads) / sizeof(double) + 16);
  KernelArgs args;
  args.inputs = ins.data();
  args.outputs = outs;
  args.num_inputs = ins.size();
  args.num_outputs = 1;
  args.scratch = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) / 64 * 64);
  args.pool = threads > 1 ? &pool : nullptr;
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    const auto w0 = std::chrono::steady_clock::now();
    const double c0 = ThreadCpuSeconds();
    EXPECT_TRUE(kernel->Run(args).ok());
    const double cpu = ThreadCpuSeconds() - c0;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    best = std::min(best, threads == 1 ? cpu : wall);
  }
  return best;
}

// Weights as the quantizer makes them from trained ones: per output channel,
// normal values scaled so the largest magnitude is 127 (uniform random int8
// weights would be far larger on average, unlike any real layer's).
std::vector<int8_t> TrainedLikeWeights(int64_t channels, int64_t per_channel, std::mt19937* gen) {
  std::normal_distribution<double> dist(0.0, 1.0);
  std::vector<int8_t> w(static_cast<size_t>(channels * per_channel));
  std::vector<double> v(static_cast<size_t>(per_channel));
  for (int64_t c = 0; c < channels; ++c) {
    double max_abs = 1e-9;
    for (double& x : v) max_abs = std::max(max_abs, std::abs(x = dist(*gen)));
    for (int64_t i = 0; i < per_channel; ++i)
      w[c * per_channel + i] = static_cast<int8_t>(std::lround(v[i] / max_abs * 127.0));
  }
  return w;
}

TEST(Int8ConvTest, LayerTimings) {
  if (!std::getenv("LOOM_KERNEL_TIMINGS")) GTEST_SKIP() << "set LOOM_KERNEL_TIMINGS=1 to print timings";
  const Layer layers[] = {
      {"stem 3x224x224 7x7/2 -> 64", 3, 224, 64, 7, 2, 3},
      {"64x56x56 3x3 -> 64", 64, 56, 64, 3, 1, 1},
      {"64x56x56 3x3/2 -> 128", 64, 56, 128, 3, 2, 1},
      {"64x56x56 1x1/2 -> 128", 64, 56, 128, 1, 2, 0},
      {"128x28x28 3x3 -> 128", 128, 28, 128, 3, 1, 1},
      {"128x28x28 1x1/2 -> 256", 128, 28, 256, 1, 2, 0},
      {"256x14x14 3x3 -> 256", 256, 14, 256, 3, 1, 1},
      {"256x14x14 1x1/2 -> 512", 256, 14, 512, 1, 2, 0},
      {"512x7x7 3x3 -> 512", 512, 7, 512, 3, 1, 1},
      {"256x56x56 1x1 -> 64", 256, 56, 64, 1, 1, 0},
      {"depthwise 144x56x56 3x3", 144, 56, 144, 3, 1, 1, 144},
      {"depthwise 144x56x56 3x3/2", 144, 56, 144, 3, 2, 1, 144},
  };
  std::mt19937 gen(1);
  const GemmS8Impl saved = ActiveGemmS8Impl();
  std::vector<GemmS8Impl> impls = AvailableGemmS8Impls();
  std::printf("%-28s %7s %9s", "Conv (ms)", "threads", "fp32");
  for (GemmS8Impl impl : impls) std::printf(" %9s %7s", (std::string("int8 ") + GemmS8ImplName(impl)).c_str(), "x");
  std::printf("\n");
  for (const Layer& l : layers) {
    const Shape x_shape = {1, l.c, l.h, l.h}, w_shape = {l.m, l.c / l.group, l.k, l.k};
    const int64_t out = (l.h + 2 * l.pad - l.k) / l.stride + 1;
    const Shape y_shape = {1, l.m, out, out};
    Attributes attrs;
    attrs.SetInts("strides", {l.stride, l.stride});
    attrs.SetInts("pads", {l.pad, l.pad, l.pad, l.pad});
    if (l.group != 1) attrs.SetInt("group", l.group);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> xf(static_cast<size_t>(NumElements(x_shape))), wf(static_cast<size_t>(NumElements(w_shape)));
    for (float& v : xf) v = dist(gen);
    for (float& v : wf) v = dist(gen);
    const std::vector<TestTensor> f_in = {TestTensor::Of<float>(x_shape, xf), TestTensor::Const<float>(w_shape, wf),
                                          TestTensor::Const<float>({l.m}, std::vector<float>(l.m, 0.1f))};
    const linear_test::LinearQuant q =
        linear_test::RandomLinearQuant(l.m, l.c / l.group * l.k * l.k, true, linear_test::Clamp(), &gen);
    const std::vector<TestTensor> q_in = {
        TestTensor::Of<int8_t>(x_shape, linear_test::RandomInt8(NumElements(x_shape), &gen))
            .WithQuant({q.x_scale}, {q.x_zero_point}),
        TestTensor::Const<int8_t>(w_shape, TrainedLikeWeights(l.m, NumElements(w_shape) / l.m, &gen))
            .WithQuant(q.w_scales, std::vector<int64_t>(q.w_scales.size(), 0)),
        TestTensor::Const<int32_t>({l.m}, linear_test::RandomInt32(l.m, &gen, -10000, 10000))};
    const TestTensor f_out = TestTensor::Empty(DType::kFloat32, y_shape);
    const TestTensor q_out = TestTensor::Empty(DType::kInt8, y_shape).WithQuant({q.y_scale}, {q.y_zero_point});
    const bool winograd = l.k == 3 && l.stride == 1 && l.group == 1;
    for (int threads : {1, 2}) {
      const double f = TimeKernel("cpu.Conv", attrs, f_in, f_out, threads);
      for (WinogradS8Mode mode : {WinogradS8Mode::kOff, WinogradS8Mode::kOn}) {
        if (mode == WinogradS8Mode::kOn && !winograd) continue;
        SetWinogradS8Mode(mode);
        std::printf("%-23s %4s %7d %9.3f", l.name, mode == WinogradS8Mode::kOn ? "wino" : "", threads, f * 1e3);
        for (GemmS8Impl impl : impls) {
          ASSERT_TRUE(SetGemmS8Impl(impl));
          const double i = TimeKernel("cpu.Conv.int8", attrs, q_in, q_out, threads);
          std::printf(" %9.3f %6.2fx", i * 1e3, f / i);
        }
        std::printf("\n");
      }
    }
    SetWinogradS8Mode(WinogradS8Mode::kAuto);
  }
  SetGemmS8Impl(saved);
}

}  // namespace
}  // namespace int8
}  // namespace loom
