// One clock cycle of a simulation model attached to a Verilated top.
//
// A cycle, as VerilatedHarness::Tick runs it:
//   1. the top is evaluated with this cycle's inputs;
//   2. Sample() on every component: it reads the top's outputs and its own
//      driven inputs and notes the handshakes (valid && ready) that the
//      coming rising edge completes;
//   3. the rising edge;
//   4. Drive() on every component: it advances its state and writes the
//      inputs for the next cycle.
// So a model's outputs never depend combinationally on the top's outputs in
// the same cycle: it behaves like a slave (or master) with registered outputs.
#pragma once

namespace loom {
namespace hw_sim {

class ClockedComponent {
 public:
  virtual ~ClockedComponent() = default;
  virtual void Sample() = 0;
  virtual void Drive() = 0;
};

}  // namespace hw_sim
}  // namespace loom
