// The plan codec: attributes of every kind survive encode -> decode, and
// sealed files carry a correct header (checksums, 64-byte-aligned constants,
// zero padding) that the engine's PlanFile accepts.
#include "schemas/plan_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "common/checksum.h"
#include "engine/plan_file.h"
#include "schemas/plan_checksum.h"

namespace loom {
namespace plan_codec {
namespace {

namespace fb = flatbuffers;

Attribute Make(const char* name, Attribute::Kind kind) {
  Attribute a;
  a.name = name;
  a.kind = kind;
  return a;
}

std::vector<Attribute> EveryKind() {
  std::vector<Attribute> attrs;
  attrs.push_back(Make("axis", Attribute::Kind::kInt));
  attrs.back().i = -3;
  attrs.push_back(Make("alpha", Attribute::Kind::kFloat));
  attrs.back().f = 0.125f;
  attrs.push_back(Make("mode", Attribute::Kind::kString));
  attrs.back().s = "nearest";
  attrs.push_back(Make("pads", Attribute::Kind::kInts));
  attrs.back().ints = {0, 1, -1, int64_t{1} << 40};
  attrs.push_back(Make("scales", Attribute::Kind::kFloats));
  attrs.back().floats = {0.5f, 2.f};
  attrs.push_back(Make("names", Attribute::Kind::kStrings));
  attrs.back().strings = {"a", "", "long name"};
  attrs.push_back(Make("value", Attribute::Kind::kTensor));
  auto t = std::make_shared<AttrTensor>();
  t->dtype = DType::kInt64;
  t->dims = {2};
  t->data.assign(16, 0);
  t->data[0] = 7;
  t->data[8] = 0xff;
  attrs.back().tensor = t;
  attrs.push_back(Make("empty_ints", Attribute::Kind::kInts));
  return attrs;
}

// Encodes `attrs` into a Node and returns the finished buffer.
std::vector<uint8_t> EncodeNode(const std::vector<Attribute>& attrs) {
  fb::FlatBufferBuilder fbb;
  const std::vector<fb::Offset<plan::Attribute>> offsets = EncodeAttributes(fbb, attrs);
  fbb.Finish(plan::CreateNodeDirect(fbb, "n", "Op", "", 17, "cpu.Op", plan::Device::CPU, nullptr, nullptr, &offsets));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(PlanCodecTest, AttributesOfEveryKindRoundTrip) {
  const std::vector<Attribute> in = EveryKind();
  const std::vector<uint8_t> buffer = EncodeNode(in);
  fb::Verifier verifier(buffer.data(), buffer.size());
  ASSERT_TRUE(verifier.VerifyBuffer<plan::Node>(nullptr));
  const Attributes out = DecodeAttributes(fb::GetRoot<plan::Node>(buffer.data())->attributes());
  ASSERT_EQ(out.size(), in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    const Attribute& a = in[k];
    const Attribute& b = out.all()[k];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(b.kind, a.kind);
    EXPECT_EQ(b.i, a.i);
    EXPECT_EQ(b.f, a.f);
    EXPECT_EQ(b.s, a.s);
    EXPECT_EQ(b.ints, a.ints);
    EXPECT_EQ(b.floats, a.floats);
    EXPECT_EQ(b.strings, a.strings);
    ASSERT_EQ(b.tensor != nullptr, a.tensor != nullptr);
    if (a.tensor) {
      EXPECT_EQ(b.tensor->dtype, a.tensor->dtype);
      EXPECT_EQ(b.tensor->dims, a.tensor->dims);
      EXPECT_EQ(b.tensor->data, a.tensor->data);
    }
  }
}

TEST(PlanCodecTest, WritesOnlyTheFieldTheKindSelects) {
  Attribute a = Make("axes", Attribute::Kind::kInts);
  a.ints = {1};
  a.i = 5;  // stale values of other kinds are not written
  a.f = 2.f;
  a.s = "x";
  Attribute missing = Make("value", Attribute::Kind::kTensor);  // no tensor
  const std::vector<uint8_t> buffer = EncodeNode({a, missing});
  const auto* list = fb::GetRoot<plan::Node>(buffer.data())->attributes();
  const plan::Attribute& ints = *list->Get(0);
  EXPECT_EQ(ints.kind(), plan::AttributeKind::INTS);
  EXPECT_EQ(ints.i(), 0);
  EXPECT_EQ(ints.f(), 0.f);
  EXPECT_EQ(ints.s(), nullptr);
  EXPECT_EQ(ints.tensor(), nullptr);
  EXPECT_EQ(DecodeAttribute(ints).i, 0);
  EXPECT_EQ(list->Get(1)->tensor(), nullptr);
  const Attribute decoded = DecodeAttribute(*list->Get(1));
  EXPECT_EQ(decoded.kind, Attribute::Kind::kTensor);
  EXPECT_EQ(decoded.tensor, nullptr);
}

TEST(PlanCodecTest, EnumsMapOneToOne) {
  for (Layout l : {Layout::kRowMajor, Layout::kNhwc, Layout::kNhwcPadded}) EXPECT_EQ(FromPlan(ToPlan(l)), l);
  EXPECT_EQ(ToPlan(MemorySpace::kDeviceVisible), plan::MemorySpace::DEVICE_VISIBLE);
  EXPECT_EQ(FromPlan(plan::MemorySpace::HOST), MemorySpace::kHost);
  EXPECT_EQ(ToPlan(Device::kFpga), plan::Device::FPGA);
  EXPECT_EQ(ToPlan(DType::kFloat16), plan::DType::FLOAT16);
}

// A metadata flatbuffer of a minimal plan.
std::vector<uint8_t> Metadata(uint64_t constants_bytes, FormatVersion version = {}) {
  fb::FlatBufferBuilder fbb;
  const std::vector<int64_t> shape = {4};
  std::vector<fb::Offset<plan::Tensor>> tensors = {
      plan::CreateTensorDirect(fbb, "x", plan::DType::FLOAT32, &shape, plan::Layout::ROW_MAJOR, 0,
                               plan::Storage::ARENA, 0, 16, plan::MemorySpace::HOST)};
  const std::vector<int32_t> io = {0};
  fbb.Finish(plan::CreatePlanDirect(fbb, version.major, version.minor, "codec test", "", "", &tensors, nullptr, &io,
                                    &io, 64, constants_bytes),
             plan::PlanIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

plan::FileHeader Header(const std::vector<uint8_t>& file) {
  plan::FileHeader h;
  std::memcpy(static_cast<void*>(&h), file.data(), sizeof(h));
  return h;
}

TEST(PlanCodecTest, SealedFileHasAlignedChecksummedSections) {
  std::vector<uint8_t> constants(100);
  for (size_t i = 0; i < constants.size(); ++i) constants[i] = static_cast<uint8_t>(i * 7 + 1);
  const std::vector<uint8_t> metadata = Metadata(constants.size());
  const std::vector<uint8_t> file = SealPlan(metadata.data(), metadata.size(), constants.data(), constants.size());

  const plan::FileHeader h = Header(file);
  EXPECT_EQ(std::memcmp(h.magic()->data(), kPlanMagic, sizeof(kPlanMagic)), 0);
  EXPECT_EQ(h.format_major(), kPlanFormatMajor);
  EXPECT_EQ(h.format_minor(), kPlanFormatMinor);
  EXPECT_EQ(h.header_bytes(), kPlanHeaderBytes);
  EXPECT_EQ(h.metadata_offset(), kPlanHeaderBytes);
  EXPECT_EQ(h.metadata_bytes(), metadata.size());
  EXPECT_EQ(h.constants_offset() % kPlanAlignment, 0u);
  EXPECT_EQ(h.constants_offset(), AlignPlanOffset(h.metadata_offset() + h.metadata_bytes()));
  EXPECT_EQ(h.constants_bytes(), constants.size());
  ASSERT_EQ(file.size(), h.constants_offset() + h.constants_bytes());
  EXPECT_EQ(h.metadata_checksum(), PlanSectionChecksum(kPlanFormatMajor, metadata.data(), metadata.size()));
  EXPECT_EQ(h.constants_checksum(), PlanSectionChecksum(kPlanFormatMajor, constants.data(), constants.size()));
  EXPECT_EQ(h.constants_checksum(), Checksum64x8(constants.data(), constants.size()));
  EXPECT_EQ(std::memcmp(file.data() + h.metadata_offset(), metadata.data(), metadata.size()), 0);
  EXPECT_EQ(std::memcmp(file.data() + h.constants_offset(), constants.data(), constants.size()), 0);
  for (uint64_t i = h.metadata_offset() + h.metadata_bytes(); i < h.constants_offset(); ++i)
    ASSERT_EQ(file[i], 0) << "padding byte " << i;

  std::unique_ptr<PlanFile> plan_file;
  const Status s = PlanFile::FromBuffer(file.data(), file.size(), &plan_file);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(plan_file->constants_bytes(), constants.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(plan_file->constants()) % kPlanAlignment, 0u);
  EXPECT_EQ(std::memcmp(plan_file->metadata(), metadata.data(), metadata.size()), 0);
}

TEST(PlanCodecTest, SealsWithoutConstantsAndWithAnyVersion) {
  const FormatVersion version{kPlanFormatMajor, 7};
  const std::vector<uint8_t> metadata = Metadata(0, version);
  const std::vector<uint8_t> file = SealPlan(metadata.data(), metadata.size(), nullptr, 0, version);
  EXPECT_EQ(file.size() % kPlanAlignment, 0u);
  EXPECT_EQ(Header(file).constants_bytes(), 0u);
  std::unique_ptr<PlanFile> plan_file;
  const Status s = PlanFile::FromBuffer(file.data(), file.size(), &plan_file);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(plan_file->layout().format_minor, 7);
}

// The checksum algorithm follows the version sealed: 1.x keeps Checksum64, so
// a writer asked for a 1.x version writes what 1.x engines read.
TEST(PlanCodecTest, SealsTheChecksumOfTheVersion) {
  std::vector<uint8_t> constants(200);
  for (size_t i = 0; i < constants.size(); ++i) constants[i] = static_cast<uint8_t>(i * 11 + 2);
  const FormatVersion versions[] = {{1, 0}, {1, 3}, {2, 0}, {kPlanFormatMajor, kPlanFormatMinor}};
  for (const FormatVersion& version : versions) {
    const std::string v = std::to_string(version.major) + "." + std::to_string(version.minor);
    const std::vector<uint8_t> metadata = Metadata(constants.size(), version);
    const std::vector<uint8_t> file =
        SealPlan(metadata.data(), metadata.size(), constants.data(), constants.size(), version);
    const plan::FileHeader h = Header(file);
    const bool lanes = version.major >= kPlanFormatMajorLaneChecksum;
    EXPECT_EQ(h.metadata_checksum(),
              lanes ? Checksum64x8(metadata.data(), metadata.size()) : Checksum64(metadata.data(), metadata.size()))
        << v;
    EXPECT_EQ(h.constants_checksum(),
              lanes ? Checksum64x8(constants.data(), constants.size()) : Checksum64(constants.data(), constants.size()))
        << v;
    std::unique_ptr<PlanFile> plan_file;
    const Status s = PlanFile::FromBuffer(file.data(), file.size(), &plan_file);
    EXPECT_TRUE(s.ok()) << v << ": " << s.ToString();
  }
}

TEST(PlanCodecTest, EngineDetectsAFlippedByte) {
  const std::vector<uint8_t> constants(64, 3);
  const std::vector<uint8_t> metadata = Metadata(constants.size());
  const std::vector<uint8_t> file = SealPlan(metadata.data(), metadata.size(), constants.data(), constants.size());
  const plan::FileHeader h = Header(file);
  for (uint64_t at : {h.metadata_offset() + 12, h.constants_offset() + 5}) {
    std::vector<uint8_t> bad = file;
    bad[at] ^= 0x20;
    std::unique_ptr<PlanFile> plan_file;
    const Status s = PlanFile::FromBuffer(bad.data(), bad.size(), &plan_file);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << at;
    EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos) << s.message();
  }
}

TEST(PlanCodecTest, AlignsToThePlanAlignment) {
  EXPECT_EQ(AlignPlanOffset(0), 0u);
  EXPECT_EQ(AlignPlanOffset(1), kPlanAlignment);
  EXPECT_EQ(AlignPlanOffset(kPlanAlignment), kPlanAlignment);
  EXPECT_EQ(AlignPlanOffset(kPlanAlignment + 1), 2 * kPlanAlignment);
}

}  // namespace
}  // namespace plan_codec
}  // namespace loom
