// systolic_array (hw/rtl/systolic_array.sv) against a C++ dot product, for one
// array size (LOOM_TB_N; the Verilated model is built with that N).
//
// The reference is the array's contract: a vector presented in cycle T comes
// out in cycle T + 2N - 1 as sum_i act_i * w[bank][i][j], where w holds, for
// each row, the last row written to that bank before cycle T (the N-th row
// write completes a tile; rows count 0 .. N-1 from reset). Every output
// vector and every idle output cycle is checked. Scenarios:
//   tiles    back-to-back tiles of P vectors on alternating banks, each load
//            placed by a greedy scheduler as early as the bank protocol
//            allows, P in {1, N-1, N, 3N}, without and with random gaps;
//            without gaps P >= N must run with no idle cycle at all
//   random   any traffic: random valid, bank and weight rows every cycle
//   reset    reset in the middle of a load and of a stream
// Activations are int8, uint8 or any 9-bit value (sign-extended by the feeder
// in hardware, drawn directly here), weights int8, with extreme tiles that
// reach the column-sum bounds. Finally the simulation speed of the model.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "Vsystolic_array.h"
#include "hw/tests/tb_util.h"

namespace loom {
namespace hw_tb {
namespace {

constexpr int kN = LOOM_TB_N;
constexpr int kLatency = 2 * kN - 1;

using Vector = std::array<int32_t, kN>;     // one activation vector or one output vector
using WeightTile = std::array<Vector, kN>;  // [row = input channel][output channel]

struct Cycle {
  bool act_valid = false;
  bool act_bank = false;
  Vector act{};
  bool w_valid = false;
  bool w_bank = false;
  Vector w_row{};
};

// Drives the model one cycle at a time and checks its outputs against the
// contract's reference.
class ArrayBench {
 public:
  ArrayBench() : model_(std::make_unique<Vsystolic_array>()) { Reset(); }
  ~ArrayBench() { model_->final(); }

  void Reset() {
    model_->rst_n = 0;
    model_->act_valid = 0;
    model_->w_valid = 0;
    for (int i = 0; i < 2; ++i) Tick(*model_);
    model_->rst_n = 1;
    Forget();
    ++cycle_;
  }

  // Reset asserted for one cycle in the middle of the traffic: vectors in
  // flight vanish, the next weight row is row 0 again, and the banks hold
  // unknown weights (rows in flight may have reached some PEs) until rewritten.
  void ResetNow() {
    model_->rst_n = 0;
    Step(Cycle{});
    model_->rst_n = 1;
    Forget();
  }

  void Step(const Cycle& c) {
    Drive(c);
    model_->eval();
    CheckOutputs();
    if (c.act_valid && model_->rst_n) {
      Expected e{cycle_ + kLatency, {}, true};
      for (int i = 0; i < kN; ++i) {
        e.known = e.known && known_[c.act_bank][i];
        for (int j = 0; j < kN; ++j) e.sum[j] += c.act[i] * weights_[c.act_bank][i][j];
      }
      expected_.push_back(e);
      ++(e.known ? vectors_ : unknown_vectors_);
    }
    if (c.w_valid && model_->rst_n) {
      weights_[c.w_bank][row_] = c.w_row;
      known_[c.w_bank][row_] = true;
      row_ = (row_ + 1) % kN;
    }
    Tick(*model_);
    ++cycle_;
  }

  // Idle cycles until every expected output has come out, and a latency more.
  void Drain() {
    for (int k = 0; k < kLatency + 2; ++k) Step(Cycle{});
    if (!expected_.empty()) failures.Add("%zu output vectors never came out", expected_.size());
  }

  uint64_t cycle() const { return cycle_; }
  long vectors() const { return vectors_; }
  long unknown_vectors() const { return unknown_vectors_; }
  Vsystolic_array& model() { return *model_; }

  Failures failures;

 private:
  struct Expected {
    uint64_t cycle;
    Vector sum;
    bool known;  // every weight it uses was written since reset: compare the sums
  };

  void Forget() {
    expected_.clear();
    row_ = 0;
    for (auto& bank : known_) bank.fill(false);
  }

