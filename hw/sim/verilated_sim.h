// VerilatedSim: runs a Verilated top cycle by cycle with the simulation
// models attached to it (ClockedComponent), optionally recording an FST
// trace (when the build compiles tracing in: CMake option LOOM_HW_TRACE,
// which defines LOOM_HW_TRACE_FST=1 for the users of the traced models;
// otherwise a requested trace is skipped with a note on stderr). Plain C++
// (no gtest), so libraries such as RtlDevice use it; the gtest testbenches
// use VerilatedHarness, which adds the trace policy of a test. The top's
// clock and active-low synchronous reset are its ports clk and rst_n, or
// whatever ClockPins names (ApClockPins: ap_clk, ap_rst_n).
//
// A cycle (ClockedComponent describes the phases): clock low, eval, every
// component's Sample(), clock high, eval, every component's Drive(). Inputs
// change at the falling edge in the trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "hw/sim/clocked_component.h"
#include "verilated.h"
#if LOOM_HW_TRACE_FST
#include "verilated_fst_c.h"
#endif

namespace loom {
namespace hw_sim {

struct ClkRstPins {
  template <typename Top>
  static CData& Clock(Top& top) { return top.clk; }
  template <typename Top>
  static CData& ResetN(Top& top) { return top.rst_n; }
};

// XRT kernel naming (loom_accel_top).
struct ApClockPins {
  template <typename Top>
  static CData& Clock(Top& top) { return top.ap_clk; }
  template <typename Top>
  static CData& ResetN(Top& top) { return top.ap_rst_n; }
};

// $LOOM_HW_TRACE, or "" when unset: where traces go (see VerilatedHarness).
inline std::string TraceBaseFromEnv() {
  const char* trace = std::getenv("LOOM_HW_TRACE");
  return trace != nullptr ? trace : "";
}

// base "/tmp/run.fst" and name "Suite.Test" -> "/tmp/run.Suite.Test.<n>.fst",
// n counting up per process so that every trace gets its own file.
inline std::string NumberedTracePath(const std::string& base, std::string name) {
  static int serial = 0;
  for (char& ch : name) {
    if (ch == '/') ch = '_';
  }
  const size_t dot = base.rfind('.');
  const size_t slash = base.rfind('/');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  const std::string stem = has_ext ? base.substr(0, dot) : base;
  return stem + "." + name + "." + std::to_string(serial++) + ".fst";
}

template <typename Top, typename ClockPins = ClkRstPins>
class VerilatedSim {
 public:
  // trace_path: record an FST trace to this file ("" records none; the top
  // must be Verilated with --trace-fst otherwise).
  explicit VerilatedSim(const std::string& trace_path = "")
      : context_(std::make_unique<VerilatedContext>()), trace_path_(trace_path) {
#if LOOM_HW_TRACE_FST
    if (!trace_path_.empty()) context_->traceEverOn(true);
    top_ = std::make_unique<Top>(context_.get(), "top");
    if (!trace_path_.empty()) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(trace_path_.c_str());
    }
#else
    top_ = std::make_unique<Top>(context_.get(), "top");
    if (!trace_path_.empty()) {
      static bool noted = false;
      if (!noted) std::fprintf(stderr, "hw trace: not recorded, configure with -DLOOM_HW_TRACE=ON to trace\n");
      noted = true;
      trace_path_.clear();
    }
#endif
  }

  ~VerilatedSim() {
    top_->final();
    CloseTrace(true);
  }

  VerilatedSim(const VerilatedSim&) = delete;
  VerilatedSim& operator=(const VerilatedSim&) = delete;

  Top& top() { return *top_; }
  uint64_t cycle() const { return cycle_; }
  bool tracing() const {
#if LOOM_HW_TRACE_FST
    return trace_ != nullptr;
#else
    return false;
#endif
  }
  const std::string& trace_path() const { return trace_path_; }

  // Components are sampled and driven in the order added; they must outlive
  // the last Tick.
  void Add(ClockedComponent* component) { components_.push_back(component); }

  void Tick() {
    ClockPins::Clock(*top_) = 0;
    top_->eval();
    Dump(0);
    for (ClockedComponent* c : components_) c->Sample();
    ClockPins::Clock(*top_) = 1;
    top_->eval();
    Dump(5);
    for (ClockedComponent* c : components_) c->Drive();
    ++cycle_;
  }

  // Reset low for `cycles` cycles, then high.
  void Reset(unsigned cycles = 4) {
    ClockPins::ResetN(*top_) = 0;
    for (unsigned i = 0; i < cycles; ++i) Tick();
    ClockPins::ResetN(*top_) = 1;
  }

  // Ends the trace: the file stays if `keep`, else it is deleted.
  void CloseTrace(bool keep) {
#if LOOM_HW_TRACE_FST
    if (trace_ == nullptr) return;
    trace_->close();
    trace_.reset();
    if (!keep) std::remove(trace_path_.c_str());
#else
    (void)keep;
#endif
  }

 private:
  void Dump(uint64_t offset) {
#if LOOM_HW_TRACE_FST
    if (trace_ != nullptr) trace_->dump(cycle_ * 10 + offset);
#else
    (void)offset;
#endif
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Top> top_;
#if LOOM_HW_TRACE_FST
  std::unique_ptr<VerilatedFstC> trace_;
#endif
  std::string trace_path_;
  std::vector<ClockedComponent*> components_;
  uint64_t cycle_ = 0;
};

}  // namespace hw_sim
}  // namespace loom
