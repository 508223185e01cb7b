#include "kernels/fpga/device/accel_driver.h"

#include <cstdio>

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%08llX", static_cast<unsigned long long>(value));
  return text;
}

Status Write64(AccelDevice& device, uint32_t offset, uint64_t value) {
  RETURN_IF_ERROR(device.WriteRegister(offset, static_cast<uint32_t>(value)));
  return device.WriteRegister(offset + 4, static_cast<uint32_t>(value >> 32));
}

Status Read64(AccelDevice& device, uint32_t offset, uint64_t* value) {
  uint32_t low = 0, high = 0;
  RETURN_IF_ERROR(device.ReadRegister(offset, &low));
  RETURN_IF_ERROR(device.ReadRegister(offset + 4, &high));
  *value = (uint64_t{high} << 32) | low;
  return Status::Ok();
}

Status ReadCounters(AccelDevice& device, LaunchCounters* k) {
  const std::pair<uint32_t, uint64_t*> registers[] = {
      {c::kRegCycles, &k->cycles},
      {c::kRegLoadBusy, &k->load_busy},
      {c::kRegLoadStall, &k->load_stall},
      {c::kRegComputeBusy, &k->compute_busy},
      {c::kRegComputeStall, &k->compute_stall},
      {c::kRegStoreBusy, &k->store_busy},
      {c::kRegStoreStall, &k->store_stall},
      {c::kRegDmaReadBytes, &k->dma_read_bytes},
      {c::kRegDmaWriteBytes, &k->dma_write_bytes},
  };
  for (const auto& [offset, value] : registers) RETURN_IF_ERROR(Read64(device, offset, value));
  return Status::Ok();
}

std::string CommandName(const LaunchArgs& args, uint32_t index) {
  std::string name = "command " + std::to_string(index);
  if (args.commands != nullptr && index < args.count) {
    const uint32_t code =
        static_cast<uint32_t>(c::GetBits(args.commands[index], c::kOpcodeField.lsb, c::kOpcodeField.width));
    if (c::IsValidOpcode(code)) name += std::string(" (") + c::OpcodeName(static_cast<c::Opcode>(code)) + ")";
  }
  return name;
}

}  // namespace

Status Identify(AccelDevice& device, const c::AccelConfig** config) {
  uint32_t id = 0, version = 0;
  RETURN_IF_ERROR(device.ReadRegister(c::kRegConfigId, &id));
  RETURN_IF_ERROR(device.ReadRegister(c::kRegVersion, &version));
  if ((version >> 16) != c::kVersionMajor) {
    return Status::DeviceError(device.name() + ": accelerator contract version " + std::to_string(version >> 16) + "." +
                               std::to_string(version & 0xFFFF) + ", this Loom speaks " +
                               std::to_string(c::kVersionMajor) + "." + std::to_string(c::kVersionMinor));
  }
  for (const c::AccelConfig& known : c::kConfigs) {
    if (known.config_id == id) {
      *config = &known;
      return Status::Ok();
    }
  }
  return Status::DeviceError(device.name() + ": CONFIG_ID " + Hex(id) + " is no known accelerator configuration");
}

Status WaitIdle(AccelDevice& device, uint32_t timeout_ms) {
  uint32_t ctrl = 0;
  RETURN_IF_ERROR(device.ReadRegister(c::kRegCtrl, &ctrl));
  if ((ctrl & kApIdle) == 0) {
    const Status waited = device.WaitDone(timeout_ms);
    RETURN_IF_ERROR(device.ReadRegister(c::kRegCtrl, &ctrl));
    if (!waited.ok() || (ctrl & kApIdle) == 0) {
      return Status::DeviceError(device.name() + ": the accelerator is not idle (CTRL " + Hex(ctrl) +
                                 "): an earlier run is still in progress after waiting " + std::to_string(timeout_ms) +
                                 " ms more for it (another user of the device, or a run that never finishes: "
                                 "reset or reload the accelerator)");
    }
  }
  uint32_t isr = 0;
  RETURN_IF_ERROR(device.ReadRegister(c::kRegIsr, &isr));
  if ((isr & kDoneBit) != 0) RETURN_IF_ERROR(device.WriteRegister(c::kRegIsr, kDoneBit));  // toggle-on-write
  return Status::Ok();
}

Status Launch(AccelDevice& device, const LaunchArgs& args, LaunchResult* result) {
  *result = LaunchResult{};
  RETURN_IF_ERROR(WaitIdle(device, args.timeout_ms));
  RETURN_IF_ERROR(Write64(device, c::kRegCmdAddr, args.cmd_addr));
  const uint32_t bases[c::kBaseSlots] = {c::kRegBase0, c::kRegBase1, c::kRegBase2, c::kRegBase3};
  for (uint32_t slot = 0; slot < c::kBaseSlots; ++slot) RETURN_IF_ERROR(Write64(device, bases[slot], args.base[slot]));
  RETURN_IF_ERROR(Write64(device, c::kRegCmdCount, args.count));
  RETURN_IF_ERROR(device.WriteRegister(c::kRegGie, 1));
  RETURN_IF_ERROR(device.WriteRegister(c::kRegIer, kDoneBit));
  RETURN_IF_ERROR(device.WriteRegister(c::kRegCtrl, kApStart));
  RETURN_IF_ERROR(device.WaitDone(args.timeout_ms));
  uint32_t isr = 0;
  RETURN_IF_ERROR(device.ReadRegister(c::kRegIsr, &isr));
  if ((isr & kDoneBit) != 0) RETURN_IF_ERROR(device.WriteRegister(c::kRegIsr, kDoneBit));  // toggle-on-write
  uint32_t error = 0;
  RETURN_IF_ERROR(device.ReadRegister(c::kRegError, &error));
  RETURN_IF_ERROR(device.ReadRegister(c::kRegErrorCmd, &result->error_cmd));
  result->error = static_cast<c::ErrorCode>(error);
  RETURN_IF_ERROR(ReadCounters(device, &result->counters));
  if (error != 0) {
    return Status::DeviceError(device.name() + ": " + CommandName(args, result->error_cmd) + " of " +
                               std::to_string(args.count) + " failed: " + c::ErrorName(result->error) + " (ERROR " +
                               std::to_string(error) + ")");
  }
  return Status::Ok();
}

}  // namespace fpga
}  // namespace loom
