// The plan file header: magic, version, layout, padding and checksums, and
// file errors (missing, empty, not a file).
#include "engine/plan_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "common/checksum.h"
#include "engine/testing/plan_writer.h"
#include "engine/testing/sample_plan.h"
#include "engine/testing/test_kernels.h"
#include "loom/engine.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace {

using testing::LoadLe64;
using testing::ResealPlan;
using testing::SamplePlan;
using testing::StoreLe64;

Status Load(const std::vector<uint8_t>& bytes) {
  std::shared_ptr<const Engine> engine;
  return Engine::LoadFromBuffer(bytes.data(), bytes.size(), testing::TestKernelRegistry(), &engine);
}

bool Contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

TEST(PlanFileTest, AcceptsWellFormedPlan) {
  const std::vector<uint8_t> plan = SamplePlan();
  std::unique_ptr<PlanFile> file;
  ASSERT_TRUE(PlanFile::FromBuffer(plan.data(), plan.size(), &file).ok());
  EXPECT_EQ(file->layout().format_major, kPlanFormatMajor);
  EXPECT_EQ(file->metadata_bytes(), LoadLe64(plan, testing::kMetadataBytesAt));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(file->constants()) % kPlanAlignment, 0u);
  EXPECT_EQ(file->constants_bytes(), 128u);
}

TEST(PlanFileTest, RefusesWrongMagic) {
  std::vector<uint8_t> plan = SamplePlan();
  plan[3] = 'X';
  const Status s = Load(plan);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "not a Loom plan")) << s.message();
}

TEST(PlanFileTest, RefusesNewerMajorNamingBothVersions) {
  testing::PlanWriter w = testing::SamplePlanWriter();
  w.format_major = 3;
  w.format_minor = 0;
  const Status s = Load(w.Finish());
  EXPECT_EQ(s.code(), StatusCode::kVersionMismatch);
  EXPECT_TRUE(Contains(s, "plan format 3.0 is newer than this engine (reads 1.x to 2.x)")) << s.message();
}

TEST(PlanFileTest, RefusesOlderMajor) {
  testing::PlanWriter w = testing::SamplePlanWriter();
  w.format_major = 0;
  w.format_minor = 9;
  const Status s = Load(w.Finish());
  EXPECT_EQ(s.code(), StatusCode::kVersionMismatch);
  EXPECT_TRUE(Contains(s, "plan format 0.9 is older than this engine (reads 1.x to 2.x)")) << s.message();
}

TEST(PlanFileTest, VersionIsCheckedBeforeTheRestOfTheHeader) {
  std::vector<uint8_t> plan = SamplePlan();
  plan[testing::kHeaderMajorAt] = 3;
  plan.resize(20);  // truncated, but the version is what matters first
  EXPECT_EQ(Load(plan).code(), StatusCode::kVersionMismatch);
}

TEST(PlanFileTest, AcceptsNewerMinor) {
  testing::PlanWriter w = testing::SamplePlanWriter();
  w.format_minor = 7;
  const std::vector<uint8_t> plan = w.Finish();
  std::shared_ptr<const Engine> engine;
  const Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), testing::TestKernelRegistry(), &engine);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(engine->info().format_minor, 7);
}

// Format 1.0 had no Tensor.memory_space; such plans load, run, and read as host.
TEST(PlanFileTest, LoadsAndRunsFormat10Plan) {
  testing::PlanWriter w = testing::SamplePlanWriter();
  w.format_major = 1;
  w.format_minor = 0;
  const std::vector<uint8_t> plan = w.Finish();
  const plan::Plan* metadata = plan::GetPlan(plan.data() + LoadLe64(plan, testing::kMetadataOffsetAt));
  for (const plan::Tensor* t : *metadata->tensors()) {
    // Generated tables inherit flatbuffers::Table privately; this is how they read a field.
    const auto* table = reinterpret_cast<const flatbuffers::Table*>(t);
    ASSERT_EQ(table->GetOptionalFieldOffset(plan::Tensor::VT_MEMORY_SPACE), 0) << "a 1.0 plan has no memory_space";
  }

  std::shared_ptr<const Engine> engine;
  Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), testing::TestKernelRegistry(), &engine);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(engine->info().format_major, 1);
  EXPECT_EQ(engine->info().format_minor, 0);
  for (const TensorDesc& d : engine->inputs()) EXPECT_EQ(d.memory_space, MemorySpace::kHost) << d.name;
  for (const TensorDesc& d : engine->outputs()) EXPECT_EQ(d.memory_space, MemorySpace::kHost) << d.name;

  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({1}, &ctx).ok());
  std::vector<float> x(testing::kSampleSize);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i) - 7.f;
  ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * sizeof(float)).ok());
  s = ctx->Run();
  ASSERT_TRUE(s.ok()) << s.ToString();
  const float* y = static_cast<const float*>(ctx->OutputData("y"));
  EXPECT_EQ(std::vector<float>(y, y + x.size()), testing::SampleExpectedY(x));
}

