#include "kernels/fpga/device/model_device.h"

#include <cstring>
#include <vector>

#include "kernels/fpga/model/little_endian.h"
#include "kernels/fpga/perf/cycle_model.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

bool IsReadOnly(uint32_t offset) { return offset >= c::kRegError; }

}  // namespace

ModelDevice::ModelDevice(const c::AccelConfig& config, ModelDeviceOptions options)
    : config_(config),
      options_(options),
      host_(options.memory_bytes, options.memory_base),
      device_(options.memory_bytes, options.memory_base),
      model_(std::make_unique<AccelModel>(config, &device_)),
      allocator_(options.memory_base, options.memory_bytes) {
  registers_[c::kRegCtrl] = kApIdle;
  registers_[c::kRegConfigId] = options.faults.config_id != 0 ? options.faults.config_id : config.config_id;
  registers_[c::kRegVersion] = c::kVersion;
}

ModelDevice::~ModelDevice() = default;

// ---------------------------------------------------------------- memory

Status ModelDevice::Allocate(size_t bytes, size_t alignment, DeviceBuffer* out) {
  const int fail_after = options_.faults.fail_allocation_after;
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Status::InvalidArgument(name_ + ": allocation of " + std::to_string(bytes) + " bytes aligned to " +
                                   std::to_string(alignment) + " (need bytes > 0 and a power-of-two alignment)");
  }
  if (fail_after >= 0 && allocations_ >= fail_after) {
    return Status::DeviceError(name_ + ": cannot allocate " + std::to_string(bytes) +
                               " bytes of device memory (injected failure)");
  }
  uint64_t offset = 0;
  if (allocator_.Allocate(bytes, alignment, &offset)) {
    std::memset(host_.data() + offset, 0, bytes);
    std::memset(device_.data() + offset, 0, bytes);
    *out = DeviceBuffer{host_.data() + offset, options_.memory_base + offset, bytes, offset};
    ++allocations_;
    return Status::Ok();
  }
  return Status::DeviceError(name_ + ": cannot allocate " + std::to_string(bytes) + " bytes of device memory (" +
                             std::to_string(options_.memory_bytes >> 20) + " MiB in all)");
}

void ModelDevice::Free(const DeviceBuffer& buffer) { allocator_.Free(buffer.handle, buffer.bytes); }

Status ModelDevice::CheckBuffer(const DeviceBuffer& buffer, size_t offset, size_t bytes, const char* what) const {
  if (buffer.handle + buffer.bytes > options_.memory_bytes || offset > buffer.bytes || bytes > buffer.bytes - offset) {
    return Status::InvalidArgument(name_ + ": " + what + " of [" + std::to_string(offset) + ", +" +
                                   std::to_string(bytes) + ") outside a buffer of " + std::to_string(buffer.bytes) +
                                   " bytes");
  }
  return Status::Ok();
}

Status ModelDevice::Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  RETURN_IF_ERROR(CheckBuffer(buffer, offset, bytes, "flush"));
  std::memcpy(device_.data() + buffer.handle + offset, host_.data() + buffer.handle + offset, bytes);
  return Status::Ok();
}

Status ModelDevice::Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  RETURN_IF_ERROR(CheckBuffer(buffer, offset, bytes, "invalidate"));
  std::memcpy(host_.data() + buffer.handle + offset, device_.data() + buffer.handle + offset, bytes);
  return Status::Ok();
}

// ---------------------------------------------------------------- registers

Status ModelDevice::WriteRegister(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0 || offset > c::kRegDmaWriteBytes + 4) {
    return Status::InvalidArgument(name_ + ": no register at offset " + std::to_string(offset));
  }
  if (IsReadOnly(offset)) return Status::Ok();  // as the hardware: writes to read-only registers are ignored
  if (offset == c::kRegIsr) {
    registers_[offset] ^= value;  // toggle on write
    return Status::Ok();
  }
  if (offset != c::kRegCtrl) {
    registers_[offset] = value;
    return Status::Ok();
  }
  if ((value & kApStart) == 0 || running_ || options_.faults.ignore_start) return Status::Ok();
  registers_[c::kRegCtrl] = 0;  // not idle
  running_ = true;
  if (!options_.faults.never_done) RunModel();
  return Status::Ok();
}

