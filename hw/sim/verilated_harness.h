// VerilatedHarness: runs a Verilated top (ports clk and rst_n, or what
// ClockPins names) cycle by cycle with the simulation models attached to it
// (ClockedComponent), for gtest testbenches: a VerilatedSim with a test's
// trace policy.
//
// Waveforms: with LOOM_HW_TRACE=/path/run.fst in the environment, every
// harness records an FST trace to /path/run.<Suite>.<Test>.<n>.fst and keeps
// it only if the test has failed by the time the harness is destroyed
// (LOOM_HW_TRACE_KEEP=1 keeps every trace); the kept path is printed. So to
// debug a failing test, run it again with LOOM_HW_TRACE set and open the trace
// in gtkwave. The top must be Verilated with --trace-fst (hw/sim's models
// are in a build configured with -DLOOM_HW_TRACE=ON; otherwise no trace is
// recorded and a note says so); without LOOM_HW_TRACE tracing costs nothing.
//   ctest -R hw.axi_dma --output-on-failure        # fails
//   LOOM_HW_TRACE=/tmp/dma.fst ctest -R hw.axi_dma # keeps /tmp/dma.<test>.<n>.fst
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hw/sim/verilated_sim.h"

namespace loom {
namespace hw_sim {

template <typename Top, typename ClockPins = ClkRstPins>
class VerilatedHarness {
 public:
  VerilatedHarness() : sim_(TracePath()) {}

  ~VerilatedHarness() {
    if (!sim_.tracing()) return;
    const char* keep = std::getenv("LOOM_HW_TRACE_KEEP");
    const bool kept = ::testing::Test::HasFailure() || (keep != nullptr && std::string(keep) == "1");
    sim_.CloseTrace(kept);
    if (kept) std::fprintf(stderr, "hw trace: %s\n", sim_.trace_path().c_str());
  }

  VerilatedHarness(const VerilatedHarness&) = delete;
  VerilatedHarness& operator=(const VerilatedHarness&) = delete;

  Top& top() { return sim_.top(); }
  uint64_t cycle() const { return sim_.cycle(); }

  // Components are sampled and driven in the order added; they must outlive
  // the harness's last Tick.
  void Add(ClockedComponent* component) { sim_.Add(component); }

  // One clock cycle (ClockedComponent describes the phases).
  void Tick() { sim_.Tick(); }

  // Reset low for `cycles` cycles, then high.
  void Reset(unsigned cycles = 4) { sim_.Reset(cycles); }

 private:
  static std::string TracePath() {
    const std::string base = TraceBaseFromEnv();
    if (base.empty()) return "";
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    return NumberedTracePath(base, test != nullptr ? std::string(test->test_suite_name()) + "." + test->name() : "run");
  }

  VerilatedSim<Top, ClockPins> sim_;
};

}  // namespace hw_sim
}  // namespace loom
