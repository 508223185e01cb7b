#include "kernels/cpu/nn/activation_epilogue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace loom {
namespace nn {
namespace {

KernelSetup SetupWith(const std::string& name) {
  KernelSetup s;
  s.op = "Conv";
  if (!name.empty()) s.attrs.SetString("loom.activation", name);
  return s;
}

const std::vector<float> kInputs = {-100.f, -3.5f, -1.f, -0.25f, 0.f, 0.3f, 1.f, 2.5f, 7.f, 100.f};

void ExpectApplies(const KernelSetup& s, const std::function<double(double)>& ref) {
  Activation act;
  Status st = ParseActivation(s, &act);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<float> f = kInputs;
  std::vector<double> d(kInputs.begin(), kInputs.end());
  ApplyActivation(act, f.data(), static_cast<int64_t>(f.size()));
  ApplyActivation(act, d.data(), static_cast<int64_t>(d.size()));
  for (size_t i = 0; i < kInputs.size(); ++i) {
    EXPECT_NEAR(f[i], ref(kInputs[i]), 1e-6) << "x=" << kInputs[i];
    EXPECT_NEAR(d[i], ref(kInputs[i]), 1e-6) << "x=" << kInputs[i];
  }
}

TEST(ActivationEpilogue, NoneWhenAbsent) {
  Activation act;
  ASSERT_TRUE(ParseActivation(SetupWith(""), &act).ok());
  EXPECT_TRUE(act.none());
  std::vector<float> v = kInputs;
  ApplyActivation(act, v.data(), static_cast<int64_t>(v.size()));
  EXPECT_EQ(v, kInputs);
}

TEST(ActivationEpilogue, EachKindMatchesOnnx) {
  ExpectApplies(SetupWith("Relu"), [](double x) { return x > 0 ? x : 0; });
  ExpectApplies(SetupWith("Tanh"), [](double x) { return std::tanh(x); });
  ExpectApplies(SetupWith("Sigmoid"), [](double x) { return 1 / (1 + std::exp(-x)); });
  ExpectApplies(SetupWith("Swish"), [](double x) { return x / (1 + std::exp(-x)); });
  KernelSetup swish = SetupWith("Swish");
  swish.attrs.SetFloat("loom.activation_alpha", 0.5f);
  ExpectApplies(swish, [](double x) { return x / (1 + std::exp(-0.5 * x)); });
  // Clip: both bounds, only min (max absent = +inf), ReLU6.
  KernelSetup clip = SetupWith("Clip");
  clip.attrs.SetFloat("loom.activation_min", -1.f);
  clip.attrs.SetFloat("loom.activation_max", 2.f);
  ExpectApplies(clip, [](double x) { return std::min(2.0, std::max(-1.0, x)); });
  KernelSetup clip_min = SetupWith("Clip");
  clip_min.attrs.SetFloat("loom.activation_min", 0.5f);
  ExpectApplies(clip_min, [](double x) { return std::max(0.5, x); });
  KernelSetup leaky = SetupWith("LeakyRelu");
  ExpectApplies(leaky, [](double x) { return x < 0 ? 0.01f * x : x; });
  leaky.attrs.SetFloat("loom.activation_alpha", 0.2f);
  ExpectApplies(leaky, [](double x) { return x < 0 ? 0.2f * x : x; });
  KernelSetup hs = SetupWith("HardSigmoid");
  ExpectApplies(hs, [](double x) { return std::max(0.0, std::min(1.0, 0.2f * x + 0.5)); });
  hs.attrs.SetFloat("loom.activation_alpha", 0.5f);
  hs.attrs.SetFloat("loom.activation_beta", 0.25f);
  ExpectApplies(hs, [](double x) { return std::max(0.0, std::min(1.0, 0.5 * x + 0.25)); });
  ExpectApplies(SetupWith("HardSwish"), [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); });
}

TEST(ActivationEpilogue, RejectsBadAttributes) {
  Activation act;
  EXPECT_EQ(ParseActivation(SetupWith("Gelu"), &act).code(), StatusCode::kUnsupported);
  KernelSetup s = SetupWith("Clip");
  s.attrs.SetFloat("loom.activation_min", 3.f);
  s.attrs.SetFloat("loom.activation_max", 1.f);
  EXPECT_EQ(ParseActivation(s, &act).code(), StatusCode::kInvalidArgument);
  s = SetupWith("Clip");
  s.attrs.SetInt("loom.activation_min", 0);
  EXPECT_EQ(ParseActivation(s, &act).code(), StatusCode::kInvalidArgument);
  s = SetupWith("");
  s.attrs.SetInt("loom.activation", 1);
  EXPECT_EQ(ParseActivation(s, &act).code(), StatusCode::kInvalidArgument);
  Status st = ParseActivation(SetupWith("Elu"), &act);
  EXPECT_EQ(st.message(), "unsupported fused activation 'Elu'");
}

}  // namespace
}  // namespace nn
}  // namespace loom