TEST(PlanFileTest, RefusesHeaderMetadataVersionDisagreement) {
  testing::PlanWriter w = testing::SamplePlanWriter();
  w.metadata_format_minor = 9;
  const Status s = Load(w.Finish());
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, std::to_string(kPlanFormatMajor) + "." + std::to_string(kPlanFormatMinor))) << s.message();
  EXPECT_TRUE(Contains(s, std::to_string(kPlanFormatMajor) + ".9")) << s.message();
}

TEST(PlanFileTest, RefusesEveryTruncation) {
  const std::vector<uint8_t> plan = SamplePlan();
  for (size_t len = 0; len < plan.size(); ++len) {
    std::vector<uint8_t> cut(plan.begin(), plan.begin() + static_cast<std::ptrdiff_t>(len));
    const Status s = Load(cut);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << "length " << len << ": " << s.ToString();
    EXPECT_FALSE(s.message().empty());
  }
}

TEST(PlanFileTest, ChecksumErrorsNameTheSection) {
  std::vector<uint8_t> plan = SamplePlan();
  const uint64_t metadata_at = LoadLe64(plan, testing::kMetadataOffsetAt);
  std::vector<uint8_t> bad = plan;
  bad[metadata_at + 40] ^= 0x10;
  Status s = Load(bad);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "metadata section checksum")) << s.message();

  // A plan with its constants' own checksums (2.2) names the constant; one
  // without them, the section.
  bad = plan;
  bad[LoadLe64(plan, testing::kConstantsOffsetAt) + 5] ^= 0x01;
  s = Load(bad);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "plan constant 'c' (tensor 1) checksum mismatch")) << s.message();

  testing::PlanWriter w = testing::SamplePlanWriter();
  w.constant_checksums = false;
  bad = w.Finish();
  bad[LoadLe64(bad, testing::kConstantsOffsetAt) + 5] ^= 0x01;
  s = Load(bad);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "constants section checksum")) << s.message();
  std::unique_ptr<PlanFile> file;  // PlanFile alone checks the section
  s = PlanFile::FromBuffer(plan.data(), plan.size(), &file);
  EXPECT_TRUE(s.ok()) << s.message();
  bad = plan;
  bad[LoadLe64(plan, testing::kConstantsOffsetAt) + 5] ^= 0x01;
  s = PlanFile::FromBuffer(bad.data(), bad.size(), &file);
  EXPECT_TRUE(Contains(s, "constants section checksum")) << s.message();
}

