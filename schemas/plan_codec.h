// The plan codec: the pieces of the plan format (plan.fbs) that every writer
// and reader must agree on byte for byte, in one place. The builder's plan
// writer, the engine's test plan writer and the engine use it:
//
//   attributes  loom::Attribute <-> plan::Attribute. Only the field that
//               `kind` selects is written; decoding reads only that field.
//   sealing     a finished metadata flatbuffer plus the constants section ->
//               the complete file:
//                 [0, 64)          FileHeader (magic, version, offsets, checksums)
//                 [64, +metadata)  the metadata flatbuffer
//                 [k * 64, ...)    the constants section (k * 64 >= metadata end;
//                                  present, possibly empty, in every file)
//               with zero padding between the sections.
//   enums       loom's vocabulary (DType, Layout, MemorySpace, Device) and the
//               schema's enums have the same values; the casts live here,
//               next to the static_asserts that keep them equal.
//
// Depends on flatbuffers headers and loom_common only, so the engine links it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/attributes.h"
#include "common/device.h"
#include "common/dtype.h"
#include "common/layout.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace plan_codec {

using AttributeList = flatbuffers::Vector<flatbuffers::Offset<plan::Attribute>>;

// `n` rounded up to kPlanAlignment: where the next constant or arena tensor,
// or the constants section, may start.
inline uint64_t AlignPlanOffset(uint64_t n) { return (n + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

// Builds the attribute tables (children first, in order); the caller puts the
// offsets in Node.attributes (CreateNodeDirect takes them as they are).
flatbuffers::Offset<plan::Attribute> EncodeAttribute(flatbuffers::FlatBufferBuilder& fbb, const Attribute& a);
std::vector<flatbuffers::Offset<plan::Attribute>> EncodeAttributes(flatbuffers::FlatBufferBuilder& fbb,
                                                                   const std::vector<Attribute>& attrs);

// Decoding expects verified tables (engine/plan_verifier.h); a TENSOR
// attribute without its value decodes with a null tensor.
Attribute DecodeAttribute(const plan::Attribute& a);
Attributes DecodeAttributes(const AttributeList* list);

// The header's format version; a writer puts the same one in Plan.format_*.
struct FormatVersion {
  uint16_t major = kPlanFormatMajor;
  uint16_t minor = kPlanFormatMinor;
};

// The complete plan file: header, metadata, constants (layout above).
std::vector<uint8_t> SealPlan(const uint8_t* metadata, size_t metadata_bytes, const uint8_t* constants,
                              size_t constants_bytes, FormatVersion version = {});
// Same, with the constants section written in place by `write_constants`
// (handed the section's start, zero-filled, `constants_bytes` long), so a
// writer never holds a second copy of every constant.
std::vector<uint8_t> SealPlan(const uint8_t* metadata, size_t metadata_bytes, size_t constants_bytes,
                              const std::function<void(uint8_t* constants)>& write_constants,
                              FormatVersion version = {});

inline plan::DType ToPlan(DType v) { return static_cast<plan::DType>(v); }
inline plan::Layout ToPlan(Layout v) { return static_cast<plan::Layout>(v); }
inline plan::MemorySpace ToPlan(MemorySpace v) { return static_cast<plan::MemorySpace>(v); }
inline plan::Device ToPlan(Device v) { return static_cast<plan::Device>(v); }
inline DType FromPlan(plan::DType v) { return static_cast<DType>(v); }
inline Layout FromPlan(plan::Layout v) { return static_cast<Layout>(v); }
inline MemorySpace FromPlan(plan::MemorySpace v) { return static_cast<MemorySpace>(v); }
inline Device FromPlan(plan::Device v) { return static_cast<Device>(v); }

}  // namespace plan_codec
}  // namespace loom
