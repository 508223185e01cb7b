// The accelerator's run protocol over AccelDevice registers, the same for
// every backend (what a board's driver does, so the model and the RTL
// simulation exercise the code the boards run):
//
//   Identify  CONFIG_ID and VERSION: which contract configuration the
//             hardware implements; an unknown ID or another contract major
//             version is a DeviceError naming both sides.
//   Launch    the device must be idle (CTRL ap_idle); writes CMD_ADDR,
//             BASE0..3 and CMD_COUNT (64-bit registers low word first), GIE
//             and IER (done), then ap_start; WaitDone; acknowledges ISR;
//             reads ERROR, ERROR_CMD and the counters. ERROR != 0 is a
//             DeviceError naming the device, the command index, its opcode
//             (when the caller passes the stream) and the error.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "kernels/fpga/device/accel_device.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

// The configuration whose config_id the device reports, or a DeviceError
// ("<device>: CONFIG_ID 0x... is no known accelerator configuration").
Status Identify(AccelDevice& device, const contract::AccelConfig** config);

struct LaunchArgs {
  uint64_t cmd_addr = 0;  // device address of the command stream (32-byte aligned)
  std::array<uint64_t, contract::kBaseSlots> base{};
  uint32_t count = 0;
  const contract::Command* commands = nullptr;  // optional, host copy: names the failing command's opcode
  uint32_t timeout_ms = 5000;
};

// The counter registers of the last run.
struct LaunchCounters {
  uint64_t cycles = 0;
  uint64_t load_busy = 0, load_stall = 0;
  uint64_t compute_busy = 0, compute_stall = 0;
  uint64_t store_busy = 0, store_stall = 0;
  uint64_t dma_read_bytes = 0, dma_write_bytes = 0;
};

struct LaunchResult {
  contract::ErrorCode error = contract::ErrorCode::kNone;
  uint32_t error_cmd = 0;
  LaunchCounters counters;
};

// One run. `result` is filled as far as the run got (also on a device
// error, so a caller can report the counters).
Status Launch(AccelDevice& device, const LaunchArgs& args, LaunchResult* result);

}  // namespace fpga
}  // namespace loom
