// The checksum of a plan section (the header's metadata_checksum and
// constants_checksum) for the plan's format version: the one place the
// algorithm is chosen, used by every writer and by the engine's reader.
//   format 1.x:    Checksum64 (one dependency chain)
//   format 2.0 on: Checksum64x8 (eight lanes, same single-word guarantee)
// Both in common/checksum.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/checksum.h"

namespace loom {

// The first format major whose sections use Checksum64x8.
constexpr uint16_t kPlanFormatMajorLaneChecksum = 2;

inline uint64_t PlanSectionChecksum(uint16_t format_major, const void* data, size_t size) {
  return format_major >= kPlanFormatMajorLaneChecksum ? Checksum64x8(data, size) : Checksum64(data, size);
}

}  // namespace loom
