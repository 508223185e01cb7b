// Datapath: the accelerator's on-chip buffers and what each command does to
// them — the load, compute and store units' work without their queues and
// tokens (AccelModel schedules those). Each command is checked completely
// before it touches anything, in this order: BAD_FIELD, MISALIGNED,
// SRAM_RANGE; a BUS_ERROR shows up during the transfer itself, so the part
// of a command before the failing access has happened, as on the board.
//
// Buffers (hw/README.md, Memory layout):
//   input   inp_rows rows of N bytes (int8, or uint8 when act_unsigned)
//   weights wgt_rows rows of N int8
//   accum.  acc_rows rows of N int32
//   params  param_rows records {int32 bias, int32 multiplier, int8 shift}
// Accumulator arithmetic wraps around modulo 2^32, as the hardware's adders do.
//
// The per-opcode members are defined in load_ops.cc (LOAD_ACT, LOAD_WGT),
// compute_ops.cc (CONV, ADD, MAXPOOL) and store_ops.cc (LOAD_PARAM, STORE).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/fpga/model/device_memory.h"
#include "kernels/fpga/model/fault.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

// a + b modulo 2^32: the accumulators' adders wrap around instead of saturating.
inline int32_t WrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// One parameter buffer record (contract::kParamRecordBytes in DRAM).
struct ParamRecord {
  int32_t bias = 0;
  int32_t multiplier = 0;
  int32_t shift = 0;  // an int8 in DRAM
};

// DMA traffic and work of a run, as the DMA_*_BYTES registers count them.
struct Counters {
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t macs = 0;
};

class Datapath {
 public:
  Datapath(const contract::AccelConfig& config, DeviceMemory* memory);

  // Zeroes the buffers and counters and latches the four base-address slots:
  // the state at ap_start.
  void Reset(const std::array<uint64_t, contract::kBaseSlots>& base);

  // Runs one command whose opcode is valid (fetch rejects the others).
  Fault Execute(const contract::Command& command);

  // A DMA read on behalf of any unit (fetch reads commands with it): BUS_ERROR
  // outside device memory; counts bytes_read.
  Fault ReadDram(uint64_t addr, void* dst, size_t bytes);

  const Counters& counters() const { return counters_; }

  // Test only, for RTL testbenches (hw/sim/tests/load_store_test.cc): the
  // input, weight and accumulator buffers, to compare with the hardware's
  // and to preload them the way a testbench preloads the RTL's through its
  // test ports. The model itself never needs this.
  struct BuffersForTest {
    std::vector<uint8_t>& inp;  // inp_rows x N bytes, row-major
    std::vector<uint8_t>& wgt;  // wgt_rows x N bytes
    std::vector<int32_t>& acc;  // acc_rows x N int32
  };
  BuffersForTest buffers_for_test() { return {inp_, wgt_, acc_}; }

 private:
  Fault LoadAct(const contract::LoadAct& op);
  Fault LoadWgt(const contract::LoadWgt& op);
  Fault LoadParam(const contract::LoadParam& op);
  Fault Conv(const contract::Conv& op);
  Fault Add(const contract::Add& op);
  Fault Maxpool(const contract::Maxpool& op);
  Fault Store(const contract::Store& op);

  // base[slot] + dram_offset, MISALIGNED unless a multiple of the dram_alignment.
  Fault DramAddress(uint32_t slot, uint32_t dram_offset, uint64_t* addr) const;
  Fault WriteDram(uint64_t addr, const void* src, size_t bytes);

  uint8_t* InputRow(uint64_t row) { return &inp_[row * n_]; }
  const int8_t* WeightRow(uint64_t row) const { return reinterpret_cast<const int8_t*>(&wgt_[row * n_]); }
  int32_t* AccRow(uint64_t row) { return &acc_[row * n_]; }

  const contract::AccelConfig config_;
  const uint32_t n_;
  DeviceMemory* memory_;
  std::array<uint64_t, contract::kBaseSlots> base_{};
  std::vector<uint8_t> inp_;
  std::vector<uint8_t> wgt_;
  std::vector<int32_t> acc_;
  std::vector<ParamRecord> param_;
  Counters counters_;
};

}  // namespace fpga
}  // namespace loom
