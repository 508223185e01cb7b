// The Conv and Gemm kernels' derived constants (kernels/common/kernel.h): the
// packed weights of Conv's GEMM path, the transformed filters of its Winograd
// path and Gemm's packed constant B come out of one kernel and, offered to
// another, are used in place: the same
// result as deriving them itself, a different one when the offered bytes are
// poisoned (proof that they were used), and ignored under another key or size.
// A kernel that uses them never reads the raw weights (NaN weights change
// nothing) and says so (ReadsConstantInput), so the engine skips checking them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

// 64-byte aligned copies of a kernel's derived constants, alive with the struct.
struct HeldConstants {
  std::vector<std::unique_ptr<float[]>> storage;
  std::vector<DerivedConstant> constants;
  void Add(const DerivedConstant& d) {
    storage.emplace_back(new float[d.bytes / sizeof(float) + 16]);
    char* p = reinterpret_cast<char*>(storage.back().get());
    p += (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64;
    std::memcpy(p, d.data, d.bytes);
    constants.push_back({d.key, p, d.bytes});
  }
};

std::vector<float> RandomFloats(std::mt19937* gen, int64_t n) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(*gen);
  return v;
}

struct ConvCase {
  const char* name;
  int64_t cin, cout, h, w, k;
  const char* winograd;  // LOOM_CONV_WINOGRAD while preparing
};

class ConvDerivedTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvDerivedTest, OfferedConstantsAreUsedInPlace) {
  const ConvCase c = GetParam();
  setenv("LOOM_CONV_WINOGRAD", c.winograd, 1);
  std::mt19937 gen(5);
  auto random = [&](int64_t n) { return RandomFloats(&gen, n); };
  const int64_t pad = c.k / 2;
  Attributes attrs;
  attrs.SetInts("kernel_shape", {c.k, c.k});
  attrs.SetInts("pads", {pad, pad, pad, pad});
  const std::vector<TestTensor> inputs = {TestTensor::Of<float>({1, c.cin, c.h, c.w}, random(c.cin * c.h * c.w)),
                                          TestTensor::Const<float>({c.cout, c.cin, c.k, c.k},
                                                                   random(c.cout * c.cin * c.k * c.k)),
                                          TestTensor::Const<float>({c.cout}, random(c.cout))};
  auto run_on = [&](const std::vector<TestTensor>& in, const std::vector<DerivedConstant>& offered) {
    std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {1, c.cout, c.h, c.w})};
    RunOptions options;
    options.derived = offered;
    const Status s = RunKernel("Conv", attrs, in, &out, options);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out[0].As<float>();
  };
  auto run = [&](const std::vector<DerivedConstant>& offered) { return run_on(inputs, offered); };

  // What a kernel prepared as the engine prepares it derives.
  const KernelSetup setup =
      testing::MakeKernelSetup("Conv", attrs, inputs, {TestTensor::Empty(DType::kFloat32, {1, c.cout, c.h, c.w})});
  std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById("cpu.Conv")->create();
  ASSERT_TRUE(kernel->Prepare(setup).ok());
  EXPECT_TRUE(kernel->ReadsConstantInput(1)) << c.name;
  const std::vector<DerivedConstant> derived = kernel->DerivedConstants();
  ASSERT_EQ(derived.size(), 1u) << c.name;
  EXPECT_NE(derived[0].key.find(std::string(c.winograd) == "0" ? "conv.weights" : "conv_winograd"),
            std::string::npos)
      << derived[0].key;
  HeldConstants held;
  held.Add(derived[0]);

  const std::vector<float> reference = run({});
  EXPECT_EQ(run(held.constants), reference) << c.name;
  std::vector<TestTensor> nan_weights = inputs;
  nan_weights[1] = TestTensor::Const<float>(inputs[1].shape, std::vector<float>(inputs[1].As<float>().size(), NAN));
  EXPECT_EQ(run_on(nan_weights, held.constants), reference) << c.name;
  KernelSetup offered = setup;
  offered.derived = held.constants;
  std::unique_ptr<Kernel> taker = KernelRegistry::Global().FindById("cpu.Conv")->create();
  ASSERT_TRUE(taker->Prepare(offered).ok());
  EXPECT_FALSE(taker->ReadsConstantInput(1)) << c.name;
  EXPECT_TRUE(taker->ReadsConstantInput(2)) << c.name;

  // Poisoned bytes under the right key change the result: they are used.
  HeldConstants poisoned;
  poisoned.Add(derived[0]);
  std::memset(const_cast<void*>(poisoned.constants[0].data), 0, poisoned.constants[0].bytes);
  EXPECT_NE(run(poisoned.constants), reference) << c.name;
  // Under another key, or with another size, they are not.
  poisoned.constants[0].key += " other";
  EXPECT_EQ(run(poisoned.constants), reference) << c.name;
  poisoned.constants[0].key = derived[0].key;
  poisoned.constants[0].bytes -= 64;
  EXPECT_EQ(run(poisoned.constants), reference) << c.name;
  unsetenv("LOOM_CONV_WINOGRAD");
}

