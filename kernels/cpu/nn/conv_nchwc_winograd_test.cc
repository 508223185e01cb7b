// loom.ConvNchwc's Winograd path: the 3x3 stride-1 shapes that run through
// it against the direct NCHW Conv, its transformed filters as a derived
// constant, the path the attribute loom.winograd picks, the tactics the
// kernel offers the builder, and bad loom.winograd values. Runs on the
// process's path: CMake runs it once per path (LOOM_CPU_ISA).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/cpu/nn/conv_nchwc.h"
#include "kernels/cpu/nn/conv_nchwc_test_util.h"
#include "kernels/cpu/nn/conv_winograd.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace nn {
namespace {

using namespace conv_nchwc_test;  // NOLINT(build/namespaces): the file's helpers
using testing::TestTensor;

// The Winograd convolution of a 3x3 stride-1 case.
WinogradConvShape WinogradShapeOfCase(const Case& c) {
  WinogradConvShape ws;
  ws.batch = c.n;
  ws.in_channels = c.cin;
  ws.out_channels = c.cout;
  ws.in_h = c.h;
  ws.in_w = c.w;
  ws.pad_top = c.pads[0];
  ws.pad_left = c.pads[1];
  ws.pad_bottom = c.pads[2];
  ws.pad_right = c.pads[3];
  return ws;
}

// Unsets LOOM_CONV_WINOGRAD, which overrides both loom.winograd and the
// rule, while it lives.
class WithoutWinogradOverride {
 public:
  WithoutWinogradOverride() {
    if (const char* e = std::getenv("LOOM_CONV_WINOGRAD")) {
      saved_ = e;
      was_set_ = true;
    }
    unsetenv("LOOM_CONV_WINOGRAD");
  }
  ~WithoutWinogradOverride() {
    if (was_set_) setenv("LOOM_CONV_WINOGRAD", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
  bool was_set_ = false;
};

// 3x3 stride-1 layers for which ChooseWinogradTile picks a tile (F(2x2) and
// F(4x4), batch 2, asymmetric pads, partial edge tiles): the blocked
// Winograd gives the direct NCHW Conv's result with bias, residual and
// activations, on 1 to 3 threads.
TEST(ConvNchwc, WinogradShapesMatchDirectConv) {
  std::mt19937 rng(21);
  struct WinogradCase {
    Layer l;
    int64_t pads[4];
    int tile;  // what ChooseWinogradTile picks
  };
  const WinogradCase cases[] = {{{32, 32, 8, 3, 1, 1}, {1, 1, 1, 1}, 2},  {{64, 32, 13, 3, 1, 1}, {1, 1, 1, 1}, 2},
                                {{16, 64, 28, 3, 1, 1}, {1, 1, 1, 1}, 4}, {{32, 48, 27, 3, 1, 1, 2}, {1, 1, 1, 1}, 4},
                                {{40, 32, 25, 3, 1, 0}, {0, 1, 1, 0}, 4}, {{128, 16, 9, 3, 1, 0}, {1, 0, 0, 1}, 2}};
  int i = 0;
  for (const WinogradCase& wc : cases) {
    for (int threads : {1, 2, 3}) {
      Case c = LayerCase(wc.l, i % 3 == 0 ? "Relu" : i % 3 == 1 ? "Swish" : "", threads);
      std::copy(wc.pads, wc.pads + 4, c.pads);
      c.bias = i % 2 == 0;
      c.residual = i % 4 < 2;
      ASSERT_EQ(ChooseWinogradTile(WinogradShapeOfCase(c)), wc.tile) << c.Describe();
      Check(c, &rng, true);
      if (HasFatalFailure()) return;
      ++i;
    }
  }
}

// The transformed filters of the Winograd path are the kernel's derived
// constant: offered back under their key, they are used in place (poisoned
// bytes change the result; under another key they are ignored).
TEST(ConvNchwc, WinogradFiltersAreADerivedConstant) {
  std::mt19937 rng(8);
  const int64_t cin = 32, cout = 48, hw = 12;
  Case c;
  c.cin = cin;
  c.cout = cout;
  c.h = c.w = hw;
  c.kh = c.kw = 3;
  for (int64_t& p : c.pads) p = 1;
  const std::vector<float> w = Random(cout * cin * 9, &rng);
  const std::vector<TestTensor> in = {
      TestTensor::Of<float>({1, cin / kB, hw, hw, kB}, Random(cin * hw * hw, &rng)),
      TestTensor::Const<float>({cout / kB, cin / kB, 3, 3, kB, kB}, BlockedWeights(w, cout, cin, 9))};
  const TestTensor out = TestTensor::Empty(DType::kFloat32, {1, cout / kB, hw, hw, kB});
  auto run = [&](const std::vector<DerivedConstant>& offered) {
    std::vector<TestTensor> y = {out};
    RunOptions o = Options(1, "loom");
    o.derived = offered;
    const Status st = RunKernel("ConvNchwc", Attrs(c), in, &y, o);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return y[0].As<float>();
  };
  std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById("cpu.ConvNchwc.loom")->create();
  const KernelSetup setup = testing::MakeKernelSetup("ConvNchwc", Attrs(c), in, {out}, Options(1, "loom"));
  ASSERT_TRUE(kernel->Prepare(setup).ok());
  EXPECT_TRUE(kernel->ReadsConstantInput(1));
  const std::vector<DerivedConstant> derived = kernel->DerivedConstants();
  ASSERT_EQ(derived.size(), 1u);
  EXPECT_EQ(derived[0].key.rfind("conv_winograd.filters", 0), 0u) << derived[0].key;
  const std::vector<float> reference = run({});
  // 64-byte aligned copies.
  std::vector<float> storage(derived[0].bytes / sizeof(float) + 16);
  float* copy = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 / sizeof(float);
  std::memcpy(copy, derived[0].data, derived[0].bytes);
  EXPECT_EQ(run({{derived[0].key, copy, derived[0].bytes}}), reference);
  // Taking them, the kernel never reads W (the engine skips checking it):
  // NaN weights change nothing.
  {
    std::vector<TestTensor> nan_in = in;
    nan_in[1] = TestTensor::Const<float>(in[1].shape, std::vector<float>(w.size(), NAN));
    std::vector<TestTensor> y = {out};
    RunOptions o = Options(1, "loom");
    o.derived = {{derived[0].key, copy, derived[0].bytes}};
    ASSERT_TRUE(RunKernel("ConvNchwc", Attrs(c), nan_in, &y, o).ok());
    EXPECT_EQ(y[0].As<float>(), reference);
    KernelSetup offered = setup;
    offered.derived = o.derived;
    std::unique_ptr<Kernel> taker = KernelRegistry::Global().FindById("cpu.ConvNchwc.loom")->create();
    ASSERT_TRUE(taker->Prepare(offered).ok());
    EXPECT_FALSE(taker->ReadsConstantInput(1));
    EXPECT_TRUE(taker->ReadsConstantInput(0));
  }
  std::fill(copy, copy + derived[0].bytes / sizeof(float), 0.f);
  EXPECT_NE(run({{derived[0].key, copy, derived[0].bytes}}), reference);
  EXPECT_EQ(run({{derived[0].key + " other", copy, derived[0].bytes}}), reference);
}

// The kernel `c`'s op prepared on random inputs (bias, residual and scale
// as `c` has them), or null if Prepare fails.
std::unique_ptr<Kernel> PreparedKernel(const Case& c, std::mt19937* rng) {
  const int64_t oh = c.OutH(), ow = c.OutW();
  std::vector<TestTensor> in =
      KernelInputs(c, Random(c.n * c.cin * c.h * c.w, rng), Random(c.cout * c.cin * c.kh * c.kw, rng));
  if (c.bias || c.residual || c.scale)
    in.push_back(c.bias ? TestTensor::Of<float>({c.cout}, Random(c.cout, rng)) : TestTensor::Absent());
  if (c.residual) {
    in.push_back(TestTensor::Of<float>({c.n, c.cout / kB, oh, ow, kB}, Random(c.n * c.cout * oh * ow, rng)));
  } else if (c.scale) {
    in.push_back(TestTensor::Absent());
  }
  if (c.scale) in.push_back(TestTensor::Of<float>({c.n, c.cin / kB, 1, 1, kB}, Random(c.n * c.cin, rng)));
  const TestTensor y = TestTensor::Empty(DType::kFloat32, {c.n, c.cout / kB, oh, ow, kB});
  std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById(std::string("cpu.") + OpOf(c) + ".loom")->create();
  const Status st = kernel->Prepare(testing::MakeKernelSetup(OpOf(c), Attrs(c), in, {y}, Options(1, "loom")));
  EXPECT_TRUE(st.ok()) << c.Describe() << ": " << st.ToString();
  if (!st.ok()) return nullptr;
  return kernel;
}

// loom.winograd picks the path of a 3x3 stride-1 conv, whatever the rule
// would: 0 the direct path (no Winograd filters derived), 2 and 4 that
// Winograd tile (its transformed filters derived); each gives the direct
// NCHW Conv's result, without and with bias and Relu.
TEST(ConvNchwc, WinogradAttributeChoosesThePath) {
  const WithoutWinogradOverride no_override;
  std::mt19937 rng(31);
  for (const bool epilogue : {false, true})
    for (const int tile : {0, 2, 4}) {
      Case c = LayerCase(Layer{32, 32, 12, 3, 1, 1}, epilogue ? "Relu" : "", epilogue ? 2 : 1);
      c.bias = epilogue;
      c.winograd = tile;
      Check(c, &rng, true);
      if (HasFatalFailure()) return;
      const std::unique_ptr<Kernel> kernel = PreparedKernel(c, &rng);
      ASSERT_NE(kernel, nullptr);
      const std::vector<DerivedConstant> derived = kernel->DerivedConstants();
      const bool winograd = !derived.empty() && derived[0].key.rfind("conv_winograd.filters", 0) == 0;
      EXPECT_EQ(winograd, tile != 0) << c.Describe();
      if (winograd) {
        EXPECT_EQ(derived[0].key.rfind("conv_winograd.filters f" + std::to_string(tile) + " ", 0), 0u)
            << derived[0].key;
      }
    }
}

// A 3x3 stride-1 conv with constant W offers loom.winograd's three values,
// the rule's tile first, under a key of its shapes (not of its bias,
// residual or activation); other convs offer none.
TEST(ConvNchwc, OffersWinogradTactics) {
  const WithoutWinogradOverride no_override;
  std::mt19937 rng(37);
  auto tactics = [&](const Case& c) {
    const std::unique_ptr<Kernel> kernel = PreparedKernel(c, &rng);
    return kernel ? kernel->Tactics() : KernelTactics{"failed", {}, ""};
  };
  // The rule picks F(2x2) at 8x8 and F(4x4) at 28x28 (WinogradShapesMatchDirectConv).
  std::vector<std::string> keys;
  for (const Layer& l : {Layer{32, 32, 8, 3, 1, 1}, Layer{16, 64, 28, 3, 1, 1}}) {
    Case c = LayerCase(l, "", 1);
    c.bias = false;
    SCOPED_TRACE(c.Describe());
    const KernelTactics t = tactics(c);
    EXPECT_EQ(t.attribute, "loom.winograd");
    ASSERT_EQ(t.values.size(), 3u);
    EXPECT_EQ(t.values[0], ChooseWinogradTile(WinogradShapeOfCase(c)));
    EXPECT_EQ(t.values[0], l.hw == 8 ? 2 : 4);
    std::vector<int64_t> sorted = t.values;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<int64_t>{0, 2, 4}));
    EXPECT_FALSE(t.timing_key.empty());
    keys.push_back(t.timing_key);
    Case e = c;
    e.bias = e.residual = true;
    e.act = "Swish";
    const KernelTactics te = tactics(e);
    EXPECT_EQ(te.attribute, t.attribute);
    EXPECT_EQ(te.values, t.values);
    EXPECT_EQ(te.timing_key, t.timing_key);
    Case batch2 = c;
    batch2.n = 2;
    EXPECT_NE(tactics(batch2).timing_key, t.timing_key);
  }
  EXPECT_NE(keys[0], keys[1]);
  Case pointwise = LayerCase(Layer{32, 32, 8, 1, 1, 0}, "", 1);
  Case strided = LayerCase(Layer{32, 32, 9, 3, 2, 1}, "", 1);
  Case runtime_w = LayerCase(Layer{32, 32, 8, 3, 1, 1}, "", 1);
  runtime_w.runtime_w = true;
  Case scaled = runtime_w;
  scaled.runtime_w = false;
  scaled.scale = true;
  Case stem = LayerCase(Layer{3, 32, 8, 3, 1, 1}, "", 1);
  stem.stem = true;
  for (const Case& c : {pointwise, strided, runtime_w, scaled, stem}) {
    const KernelTactics t = tactics(c);
    EXPECT_TRUE(t.attribute.empty()) << c.Describe() << ": " << t.attribute;
    EXPECT_TRUE(t.values.empty()) << c.Describe();
  }
}

void ExpectInvalidWith(const Status& st, const std::string& message) {
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find(message), std::string::npos) << st.message();
}

