// RtlDevice: the accelerator's RTL (hw/rtl/loom_accel_top.sv, Verilated for
// pynq_z2) as a device with the functional model's interface, so tests run
// the same command streams on both and the engine's fpga-rtl backend is a
// thin wrapper.
//
// Run(args, result) is one ap_start .. ap_done, driven the way a host driver
// does it: CMD_ADDR, BASE0..3 and CMD_COUNT over AXI-Lite (AxiLiteDriver),
// GIE and IER on, ap_start; then the clock runs until the interrupt pin
// rises; ISR is acknowledged, and ERROR, ERROR_CMD and the counters are read
// back. DRAM is the device view of a HostDeviceMemory, served by AxiDdrModel
// (default: one 64-bit HP port, 40 cycles of read latency, 4 outstanding
// bursts each way, no back-pressure); the caller syncs the host view, as on
// the board. A device error (a bad stream) is reported as the model reports
// it: Run returns Ok with result->error and error_cmd set (error_detail names
// the code and command; the RTL has no finer detail). result->bytes_read and
// bytes_written are the DMA_*_BYTES registers; commands and macs stay 0.
//
// A failed Status means the simulation itself failed: the run did not finish
// within max_cycles, or for quiet_cycles neither AXI traffic happened nor
// did COMPUTE_BUSY advance (a hang: the RTL has its own deadlock detection,
// so this is an RTL bug), or the DDR model saw an AXI rule violation (an
// access outside the memory is not one: it answers DECERR, and the run ends
// with BUS_ERROR as the model's does). The message names the cycle and, with
// LOOM_HW_TRACE=/path/run.fst set, the FST trace, which is kept when a run
// fails (or KeepTrace() was called, or LOOM_HW_TRACE_KEEP=1).
//
// schedule_seed reseeds the DDR model's random back-pressure (0: the
// configured seed), so sweeping seeds sweeps AXI timings as the model's seeds
// sweep unit interleavings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "hw/sim/axi_ddr_model.h"
#include "hw/sim/host_device_memory.h"
#include "kernels/fpga/model/accel_model.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace hw_sim {

struct RtlDeviceOptions {
  AxiDdrConfig ddr;                   // latency, outstanding bursts, back-pressure
  uint64_t max_cycles = 2'000'000'000;  // per run
  uint64_t quiet_cycles = 2'000'000;  // no AXI handshake nor compute for this long: a hang
  std::string trace_name = "rtl_device";  // the trace file is $LOOM_HW_TRACE's stem.<trace_name>.<n>.fst
};

// The counter registers after a run (hw/README.md, Register map).
struct RtlCounters {
  uint64_t cycles = 0;
  uint64_t load_busy = 0, load_stall = 0;
  uint64_t compute_busy = 0, compute_stall = 0;
  uint64_t store_busy = 0, store_stall = 0;
  uint64_t dma_read_bytes = 0, dma_write_bytes = 0;
};

class RtlDevice {
 public:
  // memory must outlive the device. Only the configuration the RTL was
  // Verilated for (pynq_z2) is accepted; check status() after construction.
  RtlDevice(const fpga::contract::AccelConfig& config, HostDeviceMemory* memory, RtlDeviceOptions options = {});
  ~RtlDevice();
  RtlDevice(const RtlDevice&) = delete;
  RtlDevice& operator=(const RtlDevice&) = delete;

  // Ok, or why the device cannot run (wrong configuration, CONFIG_ID mismatch).
  const Status& status() const { return status_; }

  Status Run(const fpga::RunArgs& args, fpga::RunResult* result);

  // Register level, for the fpga-rtl AccelDevice (rtl_accel_device.h): one
  // AXI-Lite transaction each, the clock running meanwhile.
  Status WriteRegister(uint32_t offset, uint32_t value);
  Status ReadRegister(uint32_t offset, uint32_t* value);
  // Runs the clock until the interrupt pin rises (ap_done with GIE and IER
  // set). A failed Status as Run's: no interrupt within max_cycles (from
  // now), a hang (quiet_cycles without AXI traffic or compute), an AXI
  // violation.
  Status WaitInterrupt(uint64_t max_cycles);

  const RtlCounters& counters() const { return counters_; }  // of the last run
  const AxiDdrStats& ddr_stats() const;                      // since construction
  uint64_t simulated_cycles() const;                          // since construction
  // Keep the FST trace (if one is recorded) when the device is destroyed.
  void KeepTrace() { keep_trace_ = true; }

  // The Verilator command-line flags the top was built with.
  static const char* VerilatorFlags();

 private:
  struct Sim;  // the Verilated top and its models (Verilator headers stay in rtl_device.cc)

  Status Fail(const std::string& message);

  const fpga::contract::AccelConfig config_;
  RtlDeviceOptions options_;
  std::unique_ptr<Sim> sim_;
  Status status_;
  RtlCounters counters_;
  bool keep_trace_ = false;
};

}  // namespace hw_sim
}  // namespace loom
