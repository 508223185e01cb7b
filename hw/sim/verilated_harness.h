// VerilatedHarness: runs a Verilated top (ports clk and rst_n) cycle by cycle
// with the simulation models attached to it (ClockedComponent), for gtest
// testbenches.
//
// Waveforms: with LOOM_HW_TRACE=/path/run.fst in the environment, every
// harness records an FST trace to /path/run.<Suite>.<Test>.<n>.fst and keeps
// it only if the test has failed by the time the harness is destroyed
// (LOOM_HW_TRACE_KEEP=1 keeps every trace); the kept path is printed. So to
// debug a failing test, run it again with LOOM_HW_TRACE set and open the trace
// in gtkwave. The top must be Verilated with --trace-fst (hw/sim's models
// are); without LOOM_HW_TRACE tracing costs nothing.
//   ctest -R hw.axi_dma --output-on-failure        # fails
//   LOOM_HW_TRACE=/tmp/dma.fst ctest -R hw.axi_dma # keeps /tmp/dma.<test>.<n>.fst
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "hw/sim/clocked_component.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace loom {
namespace hw_sim {

template <typename Top>
class VerilatedHarness {
 public:
  VerilatedHarness() : context_(std::make_unique<VerilatedContext>()) {
    const char* trace = std::getenv("LOOM_HW_TRACE");
    if (trace != nullptr && *trace != '\0') {
      trace_path_ = TracePath(trace);
      context_->traceEverOn(true);
    }
    top_ = std::make_unique<Top>(context_.get(), "top");
    if (!trace_path_.empty()) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(trace_path_.c_str());
    }
  }

  ~VerilatedHarness() {
    top_->final();
    if (trace_ == nullptr) return;
    trace_->close();
    const char* keep = std::getenv("LOOM_HW_TRACE_KEEP");
    if (::testing::Test::HasFailure() || (keep != nullptr && std::string(keep) == "1")) {
      std::fprintf(stderr, "hw trace: %s\n", trace_path_.c_str());
    } else {
      std::remove(trace_path_.c_str());
    }
  }

  VerilatedHarness(const VerilatedHarness&) = delete;
  VerilatedHarness& operator=(const VerilatedHarness&) = delete;

  Top& top() { return *top_; }
  uint64_t cycle() const { return cycle_; }

  // Components are sampled and driven in the order added; they must outlive
  // the harness's last Tick.
  void Add(ClockedComponent* component) { components_.push_back(component); }

  // One clock cycle (ClockedComponent describes the phases). Inputs change
  // at the falling edge in the trace.
  void Tick() {
    top_->clk = 0;
    top_->eval();
    Dump(0);
    for (ClockedComponent* c : components_) c->Sample();
    top_->clk = 1;
    top_->eval();
    Dump(5);
    for (ClockedComponent* c : components_) c->Drive();
    ++cycle_;
  }

  // rst_n low for `cycles` cycles, then high.
  void Reset(unsigned cycles = 4) {
    top_->rst_n = 0;
    for (unsigned i = 0; i < cycles; ++i) Tick();
    top_->rst_n = 1;
  }

 private:
  static std::string TracePath(const std::string& base) {
    static int serial = 0;
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = test != nullptr ? std::string(test->test_suite_name()) + "." + test->name() : "run";
    for (char& ch : name) {
      if (ch == '/') ch = '_';
    }
    const size_t dot = base.rfind('.');
    const size_t slash = base.rfind('/');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    const std::string stem = has_ext ? base.substr(0, dot) : base;
    return stem + "." + name + "." + std::to_string(serial++) + ".fst";
  }

  void Dump(uint64_t offset) {
    if (trace_ != nullptr) trace_->dump(cycle_ * 10 + offset);
  }

  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::string trace_path_;
  std::vector<ClockedComponent*> components_;
  uint64_t cycle_ = 0;
};

}  // namespace hw_sim
}  // namespace loom
