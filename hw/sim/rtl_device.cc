#include "hw/sim/rtl_device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "Vloom_accel_top.h"
#include "hw/sim/axil_driver.h"
#include "hw/sim/verilated_sim.h"

#ifndef LOOM_HW_RTL_VERILATOR_FLAGS
#define LOOM_HW_RTL_VERILATOR_FLAGS "(unknown)"
#endif

namespace loom {
namespace hw_sim {
namespace {

namespace c = fpga::contract;

constexpr uint32_t kApStart = 1;
constexpr uint32_t kIsrDone = 1;

// The configuration the Verilated top was built with (hw/sim/CMakeLists.txt).
constexpr const char* kRtlConfig = "pynq_z2";

std::string TracePathFor(const std::string& name) {
  const std::string base = TraceBaseFromEnv();
  return base.empty() ? "" : NumberedTracePath(base, name);
}

}  // namespace

struct RtlDevice::Sim {
  Sim(const RtlDeviceOptions& options, HostDeviceMemory* memory)
      : sim(TracePathFor(options.trace_name)),
        ddr(options.ddr, LOOM_AXI_MASTER_PINS(sim.top(), m_axi_gmem_), *memory),
        regs(LOOM_AXI_LITE_PINS(sim.top(), s_axi_control_), [this] { Tick(); }, 1000) {
    sim.Add(&regs);
    sim.Add(&ddr);
    regs.Reset();
    ddr.Reset();
    sim.Reset(8);
  }

  void Tick() { sim.Tick(); }
  // The interrupt pin: Verilator renames ports named like C++ words.
  bool Interrupt() { return sim.top().__SYM__interrupt != 0; }

  uint64_t Traffic() const {
    const AxiDdrStats& s = ddr.stats();
    return s.read_bursts + s.write_bursts + s.read_beats + s.write_beats + s.write_responses;
  }

