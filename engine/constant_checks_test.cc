// Constants with their own checksums (format 2.2): the engine checks those
// the kernels read, and the zero bytes between them; a constant a derived
// constant replaced is not checked, and damage there changes nothing. Plans
// without them have their whole constants section checked.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/testing/plan_writer.h"
#include "engine/testing/test_kernels.h"
#include "loom/engine.h"

namespace loom {
namespace {

using testing::LoadLe64;
using testing::PlanWriter;

constexpr float kB[4] = {1, 2, 3, 4};
constexpr float kPacked[4] = {10, 20, 30, 40};
const std::vector<float> kX = {0.5f, -1, 2, 8};

// y = Packed(x, b), optionally offered the derived constant `key` (4 floats).
struct PackedPlan {
  PlanWriter w;
  int b = -1, packed = -1, y = -1;

  explicit PackedPlan(const std::string& key, bool constant_checksums = true, float b0 = kB[0]) {
    const int x = w.Activation("x", DType::kFloat32, {4});
    y = w.Activation("y", DType::kFloat32, {4});
    b = w.Constant<float>("b", {4}, {b0, kB[1], kB[2], kB[3]});
    std::vector<uint8_t> bytes(sizeof(kPacked));
    std::memcpy(bytes.data(), kPacked, sizeof(kPacked));
    packed = w.ConstantBytes("packed", DType::kUInt8, {static_cast<int64_t>(bytes.size())}, bytes);
    w.Input(x);
    w.AddNode("add", "Packed", "test.Packed", {x, b}, {y}).derived = {{key, packed}};
    w.Output(y);
    w.constant_checksums = constant_checksums;
  }

  // The file offset of byte `at` of constant tensor `t` (after Finish).
  size_t At(const std::vector<uint8_t>& plan, int t, size_t at) const {
    return static_cast<size_t>(LoadLe64(plan, testing::kConstantsOffsetAt) + w.tensors[t].offset) + at;
  }
};

// `plan` with a bit flipped at `at`, as if the file were damaged there.
std::vector<uint8_t> Damaged(std::vector<uint8_t> plan, size_t at) {
  plan[at] ^= 0x10;
  return plan;
}

Status Load(const std::vector<uint8_t>& plan, std::shared_ptr<const Engine>* engine) {
  return Engine::LoadFromBuffer(plan.data(), plan.size(), testing::TestKernelRegistry(), engine);
}

// Runs the loaded plan on kX.
std::vector<float> RunOnX(const Engine& engine) {
  std::unique_ptr<ExecutionContext> ctx;
  EXPECT_TRUE(engine.CreateContext(ContextOptions(), &ctx).ok());
  std::vector<float> y(4);
  EXPECT_TRUE(ctx->SetInput("x", kX.data(), kX.size() * sizeof(float)).ok());
  EXPECT_TRUE(ctx->SetOutput("y", y.data(), y.size() * sizeof(float)).ok());
  EXPECT_TRUE(ctx->Run().ok());
  return y;
}

bool Contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

TEST(ConstantChecksTest, ReplacedConstantIsNotChecked) {
  PackedPlan p("test.packed");
  const std::vector<uint8_t> plan = p.w.Finish();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Load(plan, &engine).ok());
  const std::vector<float> y = RunOnX(*engine);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], kX[i] + kPacked[i]) << i;

  // b's bytes are never read: damage there loads and computes the same.
  std::shared_ptr<const Engine> damaged;
  const Status s = Load(Damaged(plan, p.At(plan, p.b, 5)), &damaged);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(RunOnX(*damaged), y);
}

TEST(ConstantChecksTest, TakenDerivedConstantIsChecked) {
  PackedPlan p("test.packed");
  const std::vector<uint8_t> plan = p.w.Finish();
  std::shared_ptr<const Engine> engine;
  const Status s = Load(Damaged(plan, p.At(plan, p.packed, 7)), &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "plan constant 'packed' (tensor 3) checksum mismatch (file damaged)")) << s.message();
}

