// Winograd convolution (conv_winograd.h) against a direct double-precision
// reference: random shapes (channels 1..70, H/W 1..20, symmetric and
// asymmetric pads), bias on/off, every fused activation, both tile sizes,
// every GEMM / transform path this CPU supports, serial and threaded; the
// channel-blocked layout (NCHW8c X, Y and residual); and the Conv kernel with the path forced on and off by
// LOOM_CONV_WINOGRAD.
#include "kernels/cpu/nn/conv_winograd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/thread_pool.h"
#include "kernels/cpu/testing/kernel_tester.h"
#include "kernels/cpu/testing/nchwc_layout.h"

namespace loom {
namespace nn {
namespace {

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) : storage(bytes + 64) {}
  void* data() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    return storage.data() + ((64 - p % 64) % 64);
  }
  std::vector<char> storage;
};

std::vector<float> RandomFloats(size_t n, std::mt19937* gen) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(*gen);
  return v;
}

// Direct 3x3 stride-1 convolution in double, before the activation.
std::vector<double> Reference(const WinogradConvShape& s, const std::vector<float>& x, const std::vector<float>& w,
                              const float* bias) {
  const int64_t oh = s.OutH(), ow = s.OutW();
  std::vector<double> y(static_cast<size_t>(s.batch * s.out_channels * oh * ow));
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t co = 0; co < s.out_channels; ++co)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = bias ? bias[co] : 0.0;
          for (int64_t ci = 0; ci < s.in_channels; ++ci)
            for (int64_t kh = 0; kh < 3; ++kh)
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t ih = i + kh - s.pad_top, iw = j + kw - s.pad_left;
                if (ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) continue;
                acc += static_cast<double>(x[((n * s.in_channels + ci) * s.in_h + ih) * s.in_w + iw]) *
                       w[(co * s.in_channels + ci) * 9 + kh * 3 + kw];
              }
          y[((n * s.out_channels + co) * oh + i) * ow + j] = acc;
        }
  return y;
}

std::vector<Activation> AllActivations() {
  std::vector<Activation> acts(9);
  acts[1].kind = ActivationKind::kRelu;
  acts[2].kind = ActivationKind::kClip;
  acts[2].min = -0.5f;
  acts[2].max = 0.75f;
  acts[3].kind = ActivationKind::kLeakyRelu;
  acts[3].alpha = 0.1f;
  acts[4].kind = ActivationKind::kSigmoid;
  acts[5].kind = ActivationKind::kHardSigmoid;
  acts[5].alpha = 0.2f;
  acts[5].beta = 0.5f;
  acts[6].kind = ActivationKind::kHardSwish;
  acts[6].alpha = 1.f / 6.f;
  acts[6].beta = 0.5f;
  acts[7].kind = ActivationKind::kTanh;
  acts[8].kind = ActivationKind::kSwish;
  acts[8].alpha = 1.5f;
  return acts;
}

WinogradConvShape RandomShape(std::mt19937* gen) {
  std::uniform_int_distribution<int> ch(1, 70), hw(1, 20), pad(0, 1), batch(1, 2);
  WinogradConvShape s;
  do {
    s.batch = batch(*gen);
    s.in_channels = ch(*gen);
    s.out_channels = ch(*gen);
    s.in_h = hw(*gen);
    s.in_w = hw(*gen);
    s.pad_top = pad(*gen);
    s.pad_left = pad(*gen);
    s.pad_bottom = pad(*gen);
    s.pad_right = pad(*gen);
  } while (s.OutH() < 1 || s.OutW() < 1);
  return s;
}

// Max |got - act(ref)| over the max |ref| (pre-activation, at least 1e-3).
double RelativeError(const std::vector<float>& got, std::vector<double> ref, const Activation& act) {
  double scale = 1e-3;
  for (double v : ref) scale = std::max(scale, std::fabs(v));
  ApplyActivation(act, ref.data(), static_cast<int64_t>(ref.size()));
  double err = got.size() == ref.size() ? 0.0 : 1e30;
  for (size_t i = 0; i < got.size() && i < ref.size(); ++i) err = std::max(err, std::fabs(got[i] - ref[i]));
  return err / scale;
}