  void Drive(const Cycle& c) {
    Vsystolic_array& m = *model_;
    m.act_valid = c.act_valid;
    m.act_bank = c.act_bank;
    m.w_valid = c.w_valid;
    m.w_bank = c.w_bank;
    for (int i = 0; i < kN; ++i) {
      SetField(m.act, 9 * i, 9, static_cast<uint32_t>(c.act[i]) & 0x1ff);
      SetField(m.w_row, 8 * i, 8, static_cast<uint32_t>(c.w_row[i]) & 0xff);
    }
  }

  void CheckOutputs() {
    const bool due = !expected_.empty() && expected_.front().cycle == cycle_;
    if (!model_->psum_valid) {
      if (due) failures.Add("cycle %llu: expected an output vector, psum_valid is 0", Ull(cycle_));
      if (due) expected_.pop_front();
      return;
    }
    if (!due) {
      failures.Add("cycle %llu: psum_valid with no vector due", Ull(cycle_));
      return;
    }
    const Vector& want = expected_.front().sum;
    for (int j = 0; j < kN && expected_.front().known; ++j) {
      const int32_t got = static_cast<int32_t>(GetField(model_->psum, 32 * j, 32));
      if (got != want[j]) failures.Add("cycle %llu: channel %d is %d, expected %d", Ull(cycle_), j, got, want[j]);
    }
    expected_.pop_front();
  }

  static unsigned long long Ull(uint64_t v) { return static_cast<unsigned long long>(v); }

