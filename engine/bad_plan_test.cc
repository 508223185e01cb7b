// Damaged plans must be refused with a clear Status, never crash (this test
// also runs under AddressSanitizer with LOOM_SANITIZE=ON):
//   - random single and multi bit flips anywhere in the file: all refused;
//   - random byte mutations of the metadata with the checksums recomputed
//     ("re-sealed"), which reach the flatbuffers Verifier and the semantic
//     checks: each either refused, or loads and runs without crashing.
#include <gtest/gtest.h>

#include <random>

#include "engine/testing/plan_writer.h"
#include "engine/testing/sample_plan.h"
#include "engine/testing/test_kernels.h"
#include "loom/engine.h"

// A damaged plan may ask for an absurd arena; under ASan let the allocation
// fail (the engine reports it) instead of aborting the test.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace loom {
namespace {

Status Load(const std::vector<uint8_t>& bytes, std::shared_ptr<const Engine>* engine) {
  return Engine::LoadFromBuffer(bytes.data(), bytes.size(), testing::TestKernelRegistry(), engine);
}

TEST(BadPlanTest, RefusesRandomBitFlips) {
  const std::vector<uint8_t> plan = testing::SamplePlan();
  std::mt19937 rng(1234);
  std::uniform_int_distribution<size_t> bit(0, plan.size() * 8 - 1);
  int refused = 0;
  const int kVariants = 400;
  for (int v = 0; v < kVariants; ++v) {
    std::vector<uint8_t> bad = plan;
    const int flips = v < kVariants / 2 ? 1 : 2 + v % 7;
    std::string where;
    for (int f = 0; f < flips; ++f) {
      const size_t b = bit(rng);
      bad[b / 8] ^= static_cast<uint8_t>(1u << (b % 8));
      where += " " + std::to_string(b);
    }
    if (bad == plan) continue;  // two flips of the same bit cancel out
    std::shared_ptr<const Engine> engine;
    const Status s = Load(bad, &engine);
    EXPECT_FALSE(s.ok()) << "variant " << v << " (bits" << where << ") was accepted";
    EXPECT_FALSE(s.message().empty()) << "variant " << v;
    if (!s.ok()) ++refused;
  }
  EXPECT_GE(refused, 200);
}

TEST(BadPlanTest, RefusesEveryHeaderBitFlip) {
  const std::vector<uint8_t> plan = testing::SamplePlan();
  for (size_t b = 0; b < 64 * 8; ++b) {
    std::vector<uint8_t> bad = plan;
    bad[b / 8] ^= static_cast<uint8_t>(1u << (b % 8));
    std::shared_ptr<const Engine> engine;
    EXPECT_FALSE(Load(bad, &engine).ok()) << "header bit " << b;
  }
}

// A plan using every metadata feature the verifier checks: quantization
// parameters, attributes of every kind, an omitted input.
std::vector<uint8_t> FeaturePlan() {
  testing::PlanWriter w = testing::SamplePlanWriter();
  w.tensors[2].quant_scale = {0.5f};
  w.tensors[2].quant_zero_point = {3};
  const int y2 = w.Activation("y2", DType::kFloat32, {2, 16});
  const int none = w.Omitted();
  testing::PlanNode& check = w.AddNode("check", "Check", "test.Check", {3, none}, {y2});
  Attribute ints, floats, strings, text, tensor;
  ints.name = "ints";
  ints.kind = Attribute::Kind::kInts;
  ints.ints = {1, -2, 3};
  floats.name = "floats";
  floats.kind = Attribute::Kind::kFloats;
  floats.floats = {0.5f, 1.5f};
  strings.name = "strings";
  strings.kind = Attribute::Kind::kStrings;
  strings.strings = {"a", "bc"};
  text.name = "mode";
  text.kind = Attribute::Kind::kString;
  text.s = "linear";
  tensor.name = "value";
  tensor.kind = Attribute::Kind::kTensor;
  auto value = std::make_shared<AttrTensor>();
  value->dtype = DType::kInt64;
  value->dims = {2};
  value->data.resize(16, 1);
  tensor.tensor = value;
  check.attributes = {ints, floats, strings, text, tensor};
  w.Output(y2);
  return w.Finish();
}

// Re-sealed mutations: the checksums match, so the structure and semantic
// checks (and the kernels' Prepare) are what stand between the bytes and a run.
void MutateAndRun(const std::vector<uint8_t>& plan, uint32_t seed, int variants) {
  {
    std::shared_ptr<const Engine> engine;
    const Status s = Load(plan, &engine);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const size_t meta_at = testing::LoadLe64(plan, testing::kMetadataOffsetAt);
  const size_t meta_bytes = testing::LoadLe64(plan, testing::kMetadataBytesAt);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pos(meta_at, meta_at + meta_bytes - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int refused = 0, ran = 0;
  for (int v = 0; v < variants; ++v) {
    std::vector<uint8_t> bad = plan;
    const int edits = 1 + v % 4;
    for (int e = 0; e < edits; ++e) {
      const size_t at = pos(rng);
      // Mix random bytes with values likely to hit size and index fields.
      static const uint8_t kSpecial[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, 0x40};
      bad[at] =
          v % 3 == 0 ? kSpecial[static_cast<size_t>(byte(rng)) % sizeof(kSpecial)] : static_cast<uint8_t>(byte(rng));
    }
    testing::ResealPlan(&bad);
    std::shared_ptr<const Engine> engine;
    const Status s = Load(bad, &engine);
    if (!s.ok()) {
      EXPECT_FALSE(s.message().empty());
      ++refused;
      continue;
    }
    // Accepted: whatever it describes passed every check, so it must run safely.
    std::unique_ptr<ExecutionContext> ctx;
    if (!engine->CreateContext({2}, &ctx).ok()) continue;
    std::vector<std::vector<uint64_t>> buffers;
    for (const TensorDesc& in : engine->inputs()) {
      if (in.size_bytes > (1u << 20)) continue;  // leaves it unbound: Run must refuse
      buffers.emplace_back(in.size_bytes / 8 + 1, 0);
      (void)ctx->SetInput(in.name, buffers.back().data(), in.size_bytes);
    }
    (void)ctx->Run();
    ++ran;
  }
  EXPECT_GT(refused, variants / 3);
  std::printf("re-sealed mutations: %d refused, %d loaded and ran\n", refused, ran);
}

TEST(BadPlanTest, ResealedMetadataMutationsNeverCrash) { MutateAndRun(testing::SamplePlan(), 99, 3000); }

TEST(BadPlanTest, ResealedMutationsOfAllFeaturesNeverCrash) { MutateAndRun(FeaturePlan(), 7, 3000); }

}  // namespace
}  // namespace loom
