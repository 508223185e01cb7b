// requant (hw/rtl/requant.sv) against requant::Requantize of
// kernels/common/requantize.h, the one definition of the arithmetic:
//   v = acc + bias (int32, wrapping), q = low byte of Requantize(v, stage)
// for the edge cases of kernels/common/requantize_test.cc, a sweep of every
// shift over special accumulators and multipliers, and 1e6 random vectors,
// streamed back to back with random idle cycles; each result must come out
// exactly kLatency cycles after its input.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "Vrequant.h"
#include "hw/tests/tb_util.h"
#include "kernels/common/requantize.h"

namespace loom {
namespace hw_tb {
namespace {

constexpr int kLatency = 7;
constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

struct Case {
  int32_t acc = 0, bias = 0;
  requant::OutputStage stage;
};

Case Make(int32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point = 0, int32_t qmin = -128,
          int32_t qmax = 127, int32_t bias = 0) {
  Case c;
  c.acc = acc;
  c.bias = bias;
  c.stage.m = {multiplier, shift};
  c.stage.zero_point = zero_point;
  c.stage.range = {qmin, qmax};
  return c;
}

// The cases requantize_test.cc pins down, as full lane inputs. Multiplier
// INT32_MIN makes the high multiply an exact negation (-acc, and INT32_MAX for
// acc = INT32_MIN), which feeds chosen values to RoundingDivideByPOT.
std::vector<Case> EdgeCases() {
  std::vector<Case> cases;
  const int32_t wide_min = -256, wide_max = 255;  // the widest 9-bit clamp
  // High multiply ties and near-ties: 2ab / 2^32 = ±0.5, ±1.5, ...
  for (int32_t a : {1 << 15, -(1 << 15), 3 << 15, -(3 << 15), -(3 << 15) - 1, (1 << 15) - 1, -((1 << 15) - 1)})
    cases.push_back(Make(a, 1 << 15, 0, 0, wide_min, wide_max));
  // Its one overflow, INT32_MIN * INT32_MIN -> INT32_MAX, made visible by the
  // right shift (INT32_MAX / 2^31 -> 1; a wrap to INT32_MIN would give -1).
  for (int32_t shift : {0, -1, -30, -31}) {
    cases.push_back(Make(kMin, kMin, shift, 0, wide_min, wide_max));
    cases.push_back(Make(kMin, kMax, shift, 0, wide_min, wide_max));
    cases.push_back(Make(kMax, kMax, shift, 0, wide_min, wide_max));
    cases.push_back(Make(kMin, 1 << 30, shift, 0, wide_min, wide_max));
  }
  // RoundingDivideByPOT ties, half away from zero: x = -acc.
  const struct {
    int32_t x;
    int e;
  } divides[] = {{5, 1}, {-5, 1}, {3, 1}, {-3, 1}, {6, 2}, {5, 2}, {-5, 2}, {7, 0}, {kMax, 31}, {1 << 30, 31},
                 {-(1 << 30), 31}, {-kMax, 31}, {(1 << 30) + 1, 31}, {-(1 << 30) - 1, 31}};
  for (const auto& d : divides) cases.push_back(Make(-d.x, kMin, -d.e, 0, wide_min, wide_max));
  cases.push_back(Make(kMin, kMin, -31, 0, wide_min, wide_max));  // x = INT32_MAX by saturation
  // Large shifts saturate before the multiply (scale 2^20: multiplier 2^30, shift 21).
  for (int32_t a : {1 << 12, -(1 << 12), 1, -1, 0, kMax, kMin}) {
    cases.push_back(Make(a, 1 << 30, 21));
    cases.push_back(Make(a, 1 << 30, 31, 0, wide_min, wide_max));
    cases.push_back(Make(a, 1 << 30, 30, 0, wide_min, wide_max));
  }
  // Multiplier 0 maps everything to the zero point.
  for (int32_t a : {kMax, kMin, 0, 12345}) cases.push_back(Make(a, 0, 0, -3));
  // Scale 0.25 (multiplier 2^30, shift -1), zero point 10: ties and clamps.
  for (int32_t a : {4, 6, -6, 1000, -1000}) {
    cases.push_back(Make(a, 1 << 30, -1, 10));
    cases.push_back(Make(a, 1 << 30, -1, 10, 0, 255));
  }
  // ReLU-style bounds, an empty range (qmin > qmax: Requantize tests qmin first), bias wrap-around.
  for (int32_t a : {-1000, -5, 0, 5, 1000}) {
    cases.push_back(Make(a, 1 << 30, 1, 5, 5, 127));
    cases.push_back(Make(a, 1 << 30, 1, -20, -20, 100));
    cases.push_back(Make(a, 1 << 30, 1, 0, 10, -10));
  }
  cases.push_back(Make(kMax, 1 << 30, 1, 0, wide_min, wide_max, 1));
  cases.push_back(Make(kMin, 1 << 30, 1, 0, wide_min, wide_max, -1));
  cases.push_back(Make(kMax, 1 << 30, -31, 0, wide_min, wide_max, kMax));
  return cases;
}

// Every shift in [-31, 31] over accumulators and multipliers at the corners.
std::vector<Case> Sweep() {
  const int32_t accs[] = {kMin, kMin + 1, -(1 << 30) - 1, -(1 << 30), -65536, -32769, -32768, -3, -2, -1, 0, 1,
                          2,    3,        32767,          32768,       1 << 30, kMax - 1, kMax};
  const int32_t multipliers[] = {0, 1, 1 << 30, (1 << 30) + 1, 3 << 29, kMax, kMin, -1, -(1 << 30), 1 << 15};
  std::vector<Case> cases;
  for (int32_t shift = -31; shift <= 31; ++shift)
    for (int32_t m : multipliers)
      for (int32_t a : accs) {
        cases.push_back(Make(a, m, shift, 0, -256, 255));
        cases.push_back(Make(a, m, shift, 3, -128, 127));
      }
  return cases;
}

int32_t RandomAcc(std::mt19937& rng) {
  switch (rng() % 4) {
    case 0: return static_cast<int32_t>(rng());  // any int32
    case 1: return static_cast<int32_t>(rng() % (1 << 21)) - (1 << 20);
    case 2: return static_cast<int32_t>(rng() % 2001) - 1000;
    default: {  // near a power of two
      const int32_t p = static_cast<int32_t>(uint32_t{1} << (rng() % 31));
      return (rng() % 2 ? p : -p) + static_cast<int32_t>(rng() % 3) - 1;
    }
  }
}

Case RandomCase(std::mt19937& rng) {
  Case c;
  c.acc = RandomAcc(rng);
  c.bias = rng() % 2 ? static_cast<int32_t>(rng() % (1 << 17)) - (1 << 16) : RandomAcc(rng);
  switch (rng() % 8) {
    case 0: c.stage.m.multiplier = static_cast<int32_t>(rng()); break;  // any int32
    case 1: c.stage.m.multiplier = rng() % 2 ? 0 : kMin; break;
    default: c.stage.m.multiplier = static_cast<int32_t>((uint32_t{1} << 30) | (rng() & ((1u << 30) - 1)));
  }
  c.stage.m.shift = rng() % 2 ? static_cast<int32_t>(rng() % 63) - 31 : -static_cast<int32_t>(rng() % 24);
  c.stage.zero_point = static_cast<int32_t>(rng() % 512) - 256;
  switch (rng() % 4) {
    case 0: c.stage.range = {-128, 127}; break;
    case 1: c.stage.range = {0, 255}; break;
    default: {
      int32_t lo = static_cast<int32_t>(rng() % 512) - 256, hi = static_cast<int32_t>(rng() % 512) - 256;
      if (rng() % 8 != 0 && lo > hi) std::swap(lo, hi);  // mostly ordered, sometimes empty
      c.stage.range = {lo, hi};
    }
  }
  return c;
}

class RequantBench {
 public:
  RequantBench() : model_(std::make_unique<Vrequant>()) {
    model_->rst_n = 0;
    model_->in_valid = 0;
    Tick(*model_);
    Tick(*model_);
    model_->rst_n = 1;
  }
  ~RequantBench() { model_->final(); }

