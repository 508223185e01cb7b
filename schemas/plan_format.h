// Constants of the plan file format shared by the builder (writer) and the
// engine (reader). See plan.fbs for the layout and the compatibility rule.
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom {

constexpr uint16_t kPlanFormatMajor = 1;
// 1.1: Tensor.memory_space.
// 1.2: Node.predicted_ms and fallback_kernel; Plan.boundaries, target and clock_mhz.
// 1.3: Plan.arena_lower_bound_bytes.
// 1.4: section checksums are Checksum64x8 (plan_checksum.h); an engine older
//      than 1.4 reports a 1.4 plan as damaged (checksum mismatch).
constexpr uint16_t kPlanFormatMinor = 4;
constexpr char kPlanMagic[8] = {'L', 'O', 'O', 'M', 'P', 'L', 'A', 'N'};
constexpr size_t kPlanHeaderBytes = 64;
// Alignment of the constants section and of every tensor in it and in the arena.
constexpr size_t kPlanAlignment = 64;

}  // namespace loom