std::string Describe(const WinogradConvShape& s, int m, const GemmF32Isa& isa, int act, bool bias, int threads) {
  return "F(" + std::to_string(m) + ",3) " + isa.name + " N" + std::to_string(s.batch) + " C" +
         std::to_string(s.in_channels) + "->" + std::to_string(s.out_channels) + " " + std::to_string(s.in_h) + "x" +
         std::to_string(s.in_w) + " pads " + std::to_string(s.pad_top) + std::to_string(s.pad_left) +
         std::to_string(s.pad_bottom) + std::to_string(s.pad_right) + " act " + std::to_string(act) +
         (bias ? " bias" : "") + " threads " + std::to_string(threads);
}

TEST(ConvWinogradTest, RandomShapesMatchDirectReference) {
  std::mt19937 gen(1234);
  const std::vector<Activation> acts = AllActivations();
  StaticThreadPool pool(2);
  for (const GemmF32Isa* isa : SupportedGemmF32Isas()) {
    for (int iter = 0; iter < 40; ++iter) {
      const WinogradConvShape s = RandomShape(&gen);
      const std::vector<float> x = RandomFloats(static_cast<size_t>(s.batch * s.in_channels * s.in_h * s.in_w), &gen);
      const std::vector<float> w = RandomFloats(static_cast<size_t>(s.out_channels * s.in_channels * 9), &gen);
      const std::vector<float> b = RandomFloats(static_cast<size_t>(s.out_channels), &gen);
      const bool use_bias = iter % 2 == 0;
      const int a = iter % static_cast<int>(acts.size());
      const std::vector<double> ref = Reference(s, x, w, use_bias ? b.data() : nullptr);
      for (int m : {2, 4}) {
        // Small blocks on odd iterations so several blocks (and threads) run.
        WinogradConvF32 conv;
        conv.Prepare(s, m, w.data(), acts[a], *isa, iter % 2 ? isa->mr : 0);
        for (int threads : {1, 2}) {
          AlignedBuffer scratch(conv.ScratchBytes(threads));
          std::vector<float> y(ref.size(), 12345.f);
          conv.Run(x.data(), use_bias ? b.data() : nullptr, y.data(), scratch.data(), threads > 1 ? &pool : nullptr);
          const double err = RelativeError(y, ref, acts[a]);
          EXPECT_LE(err, m == 4 ? 2e-5 : 5e-6) << Describe(s, m, *isa, a, use_bias, threads);
        }
      }
    }
  }
}

TEST(ConvWinogradTest, EdgeShapes) {
  std::mt19937 gen(77);
  // 1x1 input with pads (one partial tile), exact tile multiples, one row,
  // more input channels than one KC block.
  const WinogradConvShape shapes[] = {
      {1, 3, 5, 1, 1, 1, 1, 1, 1},    {1, 8, 8, 6, 6, 0, 0, 0, 0},   {1, 4, 4, 10, 10, 1, 1, 1, 1},
      {1, 5, 3, 3, 20, 0, 1, 0, 1},   {2, 16, 33, 9, 7, 1, 0, 0, 1}, {1, 1, 1, 3, 3, 0, 0, 0, 0},
      {1, 400, 21, 5, 6, 1, 1, 1, 0},  // two KC blocks of input channels
  };
  for (const GemmF32Isa* isa : SupportedGemmF32Isas()) {
    for (const WinogradConvShape& s : shapes) {
      const std::vector<float> x = RandomFloats(static_cast<size_t>(s.batch * s.in_channels * s.in_h * s.in_w), &gen);
      const std::vector<float> w = RandomFloats(static_cast<size_t>(s.out_channels * s.in_channels * 9), &gen);
      const std::vector<float> b = RandomFloats(static_cast<size_t>(s.out_channels), &gen);
      const std::vector<double> ref = Reference(s, x, w, b.data());
      for (int m : {2, 4}) {
        WinogradConvF32 conv;
        conv.Prepare(s, m, w.data(), Activation(), *isa);
        AlignedBuffer scratch(conv.ScratchBytes(1));
        std::vector<float> y(ref.size(), 12345.f);
        conv.Run(x.data(), b.data(), y.data(), scratch.data(), nullptr);
        // The rounding error grows with the sum over input channels: about
        // 1.5e-5 at 400 channels (the same with the filter transform in double).
        EXPECT_LE(RelativeError(y, ref, Activation()), s.in_channels > 100 ? 4e-5 : 2e-5)
            << Describe(s, m, *isa, 0, true, 1);
      }
    }
  }
}