INSTANTIATE_TEST_SUITE_P(ConvDerived, ConvDerivedTest,
                         ::testing::Values(ConvCase{"gemm_3x3", 8, 20, 9, 11, 3, "0"},
                                           ConvCase{"gemm_1x1", 24, 40, 7, 5, 1, "0"},
                                           ConvCase{"winograd_f2", 16, 24, 10, 10, 3, "f2"},
                                           ConvCase{"winograd_f4", 16, 24, 12, 12, 3, "f4"}),
                         [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

// A constant B (either orientation) packed by one Gemm kernel is used in place
// by another.
TEST(GemmDerivedTest, OfferedPackedBIsUsedInPlace) {
  std::mt19937 gen(7);
  auto random = [&](int64_t n) { return RandomFloats(&gen, n); };
  const int64_t m = 5, k = 37, n = 29;
  for (int64_t trans_b : {0, 1}) {
    Attributes attrs;
    attrs.SetInt("transB", trans_b);
    const Shape b_shape = trans_b ? Shape{n, k} : Shape{k, n};
    const std::vector<TestTensor> inputs = {TestTensor::Of<float>({m, k}, random(m * k)),
                                            TestTensor::Const<float>(b_shape, random(k * n)),
                                            TestTensor::Const<float>({n}, random(n))};
    auto run_on = [&](const std::vector<TestTensor>& in, const std::vector<DerivedConstant>& offered) {
      std::vector<TestTensor> out = {TestTensor::Empty(DType::kFloat32, {m, n})};
      RunOptions options;
      options.derived = offered;
      const Status s = RunKernel("Gemm", attrs, in, &out, options);
      EXPECT_TRUE(s.ok()) << s.ToString();
      return out[0].As<float>();
    };
    auto run = [&](const std::vector<DerivedConstant>& offered) { return run_on(inputs, offered); };
    const KernelSetup setup =
        testing::MakeKernelSetup("Gemm", attrs, inputs, {TestTensor::Empty(DType::kFloat32, {m, n})});
    std::unique_ptr<Kernel> kernel = KernelRegistry::Global().FindById("cpu.Gemm")->create();
    ASSERT_TRUE(kernel->Prepare(setup).ok());
    EXPECT_TRUE(kernel->ReadsConstantInput(1));
    const std::vector<DerivedConstant> derived = kernel->DerivedConstants();
    ASSERT_EQ(derived.size(), 1u);
    EXPECT_EQ(derived[0].key.find("gemm.b "), 0u) << derived[0].key;
    HeldConstants held;
    held.Add(derived[0]);
    const std::vector<float> reference = run({});
    EXPECT_EQ(run(held.constants), reference) << "transB " << trans_b;
    std::vector<TestTensor> nan_b = inputs;
    nan_b[1] = TestTensor::Const<float>(b_shape, std::vector<float>(static_cast<size_t>(k * n), NAN));
    EXPECT_EQ(run_on(nan_b, held.constants), reference) << "transB " << trans_b;
    KernelSetup offered = setup;
    offered.derived = held.constants;
    std::unique_ptr<Kernel> taker = KernelRegistry::Global().FindById("cpu.Gemm")->create();
    ASSERT_TRUE(taker->Prepare(offered).ok());
    EXPECT_FALSE(taker->ReadsConstantInput(1)) << "transB " << trans_b;
    EXPECT_TRUE(taker->ReadsConstantInput(2)) << "transB " << trans_b;
    std::memset(const_cast<void*>(held.constants[0].data), 0, held.constants[0].bytes);
    EXPECT_NE(run(held.constants), reference) << "transB " << trans_b;
    held.constants[0].key += " other";
    EXPECT_EQ(run(held.constants), reference) << "transB " << trans_b;
  }
}

}  // namespace
}  // namespace loom
