// mul_quantized (hw/rtl/mul_quantized.sv) in the compute unit's ADD form,
// acc · 2^20 for a 10-bit acc, against requant::MultiplyByQuantizedMultiplier
// of kernels/common/requantize.h (ScaleAddInput's arithmetic): both the LUT
// Booth and the DSP multiplier, every acc in [-512, 511] x every shift in
// [-31, 31] x corner multipliers, then random multipliers; one input per
// cycle, each result exactly 5 cycles later.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "Vtb_mul_quantized_top.h"
#include "hw/tests/tb_util.h"
#include "kernels/common/requantize.h"

namespace loom {
namespace hw_tb {
namespace {

constexpr int kLatency = 5;

struct Input {
  int32_t acc, multiplier, shift;
};

class Bench {
 public:
  Bench() : model_(std::make_unique<Vtb_mul_quantized_top>()) {}
  ~Bench() { model_->final(); }

  void Run(const std::vector<Input>& inputs) {
    Vtb_mul_quantized_top& m = *model_;
    std::deque<std::pair<Input, int32_t>> pending;
    for (size_t k = 0; k < inputs.size() + kLatency; ++k) {
      if (k < inputs.size()) {
        const Input& in = inputs[k];
        m.acc = static_cast<uint32_t>(in.acc) & 0x3ff;
        m.multiplier = static_cast<uint32_t>(in.multiplier);
        m.shift = static_cast<uint32_t>(in.shift) & 0x3f;
        pending.push_back({in, requant::MultiplyByQuantizedMultiplier(in.acc * (1 << requant::kAddLeftShift),
                                                                      {in.multiplier, in.shift})});
      }
      Tick(m);
      if (k + 1 >= kLatency && !pending.empty()) {
        const auto& [in, want] = pending.front();
        const int32_t lut = static_cast<int32_t>(m.result_lut), dsp = static_cast<int32_t>(m.result_dsp);
        if (lut != want || dsp != want)
          failures.Add("acc %d multiplier %d shift %d: LUT %d, DSP %d, expected %d", in.acc, in.multiplier, in.shift,
                       lut, dsp, want);
        pending.pop_front();
        ++checked;
      }
    }
  }

  Failures failures;
  long checked = 0;

 private:
  std::unique_ptr<Vtb_mul_quantized_top> model_;
};

}  // namespace

int Run() {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  std::mt19937 rng(11);
  Bench bench;
  const auto start = std::chrono::steady_clock::now();
  std::vector<Input> sweep;
  const int32_t multipliers[] = {0,          1,           -1,
                                 2,          kMin,        kMax,
                                 kMin + 1,   1 << 30,     (1 << 30) + 1,
                                 -(1 << 30), 3 << 29,     (1 << 30) - 1,
                                 1 << 15,    0x5555'5555, -0x2aaa'aaab};
  for (int32_t shift = -31; shift <= 31; ++shift)
    for (int32_t multiplier : multipliers)
      for (int32_t acc = -512; acc < 512; ++acc) sweep.push_back({acc, multiplier, shift});
  bench.Run(sweep);
  std::printf("sweep: %zu inputs, %s\n", sweep.size(), bench.failures.count() == 0 ? "ok" : "FAILED");
  const long before = bench.failures.count();
  std::vector<Input> random(1000000);
  for (Input& in : random) {
    in.acc = static_cast<int32_t>(rng() % 1024) - 512;
    in.multiplier = static_cast<int32_t>(rng());
    in.shift = static_cast<int32_t>(rng() % 63) - 31;
  }
  bench.Run(random);
  std::printf("random: %zu inputs, %s (%.2f s in all)\n", random.size(),
              bench.failures.count() == before ? "ok" : "FAILED", SecondsSince(start));
  if (bench.failures.count() != 0) {
    std::printf("mul_quantized: %ld of %ld results differ\n", bench.failures.count(), bench.checked);
    return 1;
  }
  std::printf("mul_quantized: all %ld results match MultiplyByQuantizedMultiplier\n", bench.checked);
  return 0;
}

}  // namespace hw_tb
}  // namespace loom