Status ModelDevice::ReadRegister(uint32_t offset, uint32_t* value) {
  if (offset % 4 != 0 || offset > c::kRegDmaWriteBytes + 4) {
    return Status::InvalidArgument(name_ + ": no register at offset " + std::to_string(offset));
  }
  auto it = registers_.find(offset);
  *value = it == registers_.end() ? 0 : it->second;
  if (offset == c::kRegCtrl) it->second &= ~(kApDone | kApReady);  // clear on read
  return Status::Ok();
}

Status ModelDevice::WaitDone(uint32_t timeout_ms) {
  if (running_ && !options_.faults.never_done) RunModel();  // held by never_done, which was cleared since
  if (running_ || options_.faults.ignore_start) {
    // The model finishes at once or never: waiting longer would not help.
    return Status::DeviceError(name_ + ": no ap_done within " + std::to_string(timeout_ms) + " ms" +
                               (running_ ? " (the run started and never finished)" : " (ap_start was not taken)"));
  }
  return Status::Ok();
}

void ModelDevice::RunModel() {
  auto reg64 = [&](uint32_t offset) { return uint64_t{registers_[offset]} | uint64_t{registers_[offset + 4]} << 32; };
  RunArgs args;
  args.cmd_addr = reg64(c::kRegCmdAddr);
  const uint32_t bases[c::kBaseSlots] = {c::kRegBase0, c::kRegBase1, c::kRegBase2, c::kRegBase3};
  for (uint32_t slot = 0; slot < c::kBaseSlots; ++slot) args.base[slot] = reg64(bases[slot]);
  args.count = registers_[c::kRegCmdCount];
  RunResult result;
  const Status status = model_->Run(args, &result);
  last_error_detail_ = status.ok() ? result.error_detail : status.message();
  c::ErrorCode error = status.ok() ? result.error : c::ErrorCode::kBadField;
  uint32_t error_cmd = result.error_cmd;
  if (error == c::ErrorCode::kNone && options_.faults.force_error != c::ErrorCode::kNone) {
    error = options_.faults.force_error;
    error_cmd = options_.faults.force_error_cmd;
    last_error_detail_ = "injected error";
  }
  auto set64 = [&](uint32_t offset, uint64_t value) {
    registers_[offset] = static_cast<uint32_t>(value);
    registers_[offset + 4] = static_cast<uint32_t>(value >> 32);
  };
  registers_[c::kRegError] = static_cast<uint32_t>(error);
  registers_[c::kRegErrorCmd] = error_cmd;
  set64(c::kRegDmaReadBytes, result.bytes_read);
  set64(c::kRegDmaWriteBytes, result.bytes_written);

  // The projected on-board cycles of a good stream.
  perf::CycleEstimate estimate;
  if (error == c::ErrorCode::kNone) {
    std::vector<uint8_t> bytes(size_t{args.count} * c::kCommandBytes);
    std::vector<c::Command> commands;
    if (device_.Read(args.cmd_addr, bytes.data(), bytes.size()).ok()) {
      for (size_t at = 0; at < bytes.size(); at += c::kCommandBytes) commands.push_back(CommandFromBytes(&bytes[at]));
      perf::CycleModelOptions options;
      options.dram = options_.dram;
      options.base = args.base;
      if (!perf::EstimateCycles(config_, commands, options, &estimate).ok()) estimate = {};
    }
  }
  set64(c::kRegCycles, estimate.cycles);
  set64(c::kRegLoadBusy, estimate.busy[0]);
  set64(c::kRegComputeBusy, estimate.busy[1]);
  set64(c::kRegStoreBusy, estimate.busy[2]);
  set64(c::kRegLoadStall, 0);
  set64(c::kRegComputeStall, 0);
  set64(c::kRegStoreStall, 0);

  running_ = false;
  registers_[c::kRegCtrl] = kApDone | kApIdle | kApReady;
  if ((registers_[c::kRegIer] & kDoneBit) != 0) registers_[c::kRegIsr] |= kDoneBit;
}

}  // namespace fpga
}  // namespace loom
