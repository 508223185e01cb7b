// The load unit: LOAD_ACT and LOAD_WGT, DRAM -> input and weight buffers.
#include <algorithm>

#include "kernels/fpga/model/datapath.h"

namespace loom {
namespace fpga {

// A (pad_top + y_size + pad_bottom) x (pad_left + x_size + pad_right) tile of
// cb channel blocks per pixel, [y][x][cb] from sram_row; pixel (y, x) of the
// region is the cb·N contiguous bytes at address + y·row_pitch + x·pixel_pitch
// and padding pixels are pad_value in every byte. Pitches may be anything
// aligned (0 repeats a pixel or row; the builder never needs that).
Fault Datapath::LoadAct(const contract::LoadAct& op) {
  LOOM_RETURN_IF_FAULT(AtLeastOne({{"y_size", op.y_size}, {"x_size", op.x_size}, {"cb", op.cb}}));
  uint64_t addr = 0;
  LOOM_RETURN_IF_FAULT(DramAddress(op.slot, op.dram_offset, &addr));
  LOOM_RETURN_IF_FAULT(DramAligned("row_pitch", op.row_pitch, config_.dram_alignment));
  LOOM_RETURN_IF_FAULT(DramAligned("pixel_pitch", op.pixel_pitch, config_.dram_alignment));
  const uint32_t height = op.pad_top + op.y_size + op.pad_bottom;
  const uint32_t width = op.pad_left + op.x_size + op.pad_right;
  LOOM_RETURN_IF_FAULT(RowsInside("input", op.sram_row, uint64_t{height} * width * op.cb, "input", config_.inp_rows));

  const size_t pixel_bytes = size_t{op.cb} * n_;
  for (uint32_t ty = 0; ty < height; ++ty) {
    const bool pad_row = ty < op.pad_top || ty >= op.pad_top + op.y_size;
    for (uint32_t tx = 0; tx < width; ++tx) {
      uint8_t* dst = InputRow(op.sram_row + (uint64_t{ty} * width + tx) * op.cb);
      if (pad_row || tx < op.pad_left || tx >= op.pad_left + op.x_size) {
        std::fill(dst, dst + pixel_bytes, static_cast<uint8_t>(op.pad_value));
        continue;
      }
      const uint64_t src =
          addr + uint64_t{ty - op.pad_top} * op.row_pitch + uint64_t{tx - op.pad_left} * op.pixel_pitch;
      LOOM_RETURN_IF_FAULT(ReadDram(src, dst, pixel_bytes));
    }
  }
  return Fault::Ok();
}

// rows x N contiguous bytes, already in the order CONV reads them.
Fault Datapath::LoadWgt(const contract::LoadWgt& op) {
  LOOM_RETURN_IF_FAULT(AtLeastOne({{"rows", op.rows}}));
  uint64_t addr = 0;
  LOOM_RETURN_IF_FAULT(DramAddress(op.slot, op.dram_offset, &addr));
  LOOM_RETURN_IF_FAULT(RowsInside("weight", op.sram_row, op.rows, "weight", config_.wgt_rows));
  return ReadDram(addr, &wgt_[size_t{op.sram_row} * n_], size_t{op.rows} * n_);
}

}  // namespace fpga
}  // namespace loom