// loom.winograd is 0, 2 or 4 (an int); a tile only on a conv that can run
// through Winograd (3x3, stride 1, constant W, not the stem, no
// loom.input_scale), while 0 suits any conv.
TEST(ConvNchwc, RejectsBadWinogradAttribute) {
  const TestTensor x = TestTensor::Of<float>({1, 2, 5, 5, kB}, std::vector<float>(2 * 25 * kB, 1.f));
  const std::vector<float> ones(3 * 2 * 9 * 64, 1.f);
  const TestTensor w = TestTensor::Const<float>({3, 2, 3, 3, kB, kB}, ones);
  const Shape y = {1, 3, 5, 5, kB};
  const Attributes pad1 = Window3x3Pad1();
  auto run = [&](int64_t winograd, Attributes a, const std::vector<TestTensor>& in, const Shape& out,
                 const char* op = "ConvNchwc") {
    a.SetInt("loom.winograd", winograd);
    return RunOneThread(op, a, in, out);
  };
  for (int64_t tile : {0, 2, 4}) EXPECT_TRUE(run(tile, pad1, {x, w}, y).ok()) << tile;
  for (int64_t bad : {3, 1, -1, 8}) {
    SCOPED_TRACE(bad);
    ExpectInvalidWith(run(bad, pad1, {x, w}, y), "attribute loom.winograd must be 0, 2 or 4");
  }
  Attributes a = pad1;
  a.SetFloat("loom.winograd", 2.f);
  ExpectInvalidWith(RunOneThread("ConvNchwc", a, {x, w}, y), "attribute loom.winograd must be 0, 2 or 4");

  Attributes stride2 = pad1;
  stride2.SetInts("strides", {2, 2});
  const Shape y2 = {1, 3, 3, 3, kB};
  ExpectInvalidWith(run(2, stride2, {x, w}, y2),
                    "loom.winograd 2 needs a 3x3 stride-1 convolution with constant weights");
  ExpectInvalidWith(run(4, stride2, {x, w}, y2), "loom.winograd 4 needs a 3x3 stride-1");
  EXPECT_TRUE(run(0, stride2, {x, w}, y2).ok());

  const TestTensor runtime_w = TestTensor::Of<float>({3, 2, 3, 3, kB, kB}, ones);
  ExpectInvalidWith(run(2, pad1, {x, runtime_w}, y), "loom.winograd 2 needs a 3x3 stride-1");
  EXPECT_TRUE(run(0, pad1, {x, runtime_w}, y).ok());

  Attributes pointwise;
  pointwise.SetInts("kernel_shape", {1, 1});
  const TestTensor w1 = TestTensor::Const<float>({3, 2, 1, 1, kB, kB}, std::vector<float>(3 * 2 * 64, 1.f));
  ExpectInvalidWith(run(4, pointwise, {x, w1}, y), "loom.winograd 4 needs a 3x3 stride-1");
  EXPECT_TRUE(run(0, pointwise, {x, w1}, y).ok());

  Attributes scaled = pad1;
  scaled.SetInt("loom.input_scale", 1);
  const TestTensor none = TestTensor::Absent();
  const TestTensor scale = TestTensor::Of<float>({1, 2, 1, 1, kB}, std::vector<float>(16, 0.5f));
  ExpectInvalidWith(run(2, scaled, {x, w, none, none, scale}, y), "loom.winograd 2 needs a 3x3 stride-1");
  EXPECT_TRUE(run(0, scaled, {x, w, none, none, scale}, y).ok());

  const TestTensor stem_x = TestTensor::Of<float>({1, 3, 5, 5}, std::vector<float>(75, 1.f));
  const TestTensor stem_w = TestTensor::Const<float>({2, 3, 3, 3, kB}, std::vector<float>(2 * 27 * kB, 1.f));
  const Shape stem_y = {1, 2, 5, 5, kB};
  ExpectInvalidWith(run(2, pad1, {stem_x, stem_w}, stem_y, "ConvNchwcStem"), "loom.winograd 2 needs a 3x3 stride-1");
  EXPECT_TRUE(run(0, pad1, {stem_x, stem_w}, stem_y, "ConvNchwcStem").ok());
}

}  // namespace
}  // namespace nn
}  // namespace loom
