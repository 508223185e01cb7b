// DMA bounds: the DRAM bytes each command of a stream reads or writes, as
// offsets from its base slot, and the check that they all stay inside the
// buffers the slots point at. The accelerator has no memory protection (the
// XRT and Zynq backends hand it physical addresses), so a stream from a plan
// is checked against its buffers before it runs.
//
// Spans are computed the way the functional model addresses DRAM
// (kernels/fpga/model/load_ops.cc, store_ops.cc); N is the array size:
//   LOAD_ACT   pixel (y, x), y < y_size, x < x_size: cb·N bytes at
//              dram_offset + y·row_pitch + x·pixel_pitch; padding pixels are
//              filled on chip, never read
//   LOAD_WGT   rows·N bytes at dram_offset
//   LOAD_PARAM count·kParamRecordBytes bytes at dram_offset
//   STORE      pixel (oy, ox), oy < oh, ox < ow: N bytes (4N when out_int32)
//              at dram_offset + oy·row_pitch + ox·pixel_pitch
//   CONV, ADD, MAXPOOL: on-chip only.
// A span is [first, last], the smallest interval holding every byte the
// command accesses (pitches may leave gaps in it); pitches are unsigned, so
// first is dram_offset and last belongs to the last pixel or row. A command
// with a zero size accesses nothing (the device refuses it with BAD_FIELD
// before any transfer), nor does an unknown opcode (BAD_OPCODE at fetch).
// The arithmetic is 64-bit and saturates, so no span wraps around.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace lowering {

// One command's DRAM access.
struct DmaSpan {
  uint32_t slot = 0;
  bool write = false;  // STORE; the loads read
  uint64_t first = 0;  // bytes from the slot's base
  uint64_t last = 0;   // the last byte accessed, included; UINT64_MAX when it does not fit 64 bits
};

// The DMA span of `command`; false when it accesses no DRAM.
bool DmaSpanOf(const contract::AccelConfig& config, const contract::Command& command, DmaSpan* span);

// A slot size for a buffer not known yet: every span fits except one whose
// end does not fit 64 bits.
constexpr uint64_t kSlotSizeUnknown = ~uint64_t{0};

// Ok when every command's span lies inside its slot: last < slot_bytes[slot]
// (a size of 0: no buffer, so any access fails). Otherwise InvalidArgument
// naming the first command that leaves its slot, e.g.
//   "command 17 (STORE) writes bytes [4096, 8191] of slot 0, which has 4096 bytes".
Status CheckDmaBounds(const contract::AccelConfig& config, const contract::Command* commands, size_t count,
                      const std::array<uint64_t, contract::kBaseSlots>& slot_bytes);

// Per slot, the fewest bytes for which CheckDmaBounds passes: one past the
// furthest byte any command accesses there (0 when none does; kSlotSizeUnknown
// when that end does not fit 64 bits).
std::array<uint64_t, contract::kBaseSlots> DmaBytesNeeded(const contract::AccelConfig& config,
                                                          const contract::Command* commands, size_t count);

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
