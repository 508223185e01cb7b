// fifo (hw/rtl/fifo.sv, built with WIDTH = 16 and DEPTH = 6 so the pointers
// wrap at a depth that is not a power of two) against a std::deque: random
// pushes and pops with random valid and ready, every cycle's in_ready,
// out_valid, out_data and count checked, and a reset in the middle.
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>

#include "Vfifo.h"
#include "hw/tests/tb_util.h"

namespace loom {
namespace hw_tb {
namespace {

constexpr unsigned kDepth = 6;

}  // namespace

int Run() {
  auto model = std::make_unique<Vfifo>();
  Vfifo& m = *model;
  Failures failures;
  std::deque<uint16_t> queue;
  std::mt19937 rng(3);
  auto reset = [&] {
    m.rst_n = 0;
    m.in_valid = 0;
    m.out_ready = 0;
    Tick(m);
    m.rst_n = 1;
    queue.clear();
  };
  reset();
  long pushes = 0, pops = 0, full_cycles = 0;
  for (int cycle = 0; cycle < 200000; ++cycle) {
    if (cycle == 100000) reset();
    // Phases that favour filling, draining, or neither.
    const unsigned phase = (cycle / 997) % 3;
    m.in_valid = rng() % 4 < (phase == 0 ? 3u : phase == 1 ? 1u : 2u);
    m.in_data = static_cast<uint16_t>(rng());
    m.out_ready = rng() % 4 < (phase == 1 ? 3u : phase == 0 ? 1u : 2u);
    m.eval();
    const bool ready = queue.size() < kDepth, valid = !queue.empty();
    if (m.in_ready != ready || m.out_valid != valid || m.count != queue.size())
      failures.Add("cycle %d: in_ready %d out_valid %d count %d, expected %d %d %zu", cycle, m.in_ready, m.out_valid,
                   m.count, ready, valid, queue.size());
    if (valid && m.out_data != queue.front())
      failures.Add("cycle %d: out_data 0x%04x, expected 0x%04x", cycle, m.out_data, queue.front());
    full_cycles += !ready;
    if (valid && m.out_ready) {
      queue.pop_front();
      ++pops;
    }
    if (ready && m.in_valid) {
      queue.push_back(m.in_data);
      ++pushes;
    }
    Tick(m);
  }
  model->final();
  std::printf("fifo: %ld pushes, %ld pops, %ld full cycles, %s\n", pushes, pops, full_cycles,
              failures.count() == 0 ? "all match" : "FAILED");
  return failures.count() == 0 ? 0 : 1;
}

}  // namespace hw_tb
}  // namespace loom
