// The accelerator's run protocol over AccelDevice registers, the same for
// every backend (what a board's driver does, so the model and the RTL
// simulation exercise the code the boards run):
//
//   Identify  CONFIG_ID and VERSION: which contract configuration the
//             hardware implements; an unknown ID or another contract major
//             version is a DeviceError naming both sides.
//   WaitIdle  a run still going (one an earlier Launch gave up on after its
//             timeout) is waited for, up to the timeout, so a run that was
//             only slow does not leave the device unusable; a done such a
//             run left pending in ISR is acknowledged, so it cannot pass for
//             the next run's.
//   Launch    WaitIdle, then writes CMD_ADDR, BASE0..3 and CMD_COUNT (64-bit
//             registers low word first), GIE and IER (done), then ap_start;
//             WaitDone; acknowledges ISR; reads ERROR, ERROR_CMD and the
//             counters. ERROR != 0 is a DeviceError naming the device, the
//             command index, its opcode (when the caller passes the stream)
//             and the error.
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

// How long Launch waits for ap_done unless told otherwise.
constexpr uint32_t kDefaultLaunchTimeoutMs = 5000;

struct LaunchArgs {
  uint64_t cmd_addr = 0;  // device address of the command stream (32-byte aligned)
  std::array<uint64_t, contract::kBaseSlots> base{};
  uint32_t count = 0;
  const contract::Command* commands = nullptr;    // optional, host copy: names the failing command's opcode
  uint32_t timeout_ms = kDefaultLaunchTimeoutMs;  // 0 waits for ever
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

// Returns when the device is idle with no done pending, or a DeviceError
// when an earlier run is still in progress after timeout_ms more (0 waits
// for ever). A caller about to write memory that an abandoned run may still
// write (an execution context's arena) calls it first.
Status WaitIdle(AccelDevice& device, uint32_t timeout_ms);

// One run. `result` is filled as far as the run got (also on a device
// error, so a caller can report the counters).
Status Launch(AccelDevice& device, const LaunchArgs& args, LaunchResult* result);

}  // namespace fpga
}  // namespace loom
