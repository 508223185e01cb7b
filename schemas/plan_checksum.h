// The checksum of a plan section (the header's metadata_checksum and
// constants_checksum) for the plan's format version: the one place the
// algorithm is chosen, used by every writer and by the engine's reader.
//   format 1.0 .. 1.3: Checksum64 (one dependency chain)
//   format 1.4 on:     Checksum64x8 (eight lanes, same single-word guarantee)
// Both in common/checksum.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/checksum.h"

namespace loom {

// The first format minor (of major 1) whose sections use Checksum64x8.
constexpr uint16_t kPlanFormatMinorLaneChecksum = 4;

inline uint64_t PlanSectionChecksum(uint16_t format_minor, const void* data, size_t size) {
  return format_minor >= kPlanFormatMinorLaneChecksum ? Checksum64x8(data, size) : Checksum64(data, size);
}

}  // namespace loom
