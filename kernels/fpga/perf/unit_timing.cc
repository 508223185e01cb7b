#include "kernels/fpga/perf/unit_timing.h"

#include <algorithm>

namespace loom {
namespace fpga {
namespace perf {
namespace {

namespace c = contract;

template <typename Op>
Op Decoded(const c::Command& command) {
  Op op;
  c::Decode(command, &op);
  return op;
}

// serial_mul: as many cycles as b has significant bits.
uint64_t MulCycles(uint64_t b) {
  uint64_t bits = 0;
  for (; b != 0; b >>= 1) ++bits;
  return bits;
}

uint64_t Address(const UnitContext& ctx, uint32_t slot, uint32_t offset) {
  return ctx.base[slot % c::kBaseSlots] + offset;
}

// ---------------------------------------------------------------- load unit

// From start: decode, then go; the request walker's register presents the
// first request one cycle after go.
constexpr uint64_t kLoadDecode = 1;
constexpr uint64_t kLoadActChecks = 3;  // state changes around the two serial products
constexpr uint64_t kLoadRequest = 1;
// After the last beat: the row is assembled, registered into the buffer, and
// the end is seen (pending reaches 0) before fin.
constexpr uint64_t kLoadTail = 2;

uint64_t LoadActDone(const UnitContext& ctx, const c::LoadAct& op, uint64_t start) {
  const uint32_t n = ctx.config->n;
  const uint64_t height = uint64_t{op.pad_top} + op.y_size + op.pad_bottom;
  const uint64_t width = uint64_t{op.pad_left} + op.x_size + op.pad_right;
  const uint64_t go =
      start + kLoadDecode + kLoadActChecks + MulCycles(op.cb) + std::max(MulCycles(height), MulCycles(op.pad_top));
  const uint64_t row_bytes = uint64_t{op.cb} * n;
  const bool contiguous = op.pixel_pitch == row_bytes;
  const uint64_t base = Address(ctx, op.slot, op.dram_offset);
  uint64_t first = 0, last = go;
  bool any = false;
  for (uint64_t y = 0; y < op.y_size; ++y) {
    const uint64_t row = base + y * op.row_pitch;
    const uint64_t requests = contiguous ? 1 : op.x_size;
    const uint64_t bytes = contiguous ? row_bytes * op.x_size : row_bytes;
    for (uint64_t x = 0; x < requests; ++x) {
      uint64_t request_first = 0;
      last = ctx.read->Read(go + kLoadRequest, row + x * op.pixel_pitch, bytes, &request_first);
      if (!any) first = request_first;
      any = true;
    }
  }
  // The padding walk takes a write-port cycle per padding row and one per
  // span it jumps; data rows (one per N / beat_bytes beats) take precedence.
  const uint64_t tile_rows = height * width * op.cb;
  const uint64_t data_rows = uint64_t{op.y_size} * op.x_size * op.cb;
  const uint64_t pad_rows = tile_rows - data_rows;
  uint64_t pad_end = go + pad_rows + op.y_size;
  if (pad_end > first && any) {
    const uint64_t beats_per_row = std::max<uint64_t>(1, n * 8 / ctx.config->axi_data_bits);
    pad_end += std::min(data_rows, (pad_end - first) / beats_per_row);
  }
  return std::max(last, pad_end) + kLoadTail;
}

uint64_t LoadWgtDone(const UnitContext& ctx, const c::LoadWgt& op, uint64_t start) {
  const uint64_t go = start + kLoadDecode;
  const uint64_t last =
      ctx.read->Read(go + kLoadRequest, Address(ctx, op.slot, op.dram_offset), uint64_t{op.rows} * ctx.config->n);
  return last + kLoadTail;
}

// ---------------------------------------------------------------- compute unit

constexpr uint64_t kConvFill = 1;       // plus N: tile 0's weights, the check hidden behind them
constexpr uint64_t kConvPipeline = 35;  // input read, the array's 2N - 1 ... (N = 16), accumulator write
constexpr uint64_t kPoolCheck = 11;
constexpr uint64_t kPoolTail = 4;
constexpr uint64_t kAddCheck = 3;
constexpr uint64_t kAddTail = 11;  // reads, one group's q - zp and mul_quantized, the sum, the write

uint64_t ConvDone(const UnitContext& ctx, const c::Conv& op, uint64_t start) {
  const uint64_t n = ctx.config->n;
  const uint64_t pixels = uint64_t{op.oh} * op.ow;
  const uint64_t tiles = uint64_t{op.cb_count} * op.kh * op.kw;
  const uint64_t periods = tiles == 0 ? 0 : (tiles - 1) * std::max(pixels, n) + pixels;
  // The pipeline's depth grows with the array: 2N - 1 through it, the rest fixed.
  const uint64_t pipeline = kConvPipeline + 2 * (n - 16);
  return start + kConvFill + n + periods + pipeline;
}

uint64_t MaxpoolDone(const c::Maxpool& op, uint64_t start) {
  return start + kPoolCheck + uint64_t{op.oh} * op.ow * op.kh * op.kw + kPoolTail;
}

uint64_t AddDone(const UnitContext& ctx, const c::Add& op, uint64_t start) {
  const uint64_t period = std::max<uint64_t>(2, ctx.config->n / kVecLanes);
  return start + kAddCheck + uint64_t{op.rows} * period + kAddTail;
}

// ---------------------------------------------------------------- store unit

constexpr uint64_t kStoreDecode = 1;
constexpr uint64_t kStoreCheck = 2;   // the preload's last read lands, then go
constexpr uint64_t kStoreToData = 9;  // accumulator read, lane group mux, requant (5), packing, FIFO
constexpr uint64_t kParamTail = 1;

uint64_t LoadParamDone(const UnitContext& ctx, const c::LoadParam& op, uint64_t start) {
  const uint64_t go = start + kStoreDecode;
  const uint64_t last = ctx.read->Read(go + kLoadRequest, Address(ctx, op.slot, op.dram_offset),
                                       uint64_t{op.count} * c::kParamRecordBytes);
  return last + kParamTail;
}

uint64_t StoreDone(const UnitContext& ctx, const c::Store& op, uint64_t start) {
  const uint64_t n = ctx.config->n;
  const uint64_t beat_bytes = ctx.config->axi_data_bits / 8;
  const uint64_t go = start + kStoreDecode + std::max(MulCycles(op.oh), n + kStoreCheck);
  const uint64_t pixel_bytes = op.out_int32 ? 4 * n : n;
  const uint64_t beats_per_pixel = std::max<uint64_t>(1, pixel_bytes / beat_bytes);
  const uint64_t lane_cycles = n / std::max<uint64_t>(1, ctx.config->requant_lanes);
  const double cycles_per_pixel = static_cast<double>(std::max(lane_cycles, beats_per_pixel));
  const double cycles_per_beat = cycles_per_pixel / static_cast<double>(beats_per_pixel);
  const bool contiguous = op.pixel_pitch == pixel_bytes;
  const uint64_t base = Address(ctx, op.slot, op.dram_offset);
  const uint64_t data = go + kStoreToData;
  uint64_t done = go;
  for (uint64_t y = 0; y < op.oh; ++y) {
    const uint64_t requests = contiguous ? 1 : op.ow;
    const uint64_t bytes = contiguous ? pixel_bytes * op.ow : pixel_bytes;
    for (uint64_t x = 0; x < requests; ++x) {
      const uint64_t first_pixel = y * op.ow + x;
      const uint64_t ready = data + static_cast<uint64_t>(static_cast<double>(first_pixel) * cycles_per_pixel);
      done = ctx.write->Write(go + kLoadRequest, base + y * op.row_pitch + x * op.pixel_pitch, bytes, ready,
                              cycles_per_beat);
    }
  }
  return done;
}

}  // namespace

uint64_t CommandDone(const UnitContext& ctx, const c::Command& command, uint64_t start) {
  switch (c::OpcodeOf(command)) {
    case c::Opcode::kLoadAct:
      return LoadActDone(ctx, Decoded<c::LoadAct>(command), start);
    case c::Opcode::kLoadWgt:
      return LoadWgtDone(ctx, Decoded<c::LoadWgt>(command), start);
    case c::Opcode::kLoadParam:
      return LoadParamDone(ctx, Decoded<c::LoadParam>(command), start);
    case c::Opcode::kConv:
      return ConvDone(ctx, Decoded<c::Conv>(command), start);
    case c::Opcode::kAdd:
      return AddDone(ctx, Decoded<c::Add>(command), start);
    case c::Opcode::kMaxpool:
      return MaxpoolDone(Decoded<c::Maxpool>(command), start);
    case c::Opcode::kStore:
      return StoreDone(ctx, Decoded<c::Store>(command), start);
  }
  return start + 1;
}

uint64_t ArrayMacs(const c::AccelConfig& config, const c::Command& command) {
  c::Conv op;
  if (!c::Decode(command, &op)) return 0;
  return uint64_t{config.n} * config.n * op.oh * op.ow * op.cb_count * op.kh * op.kw;
}

}  // namespace perf
}  // namespace fpga
}  // namespace loom