TEST(ConstantChecksTest, ReadConstantIsCheckedAndUntakenDerivedIsNot) {
  PackedPlan p("another.key");  // the kernel does not take it: it reads b
  const std::vector<uint8_t> plan = p.w.Finish();
  std::shared_ptr<const Engine> engine;
  Status s = Load(Damaged(plan, p.At(plan, p.b, 2)), &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "plan constant 'b' (tensor 2) checksum mismatch")) << s.message();

  s = Load(Damaged(plan, p.At(plan, p.packed, 0)), &engine);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::vector<float> y = RunOnX(*engine);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y[i], kX[i] + kB[i]) << i;
}

// A damaged constant that makes its kernel refuse the node is reported as
// damage, not as the kernel's complaint.
TEST(ConstantChecksTest, DamageThatMakesPrepareFailIsReportedAsDamage) {
  PackedPlan p("another.key");
  const std::vector<uint8_t> plan = p.w.Finish();
  std::vector<uint8_t> bad = plan;
  bad[p.At(plan, p.b, 3)] ^= 0x80;  // b[0]'s sign: Prepare refuses a negative b[0]
  std::shared_ptr<const Engine> engine;
  const Status s = Load(bad, &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "plan constant 'b' (tensor 2) checksum mismatch")) << s.message();

  // An intact plan with a negative b[0] gets the kernel's own message.
  PackedPlan negative("another.key", true, -1.f);
  const Status refused = Load(negative.w.Finish(), &engine);
  EXPECT_TRUE(Contains(refused, "b[0] is negative")) << refused.message();
}

TEST(ConstantChecksTest, PaddingBetweenConstantsIsChecked) {
  PackedPlan p("test.packed");
  const std::vector<uint8_t> plan = p.w.Finish();
  // b holds 16 bytes; the next constant starts 64 bytes after it.
  std::shared_ptr<const Engine> engine;
  const Status s = Load(Damaged(plan, p.At(plan, p.b, 16)), &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "non-zero bytes between its constants")) << s.message();
}

// The header's section checksum is not read with the constants, but its copy
// in the metadata guards it.
TEST(ConstantChecksTest, HeaderChecksumMustMatchTheMetadatasCopy) {
  PackedPlan p("test.packed");
  const std::vector<uint8_t> plan = p.w.Finish();
  std::shared_ptr<const Engine> engine;
  const Status s = Load(Damaged(plan, testing::kConstantsChecksumAt + 3), &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "constants checksum differs from the metadata's copy")) << s.message();
}

// LoadOptions::check_all_constants reads every byte, replaced constants too.
TEST(ConstantChecksTest, CheckAllConstantsChecksTheWholeSection) {
  PackedPlan p("test.packed");
  const std::vector<uint8_t> plan = p.w.Finish();
  LoadOptions options;
  options.registry = &testing::TestKernelRegistry();
  options.check_all_constants = true;
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Engine::LoadFromBuffer(plan.data(), plan.size(), options, &engine).ok());
  const std::vector<uint8_t> bad = Damaged(plan, p.At(plan, p.b, 5));  // b is replaced, yet checked
  const Status s = Engine::LoadFromBuffer(bad.data(), bad.size(), options, &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "plan constants section checksum mismatch")) << s.message();
}

TEST(ConstantChecksTest, PlanWithoutConstantChecksumsHasItsWholeSectionChecked) {
  PackedPlan p("test.packed", /*constant_checksums=*/false);
  const std::vector<uint8_t> plan = p.w.Finish();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Load(plan, &engine).ok());
  const Status s = Load(Damaged(plan, p.At(plan, p.b, 5)), &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "plan constants section checksum mismatch")) << s.message();
}

// Each Tensor.checksum is Checksum64x8 of the constant's own bytes: another
// constant's bytes in its place fail.
TEST(ConstantChecksTest, SwappedConstantsFail) {
  PackedPlan p("another.key");
  std::vector<uint8_t> plan = p.w.Finish();
  // Put packed's bytes where b's are: both 16 bytes.
  std::memcpy(plan.data() + p.At(plan, p.b, 0), plan.data() + p.At(plan, p.packed, 0), 16);
  std::shared_ptr<const Engine> engine;
  const Status s = Load(plan, &engine);
  EXPECT_TRUE(Contains(s, "plan constant 'b'")) << s.message();
}

}  // namespace
}  // namespace loom