// Random shapes (partial edge tiles, several blocks and threads), every
// activation, both tiles, every path, with X, Y and the residual in NCHW
// (channel_block 1) or NCHW8c (8: channels in multiples of 8). A residual
// (Conv + Add), on all iterations but every 4th, is added to every valid
// output element before the activation.
void ExpectRandomShapesWithResidual(unsigned seed, int64_t channel_block) {
  using testing::FromNchwcLayout;
  using testing::ToNchwcLayout;
  std::mt19937 gen(seed);
  const std::vector<Activation> acts = AllActivations();
  StaticThreadPool pool(2);
  std::uniform_int_distribution<int> blocks(1, 6);
  // NCHW <-> the tested layout.
  auto to_layout = [&](const std::vector<float>& v, int64_t n, int64_t c, int64_t hw) {
    return channel_block == 1 ? v : ToNchwcLayout(v, n, c, hw);
  };
  auto from_layout = [&](const std::vector<float>& v, int64_t n, int64_t c, int64_t hw) {
    return channel_block == 1 ? v : FromNchwcLayout(v, n, c, hw);
  };
  for (const GemmF32Isa* isa : SupportedGemmF32Isas()) {
    for (int iter = 0; iter < 16; ++iter) {
      WinogradConvShape s = RandomShape(&gen);
      if (channel_block != 1) {
        s.in_channels = channel_block * blocks(gen);
        s.out_channels = channel_block * blocks(gen);
        s.channel_block = channel_block;
      }
      const int64_t in_hw = s.in_h * s.in_w, out_hw = s.OutH() * s.OutW();
      const std::vector<float> x = RandomFloats(static_cast<size_t>(s.batch * s.in_channels * in_hw), &gen);
      const std::vector<float> w = RandomFloats(static_cast<size_t>(s.out_channels * s.in_channels * 9), &gen);
      const std::vector<float> b = RandomFloats(static_cast<size_t>(s.out_channels), &gen);
      const bool residual = iter % 4 != 3;
      std::vector<double> ref = Reference(s, x, w, iter % 2 ? b.data() : nullptr);
      const std::vector<float> r = RandomFloats(ref.size(), &gen);
      if (residual)
        for (size_t i = 0; i < ref.size(); ++i) ref[i] += r[i];
      const std::vector<float> xl = to_layout(x, s.batch, s.in_channels, in_hw);
      const std::vector<float> rl = to_layout(r, s.batch, s.out_channels, out_hw);
      const int a = iter % static_cast<int>(acts.size());
      for (int m : {2, 4}) {
        WinogradConvF32 conv;
        conv.Prepare(s, m, w.data(), acts[a], *isa, iter % 3 ? isa->mr : 0);
        for (int threads : {1, 2}) {
          AlignedBuffer scratch(conv.ScratchBytes(threads));
          std::vector<float> y(ref.size(), 12345.f);
          conv.Run(xl.data(), iter % 2 ? b.data() : nullptr, y.data(), scratch.data(), threads > 1 ? &pool : nullptr,
                   residual ? rl.data() : nullptr);
          EXPECT_LE(RelativeError(from_layout(y, s.batch, s.out_channels, out_hw), ref, acts[a]), m == 4 ? 2e-5 : 5e-6)
              << "block " << channel_block << (residual ? " residual " : " ")
              << Describe(s, m, *isa, a, iter % 2, threads);
        }
      }
    }
  }
}