// 1.x plans carry Checksum64, plans from 2.0 Checksum64x8; the reader picks
// the one of the header's major, so older plans keep loading, and a checksum
// of the other algorithm is a mismatch.
TEST(PlanFileTest, ChecksumAlgorithmFollowsTheFormatMajor) {
  const std::pair<uint16_t, uint16_t> versions[] = {
      {1, 0}, {1, 3}, {2, 0}, {kPlanFormatMajor, kPlanFormatMinor}, {2, 9}};
  for (const auto& [major, minor] : versions) {
    const std::string v = std::to_string(major) + "." + std::to_string(minor);
    testing::PlanWriter w = testing::SamplePlanWriter();
    w.format_major = major;
    w.format_minor = minor;
    const std::vector<uint8_t> plan = w.Finish();
    const uint64_t mo = LoadLe64(plan, testing::kMetadataOffsetAt), mb = LoadLe64(plan, testing::kMetadataBytesAt);
    const uint64_t co = LoadLe64(plan, testing::kConstantsOffsetAt), cb = LoadLe64(plan, testing::kConstantsBytesAt);
    const bool lanes = major >= 2;
    const uint64_t old_metadata = Checksum64(plan.data() + mo, mb), old_constants = Checksum64(plan.data() + co, cb);
    const uint64_t new_metadata = Checksum64x8(plan.data() + mo, mb),
                   new_constants = Checksum64x8(plan.data() + co, cb);
    EXPECT_EQ(LoadLe64(plan, testing::kMetadataChecksumAt), lanes ? new_metadata : old_metadata) << v;
    EXPECT_EQ(LoadLe64(plan, testing::kConstantsChecksumAt), lanes ? new_constants : old_constants) << v;
    std::unique_ptr<PlanFile> file;
    Status s = PlanFile::FromBuffer(plan.data(), plan.size(), &file);
    ASSERT_TRUE(s.ok()) << v << ": " << s.ToString();
    EXPECT_EQ(file->layout().format_major, major);
    EXPECT_EQ(file->layout().format_minor, minor);
    EXPECT_TRUE(Load(plan).ok()) << v;

    // The other algorithm's checksums, one section at a time.
    std::vector<uint8_t> bad = plan;
    StoreLe64(&bad, testing::kMetadataChecksumAt, lanes ? old_metadata : new_metadata);
    s = PlanFile::FromBuffer(bad.data(), bad.size(), &file);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << v;
    EXPECT_TRUE(Contains(s, "metadata section checksum mismatch")) << s.message();
    bad = plan;
    StoreLe64(&bad, testing::kConstantsChecksumAt, lanes ? old_constants : new_constants);
    s = PlanFile::FromBuffer(bad.data(), bad.size(), &file);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << v;
    EXPECT_TRUE(Contains(s, "constants section checksum mismatch")) << s.message();
  }
}

// A 2.0 plan whose header claims 1.x (or the reverse) fails its checksums.
TEST(PlanFileTest, ChangedMajorFailsTheChecksum) {
  for (uint16_t from : {uint16_t{1}, uint16_t{2}}) {
    testing::PlanWriter w = testing::SamplePlanWriter();
    w.format_major = from;
    w.metadata_format_major = from == 1 ? 2 : 1;  // the metadata already names the version the header will claim
    std::vector<uint8_t> plan = w.Finish();
    plan[testing::kHeaderMajorAt] = static_cast<uint8_t>(from == 1 ? 2 : 1);
    std::unique_ptr<PlanFile> file;
    const Status s = PlanFile::FromBuffer(plan.data(), plan.size(), &file);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << from;
    EXPECT_TRUE(Contains(s, "checksum mismatch")) << s.message();
  }
}

TEST(PlanFileTest, RefusesBadLayouts) {
  const std::vector<uint8_t> plan = SamplePlan();
  std::vector<uint8_t> bad = plan;
  StoreLe64(&bad, testing::kConstantsOffsetAt, LoadLe64(plan, testing::kConstantsOffsetAt) + 8);
  EXPECT_TRUE(Contains(Load(bad), "not a multiple of 64"));

  bad = plan;
  StoreLe64(&bad, testing::kMetadataBytesAt, plan.size());
  EXPECT_TRUE(Contains(Load(bad), "extends past the end"));

  bad = plan;
  StoreLe64(&bad, testing::kConstantsBytesAt, ~0ull);
  EXPECT_TRUE(Contains(Load(bad), "extends past the end"));

  bad = plan;
  bad.push_back(7);  // trailing garbage
  ResealPlan(&bad);
  EXPECT_TRUE(Contains(Load(bad), "outside its sections"));

  bad = plan;
  bad[testing::kHeaderBytesAt] = 32;
  EXPECT_TRUE(Contains(Load(bad), "header size"));
}

std::string TempPath(const char* tag) {
  return ::testing::TempDir() + "loom_plan_file_test_" + tag + "_" + std::to_string(getpid());
}

TEST(PlanFileTest, FileErrors) {
  std::shared_ptr<const Engine> engine;
  Status s = Engine::Load(TempPath("missing"), &engine);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s, "cannot open plan")) << s.message();
  EXPECT_TRUE(Contains(s, "missing")) << s.message();

  const std::string empty = TempPath("empty");
  { std::ofstream f(empty, std::ios::binary); }
  s = Engine::Load(empty, &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_TRUE(Contains(s, "empty")) << s.message();
  EXPECT_TRUE(Contains(s, empty)) << s.message();
  std::remove(empty.c_str());

  s = Engine::Load(::testing::TempDir(), &engine);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s, "not a regular file")) << s.message();

  s = Engine::LoadFromBuffer(nullptr, 0, &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace loom