  // Presents c (or an idle cycle) and checks what comes out this cycle.
  void Step(const Case* c) {
    Vrequant& m = *model_;
    m.in_valid = c != nullptr;
    if (c) {
      m.acc = static_cast<uint32_t>(c->acc);
      m.bias = static_cast<uint32_t>(c->bias);
      m.multiplier = static_cast<uint32_t>(c->stage.m.multiplier);
      m.shift = static_cast<uint32_t>(c->stage.m.shift) & 0x3f;
      m.zero_point = static_cast<uint32_t>(c->stage.zero_point) & 0x1ff;
      m.qmin = static_cast<uint32_t>(c->stage.range.min) & 0x1ff;
      m.qmax = static_cast<uint32_t>(c->stage.range.max) & 0x1ff;
      const int32_t v = static_cast<int32_t>(static_cast<uint32_t>(c->acc) + static_cast<uint32_t>(c->bias));
      pending_.push_back({cycle_ + kLatency, *c, v, requant::Requantize(v, c->stage)});
      ++checked_;
    }
    m.eval();
    const bool due = !pending_.empty() && pending_.front().cycle == cycle_;
    if (m.out_valid != due) {
      failures.Add("cycle %llu: out_valid %d, expected %d", static_cast<unsigned long long>(cycle_), m.out_valid, due);
    } else if (due) {
      const Pending& p = pending_.front();
      const int32_t v = static_cast<int32_t>(m.v);
      if (m.q != static_cast<uint8_t>(p.y) || v != p.v)
        failures.Add(
            "acc %d bias %d multiplier %d shift %d zp %d range [%d, %d]: q 0x%02x v %d, expected 0x%02x (%d) v %d",
            p.c.acc, p.c.bias, p.c.stage.m.multiplier, p.c.stage.m.shift, p.c.stage.zero_point, p.c.stage.range.min,
            p.c.stage.range.max, m.q, v, static_cast<uint8_t>(p.y), p.y, p.v);
    }
    if (due) pending_.pop_front();
    Tick(m);
    ++cycle_;
  }