  VerilatedSim<Vloom_accel_top, ApClockPins> sim;
  AxiDdrModel ddr;
  AxiLiteDriver regs;
};

RtlDevice::RtlDevice(const c::AccelConfig& config, HostDeviceMemory* memory, RtlDeviceOptions options)
    : config_(config), options_(std::move(options)) {
  if (memory == nullptr) {
    status_ = Status::InvalidArgument("RtlDevice: no memory");
    return;
  }
  if (config.name == nullptr || std::strcmp(config.name, kRtlConfig) != 0) {
    status_ = Status::Unsupported(std::string("RtlDevice: the RTL is Verilated for ") + kRtlConfig + ", not " +
                                  (config.name ? config.name : "(unnamed)"));
    return;
  }
  options_.ddr.data_bytes = config.axi_data_bits / 8;
  options_.ddr.outside_is_violation = false;  // a bad stream's access: BUS_ERROR, the device's answer
  sim_ = std::make_unique<Sim>(options_, memory);
  uint32_t config_id = 0, version = 0;
  status_ = sim_->regs.Read32(c::kRegConfigId, &config_id);
  if (status_.ok()) status_ = sim_->regs.Read32(c::kRegVersion, &version);
  if (status_.ok() && (config_id != config.config_id || version != c::kVersion)) {
    std::ostringstream m;
    m << std::hex << "RtlDevice: CONFIG_ID 0x" << config_id << " VERSION 0x" << version << ", expected 0x"
      << config.config_id << " and 0x" << c::kVersion;
    status_ = Status::DeviceError(m.str());
  }
}

RtlDevice::~RtlDevice() {
  if (sim_ == nullptr) return;
  const char* keep = std::getenv("LOOM_HW_TRACE_KEEP");
  const bool kept = keep_trace_ || (keep != nullptr && std::string(keep) == "1");
  if (sim_->sim.tracing()) {
    sim_->sim.CloseTrace(kept);
    if (kept) std::fprintf(stderr, "hw trace: %s\n", sim_->sim.trace_path().c_str());
  }
}

const AxiDdrStats& RtlDevice::ddr_stats() const {
  static const AxiDdrStats kNone;
  return sim_ == nullptr ? kNone : sim_->ddr.stats();
}

uint64_t RtlDevice::simulated_cycles() const { return sim_ == nullptr ? 0 : sim_->sim.cycle(); }

const char* RtlDevice::VerilatorFlags() { return LOOM_HW_RTL_VERILATOR_FLAGS; }

Status RtlDevice::Fail(const std::string& message) {
  keep_trace_ = true;
  std::ostringstream m;
  m << "RtlDevice: " << message << " (cycle " << sim_->sim.cycle() << ")";
  if (sim_->sim.tracing()) m << "; trace " << sim_->sim.trace_path();
  return Status::DeviceError(m.str());
}

Status RtlDevice::Run(const fpga::RunArgs& args, fpga::RunResult* result) {
  if (result == nullptr) return Status::InvalidArgument("RtlDevice::Run: result is null");
  if (!status_.ok()) return status_;
  *result = fpga::RunResult();
  counters_ = RtlCounters();
  AxiLiteDriver& regs = sim_->regs;
  sim_->ddr.Reseed(args.schedule_seed != 0 ? static_cast<uint32_t>(args.schedule_seed ^ (args.schedule_seed >> 32))
                                           : options_.ddr.seed);

  const uint32_t base_regs[c::kBaseSlots] = {c::kRegBase0, c::kRegBase1, c::kRegBase2, c::kRegBase3};
  Status status = regs.Write64(c::kRegCmdAddr, args.cmd_addr);
  for (uint32_t s = 0; s < c::kBaseSlots && status.ok(); ++s) status = regs.Write64(base_regs[s], args.base[s]);
  if (status.ok()) status = regs.Write64(c::kRegCmdCount, args.count);
  if (status.ok()) status = regs.Write32(c::kRegGie, 1);
  if (status.ok()) status = regs.Write32(c::kRegIer, kIsrDone);
  if (status.ok()) status = regs.Write32(c::kRegCtrl, kApStart);
  if (!status.ok()) return Fail(status.message());

  RETURN_IF_ERROR(WaitInterrupt(options_.max_cycles));

  // Acknowledge the interrupt (ISR bits toggle on write) and ap_done (clear on read).
  uint32_t ctrl = 0, error = 0, error_cmd = 0;
  status = regs.Write32(c::kRegIsr, kIsrDone);
  if (status.ok()) status = regs.Read32(c::kRegCtrl, &ctrl);
  if (status.ok()) status = regs.Read32(c::kRegError, &error);
  if (status.ok()) status = regs.Read32(c::kRegErrorCmd, &error_cmd);
  struct {
    uint32_t reg;
    uint64_t* value;
  } counters[] = {
      {c::kRegCycles, &counters_.cycles},
      {c::kRegLoadBusy, &counters_.load_busy},
      {c::kRegLoadStall, &counters_.load_stall},
      {c::kRegComputeBusy, &counters_.compute_busy},
      {c::kRegComputeStall, &counters_.compute_stall},
      {c::kRegStoreBusy, &counters_.store_busy},
      {c::kRegStoreStall, &counters_.store_stall},
      {c::kRegDmaReadBytes, &counters_.dma_read_bytes},
      {c::kRegDmaWriteBytes, &counters_.dma_write_bytes},
  };
  for (const auto& counter : counters) {
    if (status.ok()) status = regs.Read64(counter.reg, counter.value);
  }
  if (!status.ok()) return Fail(status.message());
  if ((ctrl & 2) == 0) return Fail("the interrupt rose without ap_done");
  result->error = static_cast<c::ErrorCode>(error);
  result->error_cmd = error_cmd;
  if (!result->ok()) {
    result->error_detail =
        "command " + std::to_string(error_cmd) + ": " + c::ErrorName(result->error) + " (reported by the RTL)";
  }
  result->bytes_read = counters_.dma_read_bytes;
  result->bytes_written = counters_.dma_write_bytes;
  return Status::Ok();
}

Status RtlDevice::WriteRegister(uint32_t offset, uint32_t value) {
  if (!status_.ok()) return status_;
  const Status status = sim_->regs.Write32(offset, value);
  return status.ok() ? status : Fail(status.message());
}

Status RtlDevice::ReadRegister(uint32_t offset, uint32_t* value) {
  if (!status_.ok()) return status_;
  const Status status = sim_->regs.Read32(offset, value);
  return status.ok() ? status : Fail(status.message());
}

Status RtlDevice::WaitInterrupt(uint64_t max_cycles) {
  if (!status_.ok()) return status_;
  // Progress is AXI traffic or, for a long CONV that moves no data, the
  // COMPUTE_BUSY counter advancing (read only when the bus has been quiet).
  const uint64_t start = sim_->sim.cycle();
  uint64_t traffic = sim_->Traffic(), last_progress = start, compute_busy = 0;
  while (!sim_->Interrupt()) {
    sim_->Tick();
    const uint64_t now = sim_->sim.cycle();
    if (sim_->Traffic() != traffic) {
      traffic = sim_->Traffic();
      last_progress = now;
    }
    if (now - start > max_cycles) return Fail("the run did not finish within " + std::to_string(max_cycles) + " cycles");
    if (now - last_progress > options_.quiet_cycles) {
      uint64_t busy = 0;
      const Status status = sim_->regs.Read64(c::kRegComputeBusy, &busy);
      if (!status.ok()) return Fail(status.message());
      if (busy == compute_busy) {
        return Fail("no AXI traffic and no compute for " + std::to_string(options_.quiet_cycles) +
                    " cycles, and no ap_done: a hang");
      }
      compute_busy = busy;
      last_progress = sim_->sim.cycle();
    }
  }
  if (!sim_->ddr.violations().empty()) return Fail("AXI violation: " + sim_->ddr.violations().front());
  return Status::Ok();
}

}  // namespace hw_sim
}  // namespace loom
