#include "schemas/plan_codec.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "schemas/plan_checksum.h"

namespace loom {
namespace plan_codec {
namespace {

namespace fb = flatbuffers;

#define LOOM_SAME_VALUE(a, b) static_assert(static_cast<int>(a) == static_cast<int>(b), #a " != " #b)
LOOM_SAME_VALUE(DType::kFloat32, plan::DType::FLOAT32);
LOOM_SAME_VALUE(DType::kInt64, plan::DType::INT64);
LOOM_SAME_VALUE(DType::kBFloat16, plan::DType::BFLOAT16);
LOOM_SAME_VALUE(Layout::kRowMajor, plan::Layout::ROW_MAJOR);
LOOM_SAME_VALUE(Layout::kNhwc, plan::Layout::NHWC);
LOOM_SAME_VALUE(Layout::kNhwcPadded, plan::Layout::NHWC_PADDED);
LOOM_SAME_VALUE(MemorySpace::kHost, plan::MemorySpace::HOST);
LOOM_SAME_VALUE(MemorySpace::kDeviceVisible, plan::MemorySpace::DEVICE_VISIBLE);
LOOM_SAME_VALUE(Device::kCpu, plan::Device::CPU);
LOOM_SAME_VALUE(Device::kFpga, plan::Device::FPGA);
#undef LOOM_SAME_VALUE
static_assert(sizeof(plan::FileHeader) == kPlanHeaderBytes, "FileHeader must be 64 bytes");

plan::AttributeKind ToPlanKind(Attribute::Kind kind) {
  switch (kind) {
    case Attribute::Kind::kInt: return plan::AttributeKind::INT;
    case Attribute::Kind::kFloat: return plan::AttributeKind::FLOAT;
    case Attribute::Kind::kString: return plan::AttributeKind::STRING;
    case Attribute::Kind::kInts: return plan::AttributeKind::INTS;
    case Attribute::Kind::kFloats: return plan::AttributeKind::FLOATS;
    case Attribute::Kind::kStrings: return plan::AttributeKind::STRINGS;
    case Attribute::Kind::kTensor: return plan::AttributeKind::TENSOR;
  }
  return plan::AttributeKind::INT;
}

Attribute::Kind FromPlanKind(plan::AttributeKind kind) {
  switch (kind) {
    case plan::AttributeKind::INT: return Attribute::Kind::kInt;
    case plan::AttributeKind::FLOAT: return Attribute::Kind::kFloat;
    case plan::AttributeKind::STRING: return Attribute::Kind::kString;
    case plan::AttributeKind::INTS: return Attribute::Kind::kInts;
    case plan::AttributeKind::FLOATS: return Attribute::Kind::kFloats;
    case plan::AttributeKind::STRINGS: return Attribute::Kind::kStrings;
    case plan::AttributeKind::TENSOR: return Attribute::Kind::kTensor;
  }
  return Attribute::Kind::kInt;
}

template <typename T>
std::vector<T> ToVector(const fb::Vector<T>* v) {
  return v == nullptr ? std::vector<T>() : std::vector<T>(v->begin(), v->end());
}

}  // namespace

fb::Offset<plan::Attribute> EncodeAttribute(fb::FlatBufferBuilder& fbb, const Attribute& a) {
  // Children first: a table is built after everything it points to.
  const auto name = fbb.CreateString(a.name);
  fb::Offset<fb::String> s;
  fb::Offset<fb::Vector<int64_t>> ints;
  fb::Offset<fb::Vector<float>> floats;
  fb::Offset<fb::Vector<fb::Offset<fb::String>>> strings;
  fb::Offset<plan::TensorValue> tensor;
  switch (a.kind) {
    case Attribute::Kind::kString: s = fbb.CreateString(a.s); break;
    case Attribute::Kind::kInts: ints = fbb.CreateVector(a.ints); break;
    case Attribute::Kind::kFloats: floats = fbb.CreateVector(a.floats); break;
    case Attribute::Kind::kStrings: strings = fbb.CreateVectorOfStrings(a.strings); break;
    case Attribute::Kind::kTensor:
      if (a.tensor)
        tensor = plan::CreateTensorValueDirect(fbb, ToPlan(a.tensor->dtype), &a.tensor->dims, &a.tensor->data);
      break;
    case Attribute::Kind::kInt:
    case Attribute::Kind::kFloat: break;
  }
  const int64_t i = a.kind == Attribute::Kind::kInt ? a.i : 0;
  const float f = a.kind == Attribute::Kind::kFloat ? a.f : 0.f;
  return plan::CreateAttribute(fbb, name, ToPlanKind(a.kind), i, f, s, ints, floats, strings, tensor);
}

std::vector<fb::Offset<plan::Attribute>> EncodeAttributes(fb::FlatBufferBuilder& fbb,
                                                           const std::vector<Attribute>& attrs) {
  std::vector<fb::Offset<plan::Attribute>> offsets;
  offsets.reserve(attrs.size());
  for (const Attribute& a : attrs) offsets.push_back(EncodeAttribute(fbb, a));
  return offsets;
}

Attribute DecodeAttribute(const plan::Attribute& a) {
  Attribute out;
  out.name = a.name() ? a.name()->str() : std::string();
  out.kind = FromPlanKind(a.kind());
  switch (a.kind()) {
    case plan::AttributeKind::INT: out.i = a.i(); break;
    case plan::AttributeKind::FLOAT: out.f = a.f(); break;
    case plan::AttributeKind::STRING: out.s = a.s() ? a.s()->str() : std::string(); break;
    case plan::AttributeKind::INTS: out.ints = ToVector(a.ints()); break;
    case plan::AttributeKind::FLOATS: out.floats = ToVector(a.floats()); break;
    case plan::AttributeKind::STRINGS:
      if (a.strings() != nullptr)
        for (const fb::String* s : *a.strings()) out.strings.push_back(s->str());
      break;
    case plan::AttributeKind::TENSOR:
      if (const plan::TensorValue* v = a.tensor()) {
        auto t = std::make_shared<AttrTensor>();
        t->dtype = FromPlan(v->dtype());
        t->dims = ToVector(v->dims());
        t->data = ToVector(v->data());
        out.tensor = std::move(t);
      }
      break;
  }
  return out;
}

Attributes DecodeAttributes(const AttributeList* list) {
  Attributes attrs;
  if (list == nullptr) return attrs;
  for (const plan::Attribute* a : *list) attrs.Set(DecodeAttribute(*a));
  return attrs;
}

std::vector<uint8_t> SealPlan(const uint8_t* metadata, size_t metadata_bytes, const uint8_t* constants,
                              size_t constants_bytes, FormatVersion version) {
  return SealPlan(
      metadata, metadata_bytes, constants_bytes,
      [&](uint8_t* dst) {
        if (constants_bytes != 0) std::memcpy(dst, constants, constants_bytes);
      },
      version);
}

std::vector<uint8_t> SealPlan(const uint8_t* metadata, size_t metadata_bytes, size_t constants_bytes,
                              const std::function<void(uint8_t* constants)>& write_constants, FormatVersion version) {
  const uint64_t metadata_offset = kPlanHeaderBytes;
  const uint64_t constants_offset = AlignPlanOffset(metadata_offset + metadata_bytes);
  std::vector<uint8_t> file(constants_offset + constants_bytes, 0);
  if (metadata_bytes != 0) std::memcpy(file.data() + metadata_offset, metadata, metadata_bytes);
  write_constants(file.data() + constants_offset);
  const plan::FileHeader header(
      fb::span<const uint8_t, 8>(reinterpret_cast<const uint8_t*>(kPlanMagic), 8), version.major, version.minor,
      static_cast<uint32_t>(kPlanHeaderBytes), metadata_offset, metadata_bytes,
      PlanSectionChecksum(version.major, file.data() + metadata_offset, metadata_bytes), constants_offset,
      constants_bytes, PlanSectionChecksum(version.major, file.data() + constants_offset, constants_bytes));
  std::memcpy(file.data(), &header, sizeof(header));
  return file;
}

}  // namespace plan_codec
}  // namespace loom
