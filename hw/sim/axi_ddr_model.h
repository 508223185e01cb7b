// AxiDdrModel: an AXI4 slave memory for Verilator testbenches, serving the
// device view of a HostDeviceMemory through an AXI4 master's pins (one ID,
// full-width INCR bursts).
//
// Timing, per cycle (see ClockedComponent for the cycle's phases):
//   AR/AW  accepted while fewer than max_outstanding bursts of that direction
//          are unfinished (reads: until their last R beat; writes: until their
//          B); ARREADY/AWREADY also drop at random (ar/awready_stall).
//   R      the bursts in order, one beat per cycle at most; a burst's first
//          beat is offered read_latency cycles after its AR handshake;
//          random gaps (rvalid_gap) but once offered, a beat stays until
//          taken (RVALID is never withdrawn).
//   W      WREADY drops at random (wready_stall); beats are matched to the
//          accepted AWs in order (a W beat may even come before its AW).
//   B      write_latency cycles after a burst's last W beat, in order.
// Reads and writes proceed independently (a DDR controller would share one
// data bus; this model does not).
//
// Checks: every burst against the rules the accelerator's DMA promises
// (hw/README.md, DMA): ARLEN/AWLEN + 1 <= max_burst_beats, INCR, AxSIZE = the
// bus width, address aligned to the bus width, no crossing of a `boundary`
// (4 KB) page, inside the device memory (else DECERR), WLAST exactly on a
// burst's last beat, WSTRB all ones (require_full_strobes), and the AXI
// stability rule (a valid channel keeps valid and its payload until ready).
// Each violation is recorded as a message naming the cycle, channel and
// address; tests assert that violations() is empty. (Outside memory is
// also a DECERR; outside_is_violation = false leaves it at that.)
// Error injection: bursts touching [slverr_begin, slverr_end) answer SLVERR
// (writes to it are dropped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "hw/sim/axi_pins.h"
#include "hw/sim/clocked_component.h"
#include "hw/sim/host_device_memory.h"

namespace loom {
namespace hw_sim {

struct AxiDdrConfig {
  unsigned data_bytes = 8;        // bus width: 8 (pynq_z2) or 16 (kv260)
  unsigned read_latency = 40;     // cycles from an AR handshake to its first R beat, >= 1
  unsigned write_latency = 10;    // cycles from a burst's last W beat to its B, >= 1
  unsigned max_outstanding = 4;   // unfinished bursts per direction, >= 1
  double arready_stall = 0.0;     // probability ARREADY is low in a cycle
  double awready_stall = 0.0;
  double wready_stall = 0.0;
  double rvalid_gap = 0.0;        // probability no new R beat is offered in a cycle
  uint32_t seed = 1;
  unsigned max_burst_beats = 16;  // the checks: AXI3-compatible bursts
  unsigned boundary = 4096;       // no burst crosses a multiple of this
  bool require_full_strobes = true;
  bool outside_is_violation = true;  // false: a burst outside memory only gets DECERR (a device
                                     // test's bad stream), not a recorded violation
  uint64_t slverr_begin = 0;      // bursts touching [slverr_begin, slverr_end) get SLVERR
  uint64_t slverr_end = 0;
  bool record_bursts = false;     // keep every accepted burst in bursts()
};

// Random timing for stress tests: read and write latency 1-60 cycles, 1-4
// outstanding bursts, ARREADY, AWREADY and WREADY low 0-45 % and R gaps 0-30 %
// of the cycles (in steps), and a seed for the model's own draws.
AxiDdrConfig RandomAxiDdrTiming(std::mt19937& rng);

struct AxiDdrStats {
  uint64_t cycles = 0;
  uint64_t read_bursts = 0, write_bursts = 0;    // AR, AW handshakes
  uint64_t read_beats = 0, write_beats = 0;      // R, W handshakes
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t write_responses = 0;                  // B handshakes
  uint64_t read_busy_cycles = 0;                 // cycles with a read burst unfinished
  uint64_t write_busy_cycles = 0;
};

// One accepted burst, when AxiDdrConfig::record_bursts is set.
struct AxiBurstRecord {
  bool write;
  uint64_t addr;
  unsigned beats;
  uint64_t cycle;  // of its AR/AW handshake
};

class AxiDdrModel : public ClockedComponent {
 public:
  AxiDdrModel(const AxiDdrConfig& config, const AxiMasterPins& pins, HostDeviceMemory& memory);

  // Drives the slave's outputs low (their state at reset); call once before
  // the first cycle.
  void Reset();
  void Sample() override;
  void Drive() override;

  // Restarts the random back-pressure (the ready stalls and R gaps) from seed.
  void Reseed(uint32_t seed) { rng_.seed(seed); }

  void SetSlverrRange(uint64_t begin, uint64_t end) {
    config_.slverr_begin = begin;
    config_.slverr_end = end;
  }

  const std::vector<std::string>& violations() const { return violations_; }
  const AxiDdrStats& stats() const { return stats_; }
  const std::vector<AxiBurstRecord>& bursts() const { return bursts_; }
  // No burst accepted and unfinished, no W beat waiting for its AW.
  bool Idle() const { return reads_.empty() && writes_.empty() && responses_.empty() && w_beats_.empty(); }

 private:
  struct Burst {
    uint64_t addr = 0;
    unsigned beats = 0;
    unsigned done = 0;        // beats transferred
    uint64_t ready_cycle = 0; // first R beat, or the B, not before this cycle
    uint8_t resp = 0;         // 0 OKAY, 2 SLVERR, 3 DECERR
  };
  struct WBeat {
    std::vector<uint8_t> data;
    uint64_t strobes;
    bool last;
  };
  // A channel's payload while valid waits for ready (the stability check).
  struct Pending {
    bool waiting = false;
    uint64_t addr = 0, len = 0;
  };

  Burst Accept(bool write, uint64_t addr, unsigned len, unsigned size, unsigned burst);
  void CheckStable(const char* channel, Pending& pending, bool valid, bool fire, uint64_t addr, uint64_t len);
  void MatchWrites();
  void Violation(const std::string& message);
  bool Chance(double probability);

  AxiDdrConfig config_;
  AxiMasterPins pins_;
  HostDeviceMemory& memory_;
  std::mt19937 rng_;
  uint64_t cycle_ = 0;
  std::deque<Burst> reads_;      // accepted, in order; head is on R
  std::deque<Burst> writes_;     // accepted, waiting for W beats
  std::deque<Burst> responses_;  // all beats in, waiting for B
  std::deque<WBeat> w_beats_;    // taken, not yet matched to an AW
  Pending ar_, aw_, w_;
  bool rvalid_ = false, bvalid_ = false;
  std::vector<std::string> violations_;
  std::vector<AxiBurstRecord> bursts_;
  AxiDdrStats stats_;
};

}  // namespace hw_sim
}  // namespace loom