  std::unique_ptr<Vsystolic_array> model_;
  std::array<WeightTile, 2> weights_{};  // reference bank contents
  std::array<std::array<bool, kN>, 2> known_{};
  int row_ = 0;  // next weight row written
  std::deque<Expected> expected_;
  uint64_t cycle_ = 0;
  long vectors_ = 0, unknown_vectors_ = 0;
};

// Activation values: what the feeder makes of int8 and uint8 lanes, any 9-bit
// operand, and the extremes that bound the column sums.
enum class ActKind { kInt8, kUint8, kAny9, kExtreme };

int32_t RandomAct(ActKind kind, std::mt19937& rng) {
  switch (kind) {
    case ActKind::kInt8: return static_cast<int32_t>(rng() % 256) - 128;
    case ActKind::kUint8: return static_cast<int32_t>(rng() % 256);
    case ActKind::kAny9: return static_cast<int32_t>(rng() % 512) - 256;
    case ActKind::kExtreme: {
      static const int32_t kValues[] = {-256, -128, 255, 127};
      return kValues[rng() % 4];
    }
  }
  return 0;
}

Vector RandomWeightRow(bool extreme, std::mt19937& rng) {
  Vector row;
  for (int32_t& w : row) w = extreme ? (rng() % 2 ? -128 : 127) : static_cast<int32_t>(rng() % 256) - 128;
  return row;
}

struct Tile {
  WeightTile weights;
  std::vector<Vector> vectors;
};

std::vector<Tile> RandomTiles(int count, int pixels, std::mt19937& rng) {
  std::vector<Tile> tiles(count);
  for (int k = 0; k < count; ++k) {
    const ActKind kind = static_cast<ActKind>(k % 4);
    const bool extreme = kind == ActKind::kExtreme;
    for (Vector& row : tiles[k].weights) row = RandomWeightRow(extreme, rng);
    tiles[k].vectors.resize(pixels);
    for (Vector& v : tiles[k].vectors)
      for (int32_t& a : v) a = RandomAct(kind, rng);
  }
  // One tile of all (-256) x (-128) and one of 255 x (-128): the largest
  // column sums of each sign.
  if (count >= 2) {
    for (Vector& row : tiles[0].weights) row.fill(-128);
    for (Vector& v : tiles[0].vectors) v.fill(-256);
    for (Vector& row : tiles[1].weights) row.fill(-128);
    for (Vector& v : tiles[1].vectors) v.fill(255);
  }
  return tiles;
}

// Streams tiles on alternating banks (tile k on bank k % 2). Each cycle the
// next vector goes out if its tile's load finished in an earlier cycle, and
// the next weight row if the tile two back (same bank) has sent all its
// vectors, this cycle included; gap_probability skips either port.
// Returns the cycles from the first to the last vector.
uint64_t RunTiles(ArrayBench& bench, const std::vector<Tile>& tiles, double gap_probability, std::mt19937& rng,
                  long* idle_cycles) {
  std::bernoulli_distribution gap(gap_probability);
  const int count = static_cast<int>(tiles.size());
  const int pixels = static_cast<int>(tiles[0].vectors.size());
  std::vector<int> sent(count, 0);                   // vectors sent per tile
  std::vector<uint64_t> loaded_at(count, UINT64_MAX);  // cycle of the N-th row
  int act_tile = 0, load_tile = 0, rows = 0;
  uint64_t first = 0, last = 0;
  *idle_cycles = 0;
  while (act_tile < count) {
    Cycle c;
    const uint64_t now = bench.cycle();
    if (loaded_at[act_tile] < now && !gap(rng)) {
      c.act_valid = true;
      c.act_bank = act_tile % 2;
      c.act = tiles[act_tile].vectors[sent[act_tile]];
      if (act_tile == 0 && sent[0] == 0) first = now;
      last = now;
      if (++sent[act_tile] == pixels) ++act_tile;
    } else if (sent[0] > 0) {
      ++*idle_cycles;
    }
    const bool bank_free = load_tile < 2 || sent[load_tile - 2] == pixels;
    if (load_tile < count && bank_free && !gap(rng)) {
      c.w_valid = true;
      c.w_bank = load_tile % 2;
      c.w_row = tiles[load_tile].weights[rows];
      if (++rows == kN) {
        loaded_at[load_tile++] = now;
        rows = 0;
      }
    }
    bench.Step(c);
  }
  return last - first + 1;
}

void TileScenarios(ArrayBench& bench, std::mt19937& rng) {
  const int tile_count = kN <= 4 ? 48 : 24;
  for (int pixels : {1, kN - 1, kN, 3 * kN}) {
    for (double gap : {0.0, 0.25}) {
      const long failures_before = bench.failures.count();
      const std::vector<Tile> tiles = RandomTiles(tile_count, pixels, rng);
      long idle = 0;
      const uint64_t span = RunTiles(bench, tiles, gap, rng, &idle);
      bench.Drain();
      // Without gaps a tile takes max(P, N) cycles: P >= N back to back, P < N
      // limited by the N-cycle weight load.
      const uint64_t ideal = static_cast<uint64_t>(tile_count - 1) * std::max(pixels, kN) + pixels;
      std::printf("tiles: P=%-3d gaps=%.2f: %d tiles in %llu cycles (ideal %llu), %ld idle cycles, %s\n", pixels, gap,
                  tile_count, static_cast<unsigned long long>(span), static_cast<unsigned long long>(ideal), idle,
                  bench.failures.count() == failures_before ? "ok" : "FAILED");
      if (gap == 0.0 && span != ideal)
        bench.failures.Add("P=%d without gaps took %llu cycles, expected %llu", pixels,
                           static_cast<unsigned long long>(span), static_cast<unsigned long long>(ideal));
    }
  }
}

// Cycles of random valid, bank and weight-row traffic.
void RandomCycles(ArrayBench& bench, int cycles, std::mt19937& rng) {
  for (int k = 0; k < cycles; ++k) {
    Cycle c;
    c.act_valid = rng() % 4 != 0;
    c.act_bank = rng() % 2;
    const ActKind kind = static_cast<ActKind>(rng() % 4);
    for (int32_t& a : c.act) a = RandomAct(kind, rng);
    c.w_valid = rng() % 2;
    c.w_bank = rng() % 2;
    c.w_row = RandomWeightRow(rng() % 8 == 0, rng);
    bench.Step(c);
  }
}

void RandomTraffic(ArrayBench& bench, int cycles, std::mt19937& rng) {
  const long failures_before = bench.failures.count();
  RandomCycles(bench, cycles, rng);
  bench.Drain();
  std::printf("random: %d cycles of random traffic, %s\n", cycles,
              bench.failures.count() == failures_before ? "ok" : "FAILED");
}

// Resets at random points of random traffic (in loads, with vectors in
// flight), each followed by enough traffic to rewrite both banks.
void ResetScenario(ArrayBench& bench, std::mt19937& rng) {
  const long failures_before = bench.failures.count();
  for (int round = 0; round < 8; ++round) {
    RandomCycles(bench, static_cast<int>(rng() % (8 * kN)) + 1, rng);
    bench.ResetNow();
  }
  RandomCycles(bench, 8 * kN, rng);
  bench.Drain();
  std::printf("reset: 8 resets mid-stream, %s\n", bench.failures.count() == failures_before ? "ok" : "FAILED");
}

// Cycles per second of the model alone: precomputed random inputs, no checks.
void MeasureSpeed(Vsystolic_array& m, std::mt19937& rng) {
  constexpr int kPatterns = 1024;
  std::vector<Cycle> patterns(kPatterns);
  for (Cycle& c : patterns) {
    c.act_valid = true;
    c.act_bank = rng() % 2;
    for (int32_t& a : c.act) a = RandomAct(ActKind::kAny9, rng);
    c.w_valid = rng() % 2;
    c.w_bank = rng() % 2;
    c.w_row = RandomWeightRow(false, rng);
  }
  // Pack the port values once so the timed loop only copies them.
  struct Ports {
    std::remove_reference_t<decltype(m.act)> act;
    std::remove_reference_t<decltype(m.w_row)> w_row;
    bool act_bank, w_valid, w_bank;
  };
  std::vector<Ports> ports(kPatterns);
  for (int p = 0; p < kPatterns; ++p) {
    ports[p].act = m.act;
    ports[p].w_row = m.w_row;
    for (int i = 0; i < kN; ++i) {
      SetField(ports[p].act, 9 * i, 9, static_cast<uint32_t>(patterns[p].act[i]) & 0x1ff);
      SetField(ports[p].w_row, 8 * i, 8, static_cast<uint32_t>(patterns[p].w_row[i]) & 0xff);
    }
    ports[p].act_bank = patterns[p].act_bank;
    ports[p].w_valid = patterns[p].w_valid;
    ports[p].w_bank = patterns[p].w_bank;
  }
  const long cycles = kN <= 4 ? 2000000 : 200000;
  uint32_t sink = 0;
  m.act_valid = 1;
  const auto start = std::chrono::steady_clock::now();
  for (long k = 0; k < cycles; ++k) {
    const Ports& p = ports[k % kPatterns];
    m.act = p.act;
    m.w_row = p.w_row;
    m.act_bank = p.act_bank;
    m.w_valid = p.w_valid;
    m.w_bank = p.w_bank;
    Tick(m);
    sink += GetField(m.psum, 0, 32);
  }
  const double seconds = SecondsSince(start);
  std::printf("speed: systolic_array N=%d: %.0f cycles/s (%ld cycles in %.2f s, %.1f M MAC/s simulated; %u)\n", kN,
              cycles / seconds, cycles, seconds, cycles * kN * kN / seconds / 1e6, sink & 1);
}

}  // namespace

int Run() {
  std::mt19937 rng(20240611 + kN);
  ArrayBench bench;
  const auto start = std::chrono::steady_clock::now();
  TileScenarios(bench, rng);
  RandomTraffic(bench, kN <= 4 ? 50000 : 20000, rng);
  ResetScenario(bench, rng);
  const double seconds = SecondsSince(start);
  std::printf("checked %ld vectors (and the timing of %ld with unknown weights) in %llu cycles, %.0f cycles/s\n",
              bench.vectors(), bench.unknown_vectors(), static_cast<unsigned long long>(bench.cycle()),
              bench.cycle() / seconds);
  MeasureSpeed(bench.model(), rng);
  if (bench.failures.count() != 0) {
    std::printf("systolic_array N=%d: %ld mismatches\n", kN, bench.failures.count());
    return 1;
  }
  std::printf("systolic_array N=%d: all outputs match\n", kN);
  return 0;
}

}  // namespace hw_tb
}  // namespace loom
