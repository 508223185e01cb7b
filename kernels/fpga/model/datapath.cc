#include "kernels/fpga/model/datapath.h"

#include <algorithm>
#include <sstream>

namespace loom {
namespace fpga {

using contract::ErrorCode;

Datapath::Datapath(const contract::AccelConfig& config, DeviceMemory* memory)
    : config_(config),
      n_(config.n),
      memory_(memory),
      inp_(size_t{config.inp_rows} * config.n),
      wgt_(size_t{config.wgt_rows} * config.n),
      acc_(size_t{config.acc_rows} * config.n),
      param_(config.param_rows) {}

void Datapath::Reset(const std::array<uint64_t, contract::kBaseSlots>& base) {
  base_ = base;
  std::fill(inp_.begin(), inp_.end(), 0);
  std::fill(wgt_.begin(), wgt_.end(), 0);
  std::fill(acc_.begin(), acc_.end(), 0);
  std::fill(param_.begin(), param_.end(), ParamRecord());
  counters_ = Counters();
}

namespace {

// Decodes the command as Op and runs it; the opcode was checked by the caller.
template <typename Op>
Fault DecodeAndRun(Datapath* datapath, Fault (Datapath::*run)(const Op&), const contract::Command& command) {
  Op op;
  contract::Decode(command, &op);
  return (datapath->*run)(op);
}

}  // namespace

Fault Datapath::Execute(const contract::Command& command) {
  using contract::Opcode;
  switch (contract::OpcodeOf(command)) {
    case Opcode::kLoadAct:
      return DecodeAndRun(this, &Datapath::LoadAct, command);
    case Opcode::kLoadWgt:
      return DecodeAndRun(this, &Datapath::LoadWgt, command);
    case Opcode::kLoadParam:
      return DecodeAndRun(this, &Datapath::LoadParam, command);
    case Opcode::kConv:
      return DecodeAndRun(this, &Datapath::Conv, command);
    case Opcode::kAdd:
      return DecodeAndRun(this, &Datapath::Add, command);
    case Opcode::kMaxpool:
      return DecodeAndRun(this, &Datapath::Maxpool, command);
    case Opcode::kStore:
      return DecodeAndRun(this, &Datapath::Store, command);
  }
  return Fault::Of(ErrorCode::kBadOpcode,
                   "opcode " + std::to_string(static_cast<int>(contract::OpcodeOf(command))) + " is not a command");
}

Fault Datapath::DramAddress(uint32_t slot, uint32_t dram_offset, uint64_t* addr) const {
  *addr = base_[slot] + dram_offset;  // slot is a 2-bit field: always a valid index
  Fault fault = DramAligned("device address", *addr, config_.dram_alignment);
  if (!fault.ok()) {
    std::ostringstream m;
    m << fault.detail << " (slot " << slot << " base 0x" << std::hex << base_[slot] << " + dram_offset 0x"
      << dram_offset << ")";
    fault.detail = m.str();
  }
  return fault;
}

Fault Datapath::ReadDram(uint64_t addr, void* dst, size_t bytes) {
  const Status status = memory_->Read(addr, dst, bytes);
  if (!status.ok()) return Fault::Of(ErrorCode::kBusError, status.message());
  counters_.bytes_read += bytes;
  return Fault::Ok();
}

Fault Datapath::WriteDram(uint64_t addr, const void* src, size_t bytes) {
  const Status status = memory_->Write(addr, src, bytes);
  if (!status.ok()) return Fault::Of(ErrorCode::kBusError, status.message());
  counters_.bytes_written += bytes;
  return Fault::Ok();
}

}  // namespace fpga
}  // namespace loom
