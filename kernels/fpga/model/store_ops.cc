// The store unit: LOAD_PARAM (DRAM -> parameter buffer) and STORE
// (accumulators -> bias, requantization, clamp -> DRAM).
#include <sstream>

#include "kernels/common/requantize.h"
#include "kernels/fpga/model/datapath.h"
#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace fpga {

using contract::ErrorCode;

// count records of kParamRecordBytes: int32 bias, int32 multiplier, int8 shift,
// 3 bytes ignored. A shift outside [-31, 31] is refused here (BAD_FIELD), when
// it enters the chip, so STORE never meets one; the records before it have
// been written.
Fault Datapath::LoadParam(const contract::LoadParam& op) {
  LOOM_RETURN_IF_FAULT(AtLeastOne({{"count", op.count}}));
  uint64_t addr = 0;
  LOOM_RETURN_IF_FAULT(DramAddress(op.slot, op.dram_offset, &addr));
  LOOM_RETURN_IF_FAULT(RowsInside("parameter", op.param_row, op.count, "parameter", config_.param_rows));

  std::vector<uint8_t> bytes(size_t{op.count} * contract::kParamRecordBytes);
  LOOM_RETURN_IF_FAULT(ReadDram(addr, bytes.data(), bytes.size()));
  for (uint32_t k = 0; k < op.count; ++k) {
    const uint8_t* record = &bytes[size_t{k} * contract::kParamRecordBytes];
    ParamRecord p;
    p.bias = LoadLeInt32(record);
    p.multiplier = LoadLeInt32(record + 4);
    p.shift = static_cast<int8_t>(record[8]);
    Fault fault = ShiftInRange("shift", p.shift);
    if (!fault.ok()) {
      fault.detail = "parameter record " + std::to_string(k) + " (param row " + std::to_string(op.param_row + k) +
                     "): " + fault.detail;
      return fault;
    }
    param_[op.param_row + k] = p;
  }
  return Fault::Ok();
}

// Pixel p = oy·ow + ox, lane j: v = acc[acc_base + p][j] + bias (wrapping),
// with bias and (multiplier, shift) from record param_row + j, or bias 0 and
// the command's multiplier and shift when per_tensor. out_int32 writes v as
// int32 (4N bytes per pixel); otherwise requant::Requantize(v, stage) with the
// command's zero_point and [qmin, qmax], one byte per lane (N bytes per pixel),
// at base[slot] + dram_offset + oy·row_pitch + ox·pixel_pitch. qmin, qmax and
// the per-tensor shift are only checked when they are used (not for out_int32).
// All N lanes are stored, padding channels included.
Fault Datapath::Store(const contract::Store& op) {
  LOOM_RETURN_IF_FAULT(AtLeastOne({{"oh", op.oh}, {"ow", op.ow}}));
  const bool out_int32 = op.out_int32 != 0;
  const bool per_tensor = op.per_tensor != 0;
  if (!out_int32) {
    if (op.qmin < -128 || op.qmax > 255 || op.qmin > op.qmax) {
      std::ostringstream m;
      m << "clamp [qmin " << op.qmin << ", qmax " << op.qmax << "] is not inside [-128, 255] or is empty";
      return Fault::Of(ErrorCode::kBadField, m.str());
    }
    if (per_tensor) LOOM_RETURN_IF_FAULT(ShiftInRange("shift", op.shift));
  }
  uint64_t addr = 0;
  LOOM_RETURN_IF_FAULT(DramAddress(op.slot, op.dram_offset, &addr));
  LOOM_RETURN_IF_FAULT(DramAligned("row_pitch", op.row_pitch, config_.dram_alignment));
  LOOM_RETURN_IF_FAULT(DramAligned("pixel_pitch", op.pixel_pitch, config_.dram_alignment));
  LOOM_RETURN_IF_FAULT(
      RowsInside("accumulator", op.acc_base, uint64_t{op.oh} * op.ow, "accumulator", config_.acc_rows));
  if (!per_tensor) LOOM_RETURN_IF_FAULT(RowsInside("parameter", op.param_row, n_, "parameter", config_.param_rows));

  std::vector<int32_t> bias(n_, 0);
  std::vector<requant::OutputStage> stage(n_);
  for (uint32_t j = 0; j < n_; ++j) {
    stage[j].m = {static_cast<int32_t>(op.multiplier), op.shift};
    stage[j].zero_point = op.zero_point;
    stage[j].range = {op.qmin, op.qmax};
    if (per_tensor) continue;
    const ParamRecord& p = param_[op.param_row + j];
    bias[j] = p.bias;
    stage[j].m = {p.multiplier, p.shift};
  }

  std::vector<uint8_t> pixel(out_int32 ? 4 * size_t{n_} : n_);
  for (uint32_t oy = 0; oy < op.oh; ++oy) {
    for (uint32_t ox = 0; ox < op.ow; ++ox) {
      const int32_t* acc = AccRow(op.acc_base + uint64_t{oy} * op.ow + ox);
      for (uint32_t j = 0; j < n_; ++j) {
        const int32_t v = WrappingAdd(acc[j], bias[j]);
        if (out_int32) {
          StoreLeInt32(v, &pixel[4 * size_t{j}]);
        } else {
          pixel[j] = static_cast<uint8_t>(requant::Requantize(v, stage[j]));
        }
      }
      const uint64_t dst = addr + uint64_t{oy} * op.row_pitch + uint64_t{ox} * op.pixel_pitch;
      LOOM_RETURN_IF_FAULT(WriteDram(dst, pixel.data(), pixel.size()));
    }
  }
  return Fault::Ok();
}

}  // namespace fpga
}  // namespace loom
