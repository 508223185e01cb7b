// AccelModel: the accelerator's functional model — the executable
// specification of hw/README.md and hw/contract/accel.json. It runs a command
// stream from DeviceMemory bit-exactly as the hardware will, so the RTL is
// tested against it and the engine can run plans on it without a board.
//
// Run(args) is one ap_start .. ap_done: fetch reads args.count commands of
// 32 bytes from args.cmd_addr and dispatches them in order into the load,
// compute and store queues (queue_depth commands each; fetch stalls while the
// target queue is full). Each unit pops its head command, waits for the tokens
// its pop_* flags ask for, runs it (Datapath) and pushes the tokens its push_*
// flags ask for. Tokens travel in four FIFOs (load->compute, compute->load,
// compute->store, store->compute), counters of capacity queue_depth; a unit
// whose push would overflow a full FIFO blocks, as in hardware. The model
// holds such a command back before it starts rather than after it ran: the
// unit is stuck until the consumer pops either way, and a stream whose result
// depends on the difference has a race the token flags do not order.
//
// The units run concurrently in hardware; the model executes one whole
// command (or one fetch step) at a time, choosing among the units whose head
// command can start and fetch (when it can make progress) with
// std::mt19937_64(schedule_seed), index = draw % candidates (no
// std::uniform_int_distribution, whose results differ between standard
// libraries). Seed 0 is a fixed priority: fetch, load, compute, store. A
// well-formed stream gives the same memory for every seed; tests sweep seeds
// to find streams whose tokens do not order their buffer reuse.
//
// A device error (a bad stream) is not a failed Status: Run returns Ok and
// fills result->error, error_cmd and error_detail as the ERROR and ERROR_CMD
// registers would, stopping at the first error (memory written before it
// stays written). Errors: BAD_OPCODE and BAD_TOKENS when fetch decodes the
// command; MISALIGNED (error_cmd 0) for a command stream address that is not
// 32-byte aligned; BUS_ERROR for a fetch outside memory; DEADLOCK when no unit
// can start and fetch can make no progress while commands remain, error_cmd
// the lowest-index command at the head of a queue; the others from Datapath
// when the command runs. A Status error means misuse of the API.
//
// On-chip buffers and token FIFOs start zeroed at every Run (nothing persists
// between runs, so a run's result depends on its stream alone); tokens left
// in a FIFO at the end of a run are not an error.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "kernels/fpga/model/datapath.h"
#include "kernels/fpga/model/device_memory.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

// The run's arguments: the CMD_ADDR, BASE0..3 and CMD_COUNT registers.
struct RunArgs {
  uint64_t cmd_addr = 0;
  std::array<uint64_t, contract::kBaseSlots> base{};
  uint32_t count = 0;
  uint64_t schedule_seed = 0;  // model only: which legal interleaving of the units to run
};

struct RunResult {
  contract::ErrorCode error = contract::ErrorCode::kNone;
  uint32_t error_cmd = 0;
  std::string error_detail;            // e.g. "command 12 (CONV): input row 70000 past the input buffer (4096 rows)"
  std::array<uint64_t, 3> commands{};  // commands executed, indexed by contract::Queue
  uint64_t bytes_read = 0;             // DMA_READ_BYTES: command fetch included
  uint64_t bytes_written = 0;          // DMA_WRITE_BYTES
  uint64_t macs = 0;                   // CONV: oh·ow·cb_count·kh·kw·N·N

  bool ok() const { return error == contract::ErrorCode::kNone; }
};

class AccelModel {
 public:
  // memory must outlive the model.
  AccelModel(const contract::AccelConfig& config, DeviceMemory* memory);
  AccelModel(const AccelModel&) = delete;  // a device: one model per memory
  AccelModel& operator=(const AccelModel&) = delete;

  Status Run(const RunArgs& args, RunResult* result);

  const contract::AccelConfig& config() const { return config_; }

 private:
  const contract::AccelConfig config_;
  DeviceMemory* memory_;
  Datapath datapath_;
};

}  // namespace fpga
}  // namespace loom
