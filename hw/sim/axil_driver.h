// AxiLiteDriver: an AXI4-Lite master for Verilator testbenches, driving a
// slave's pins (e.g. axil_regs') one transaction at a time.
//
// Each call sets the request pins and steps the clock with the testbench's
// tick() until the response arrives; tick() must run a whole cycle of every
// ClockedComponent, this driver included (VerilatedHarness::Tick does, once
// the driver is Add()ed). A call that gets no response within timeout_cycles
// returns a DeviceError naming the register and the channel that stalled, so
// a broken slave fails the test instead of hanging it. AW and W are offered
// together; RREADY and BREADY stay high while waiting.
#pragma once

#include <cstdint>
#include <functional>

#include "common/status.h"
#include "hw/sim/axi_pins.h"
#include "hw/sim/clocked_component.h"

namespace loom {
namespace hw_sim {

class AxiLiteDriver : public ClockedComponent {
 public:
  AxiLiteDriver(const AxiLitePins& pins, std::function<void()> tick, unsigned timeout_cycles = 1000);

  // Drives every request pin low; call once before the first cycle.
  void Reset();

  Status Write32(uint32_t addr, uint32_t value, uint8_t strobes = 0xF);
  Status Read32(uint32_t addr, uint32_t* value);
  // A 64-bit register: low word at addr, high word at addr + 4, low first.
  Status Write64(uint32_t addr, uint64_t value);
  Status Read64(uint32_t addr, uint64_t* value);

  // The last response's BRESP or RRESP.
  uint32_t last_resp() const { return last_resp_; }

  void Sample() override;
  void Drive() override;

 private:
  Status Wait(const char* what, uint32_t addr, const bool& done);

  AxiLitePins pins_;
  std::function<void()> tick_;
  unsigned timeout_cycles_;
  // The transaction in progress: which handshakes are still due.
  bool aw_due_ = false, w_due_ = false, b_due_ = false, ar_due_ = false, r_due_ = false;
  bool write_done_ = false, read_done_ = false;
  uint32_t read_value_ = 0;
  uint32_t last_resp_ = 0;
};

}  // namespace hw_sim
}  // namespace loom
