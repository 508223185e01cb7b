// Constants of the plan file format shared by the builder (writer) and the
// engine (reader). See plan.fbs for the layout and the compatibility rule.
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom {

// 1.1: Tensor.memory_space.
// 1.2: Node.predicted_ms and fallback_kernel; Plan.boundaries, target and clock_mhz.
// 1.3: Plan.arena_lower_bound_bytes.
// 2.0: section checksums are Checksum64x8 (plan_checksum.h); the layout and
//      the metadata are those of 1.3. A 1.x engine refuses 2.x plans by
//      version; this engine still reads 1.x plans (Checksum64 sections).
// 2.1: Node.derived (constants a kernel derives from the node's constants,
//      computed by the builder; ignored by 2.0 engines, which derive their own).
constexpr uint16_t kPlanFormatMajor = 2;
// 2.2: Tensor.checksum, Plan.constant_checksums and constants_checksum
//      (constants checked one by one, and only those the kernels read; 2.1
//      engines ignore them and check the whole section, whose checksum
//      stays in the header).
constexpr uint16_t kPlanFormatMinor = 2;
// The oldest major version this engine reads.
constexpr uint16_t kPlanFormatOldestMajor = 1;
constexpr char kPlanMagic[8] = {'L', 'O', 'O', 'M', 'P', 'L', 'A', 'N'};
constexpr size_t kPlanHeaderBytes = 64;
// Alignment of the constants section and of every tensor in it and in the arena.
constexpr size_t kPlanAlignment = 64;

}  // namespace loom
