// Small helpers shared by the Verilator module testbenches: bit fields of
// packed ports (plain integers up to 64 bits, VlWide above), one clock cycle,
// failure counting and timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "verilated.h"

namespace loom {
namespace hw_tb {

// Bits [lsb, lsb + width) of a packed port, width <= 32.
template <typename Port>
void SetField(Port& port, int lsb, int width, uint32_t value) {
  const uint64_t mask = ((uint64_t{1} << width) - 1) << lsb;
  port = static_cast<Port>((static_cast<uint64_t>(port) & ~mask) | ((static_cast<uint64_t>(value) << lsb) & mask));
}
template <std::size_t kWords>
void SetField(VlWide<kWords>& port, int lsb, int width, uint32_t value) {
  for (int b = 0; b < width; ++b) {
    const int bit = lsb + b;
    EData& word = port.at(bit / 32);
    const EData m = EData{1} << (bit % 32);
    word = ((value >> b) & 1) ? (word | m) : (word & ~m);
  }
}

template <typename Port>
uint32_t GetField(const Port& port, int lsb, int width) {
  return static_cast<uint32_t>((static_cast<uint64_t>(port) >> lsb) & ((uint64_t{1} << width) - 1));
}
template <std::size_t kWords>
uint32_t GetField(const VlWide<kWords>& port, int lsb, int width) {
  uint32_t value = 0;
  for (int b = 0; b < width; ++b) {
    const int bit = lsb + b;
    value |= static_cast<uint32_t>((port.at(bit / 32) >> (bit % 32)) & 1) << b;
  }
  return value;
}

// The low `width` bits of `bits` as a signed number.
inline int32_t SignExtend(uint32_t bits, int width) {
  const uint32_t sign = uint32_t{1} << (width - 1);
  return static_cast<int32_t>((bits ^ sign) - sign);
}

// One rising clock edge: inputs set while clk is low are sampled, outputs
// then show the new state (eval() again after changing inputs to see
// combinational outputs).
template <typename Model>
void Tick(Model& m) {
  m.clk = 1;
  m.eval();
  m.clk = 0;
  m.eval();
}

// Counts mismatches and prints the first few.
class Failures {
 public:
  explicit Failures(int max_printed = 10) : max_printed_(max_printed) {}
  template <typename... Args>
  void Add(const char* format, Args... args) {
    if (count_++ < max_printed_) {
      std::printf("FAIL: ");
      std::printf(format, args...);
      std::printf("\n");
    }
  }
  long count() const { return count_; }

 private:
  int max_printed_;
  long count_ = 0;
};

// The testbench: defined once per test executable, called by tb_main.cc;
// returns the process exit code.
int Run();

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hw_tb
}  // namespace loom
