#include "kernels/fpga/lowering/dma_bounds.h"

#include <algorithm>
#include <initializer_list>
#include <string>

namespace loom {
namespace fpga {
namespace lowering {
namespace {

constexpr uint64_t kMax = ~uint64_t{0};

// a + b·c, saturating at kMax.
uint64_t MulAdd(uint64_t a, uint64_t b, uint64_t c) {
  if (b != 0 && c > (kMax - a) / b) return kMax;
  return a + b * c;
}

// One dimension of a DMA grid: `count` positions `pitch` bytes apart.
struct Dim {
  uint64_t count;
  uint64_t pitch;
};

// Items of `bytes` contiguous bytes at first + Σ i_k·pitch_k, i_k < count_k:
// the span from first to the last byte of the last item. False when there
// are no items (a zero count or size: the device refuses the command).
bool GridSpan(uint32_t slot, bool write, uint64_t first, std::initializer_list<Dim> dims, uint64_t bytes,
              DmaSpan* span) {
  if (bytes == 0) return false;
  uint64_t last = MulAdd(first, 1, bytes - 1);
  for (const Dim& dim : dims) {
    if (dim.count == 0) return false;
    last = MulAdd(last, dim.count - 1, dim.pitch);
  }
  *span = {slot, write, first, last};
  return true;
}

template <typename Op>
Op Decoded(const contract::Command& command) {
  Op op;
  contract::Decode(command, &op);
  return op;
}

}  // namespace

bool DmaSpanOf(const contract::AccelConfig& config, const contract::Command& command, DmaSpan* span) {
  const uint64_t n = config.n;
  switch (contract::OpcodeOf(command)) {
    case contract::Opcode::kLoadAct: {
      const auto op = Decoded<contract::LoadAct>(command);
      return GridSpan(op.slot, false, op.dram_offset, {{op.y_size, op.row_pitch}, {op.x_size, op.pixel_pitch}},
                      op.cb * n, span);
    }
    case contract::Opcode::kLoadWgt: {
      const auto op = Decoded<contract::LoadWgt>(command);
      return GridSpan(op.slot, false, op.dram_offset, {}, op.rows * n, span);
    }
    case contract::Opcode::kLoadParam: {
      const auto op = Decoded<contract::LoadParam>(command);
      return GridSpan(op.slot, false, op.dram_offset, {}, uint64_t{op.count} * contract::kParamRecordBytes, span);
    }
    case contract::Opcode::kStore: {
      const auto op = Decoded<contract::Store>(command);
      return GridSpan(op.slot, true, op.dram_offset, {{op.oh, op.row_pitch}, {op.ow, op.pixel_pitch}},
                      (op.out_int32 != 0 ? 4 : 1) * n, span);
    }
    default:  // CONV, ADD, MAXPOOL and unknown opcodes
      return false;
  }
}

Status CheckDmaBounds(const contract::AccelConfig& config, const contract::Command* commands, size_t count,
                      const std::array<uint64_t, contract::kBaseSlots>& slot_bytes) {
  for (size_t i = 0; i < count; ++i) {
    DmaSpan span;
    if (!DmaSpanOf(config, commands[i], &span) || span.last < slot_bytes[span.slot]) continue;
    const uint64_t size = slot_bytes[span.slot];
    return Status::InvalidArgument(
        "command " + std::to_string(i) + " (" + contract::OpcodeName(contract::OpcodeOf(commands[i])) + ") " +
        (span.write ? "writes" : "reads") + " bytes [" + std::to_string(span.first) + ", " + std::to_string(span.last) +
        "] of slot " + std::to_string(span.slot) +
        (size == 0 ? ", which has no buffer" : ", which has " + std::to_string(size) + " bytes"));
  }
  return Status::Ok();
}

std::array<uint64_t, contract::kBaseSlots> DmaBytesNeeded(const contract::AccelConfig& config,
                                                          const contract::Command* commands, size_t count) {
  std::array<uint64_t, contract::kBaseSlots> needed{};
  for (size_t i = 0; i < count; ++i) {
    DmaSpan span;
    if (DmaSpanOf(config, commands[i], &span)) needed[span.slot] = std::max(needed[span.slot], MulAdd(span.last, 1, 1));
  }
  return needed;
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