  // Streams cases with idle cycles between them (probability idle).
  void Run(const std::vector<Case>& cases, double idle, std::mt19937& rng) {
    std::bernoulli_distribution skip(idle);
    for (const Case& c : cases) {
      while (skip(rng)) Step(nullptr);
      Step(&c);
    }
    for (int k = 0; k <= kLatency; ++k) Step(nullptr);
  }

  long checked() const { return checked_; }
  Failures failures;

 private:
  struct Pending {
    uint64_t cycle;
    Case c;
    int32_t v, y;
  };
  std::unique_ptr<Vrequant> model_;
  std::deque<Pending> pending_;
  uint64_t cycle_ = 0;
  long checked_ = 0;
};

}  // namespace

int Run() {
  std::mt19937 rng(7);
  RequantBench bench;
  auto report = [&](const char* what, size_t n, long before) {
    std::printf("%s: %zu vectors, %s\n", what, n, bench.failures.count() == before ? "ok" : "FAILED");
  };
  long before = bench.failures.count();
  const std::vector<Case> edges = EdgeCases();
  bench.Run(edges, 0.3, rng);
  report("edge cases", edges.size(), before);

  before = bench.failures.count();
  const std::vector<Case> sweep = Sweep();
  bench.Run(sweep, 0.0, rng);
  report("shift sweep", sweep.size(), before);

  before = bench.failures.count();
  std::vector<Case> random(1000000);
  for (Case& c : random) c = RandomCase(rng);
  const auto start = std::chrono::steady_clock::now();
  bench.Run(random, 0.05, rng);
  const double seconds = SecondsSince(start);
  report("random", random.size(), before);
  std::printf("random: %.0f vectors/s through the model and the reference\n", random.size() / seconds);

  if (bench.failures.count() != 0) {
    std::printf("requant: %ld of %ld vectors differ from requant::Requantize\n", bench.failures.count(),
                bench.checked());
    return 1;
  }
  std::printf("requant: all %ld vectors match requant::Requantize\n", bench.checked());
  return 0;
}

}  // namespace hw_tb
}  // namespace loom