TEST(ConvWinogradTest, ResidualBeforeActivation) { ExpectRandomShapesWithResidual(4321, 1); }

TEST(ConvWinogradTest, BlockedLayoutMatchesDirectReference) { ExpectRandomShapesWithResidual(808, 8); }

// The Conv kernel with the Winograd path forced on (both tiles) and off gives
// the reference result; the rule's own choice too.
TEST(ConvWinogradTest, ConvKernelForcedOnAndOff) {
  using testing::RunKernel;
  using testing::RunOptions;
  using testing::TestTensor;
  std::mt19937 gen(99);
  const WinogradConvShape s = {1, 24, 40, 15, 13, 1, 0, 1, 1};
  const std::vector<float> x = RandomFloats(static_cast<size_t>(s.in_channels * s.in_h * s.in_w), &gen);
  const std::vector<float> w = RandomFloats(static_cast<size_t>(s.out_channels * s.in_channels * 9), &gen);
  const std::vector<float> b = RandomFloats(static_cast<size_t>(s.out_channels), &gen);
  const std::vector<double> ref = Reference(s, x, w, b.data());
  Attributes attrs;
  attrs.SetInts("kernel_shape", {3, 3});
  attrs.SetInts("pads", {1, 0, 1, 1});
  attrs.SetString("loom.activation", "Relu");
  Activation relu;
  relu.kind = ActivationKind::kRelu;
  const char* saved = std::getenv("LOOM_CONV_WINOGRAD");
  const std::string saved_value = saved ? saved : "";
  for (const char* mode : {"0", "f2", "f4", ""}) {
    if (*mode) {
      setenv("LOOM_CONV_WINOGRAD", mode, 1);
    } else {
      unsetenv("LOOM_CONV_WINOGRAD");
    }
    for (int threads : {1, 2}) {
      std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, s.out_channels, s.OutH(), s.OutW()})};
      RunOptions opt;
      opt.threads = threads;
      ASSERT_TRUE(RunKernel("Conv", attrs,
                            {TestTensor::Of<float>({1, s.in_channels, s.in_h, s.in_w}, x),
                             TestTensor::Const<float>({s.out_channels, s.in_channels, 3, 3}, w),
                             TestTensor::Const<float>({s.out_channels}, b)},
                            &out, opt)
                      .ok());
      EXPECT_LE(RelativeError(out[0].As<float>(), ref, relu), 2e-5) << "mode '" << mode << "' threads " << threads;
    }
  }
  if (saved) {
    setenv("LOOM_CONV_WINOGRAD", saved_value.c_str(), 1);
  } else {
    unsetenv("LOOM_CONV_WINOGRAD");
  }
}

TEST(ConvWinogradTest, WithoutWeightsSetsUpTheSameGeometry) {
  // A builder that only checks the kernel prepares it without weights; the
  // geometry (hence the scratch it asks for) must not depend on them.
  std::mt19937 gen(11);
  const WinogradConvShape s = {2, 64, 96, 28, 28, 1, 1, 1, 1};
  const std::vector<float> w = RandomFloats(static_cast<size_t>(s.out_channels * s.in_channels * 9), &gen);
  for (int m : {2, 4}) {
    WinogradConvF32 with, without;
    with.Prepare(s, m, w.data(), Activation());
    without.Prepare(s, m, nullptr, Activation());
    EXPECT_EQ(with.tile_m(), without.tile_m());
    for (int threads : {1, 2, 4}) EXPECT_EQ(with.ScratchBytes(threads), without.ScratchBytes(threads)) << m;
  }
}

}  // namespace
}  // namespace nn
}  // namespace loom
