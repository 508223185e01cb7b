// The load and store units (hw/rtl/load_unit.sv, store_unit.sv) against the
// functional model (kernels/fpga/model/datapath.h), bit for bit, on
// hw/sim/tests/tb_load_store_top.sv: the units, the DMA and the buffers, with
// AxiDdrModel serving DRAM. Both sides start from the same random DRAM and
// the same random input, weight and accumulator buffers (the RTL's through
// the top's test ports, the model's through Datapath::buffers_for_test), run
// the same commands, and after each one must agree on the error code, the
// DMA byte counters and all of DRAM, and after a load on both buffers.
//   RandomCommands  LOAD_ACT (every padding combination, cb 1-4, contiguous,
//                   strided and overlapping pixels), LOAD_WGT, LOAD_PARAM and
//                   STORE (int8 and int32, per-tensor and per-channel, random
//                   clamps and shifts over [-31, 31]) under random AXI
//                   latency (1-60), outstanding bursts (1-4), back-pressure
//                   and accumulator-port contention; no AXI rule broken
//   CommandChecks   every check of the model, their order and their
//                   boundaries: the same code, and nothing read or written
//                   by a failing command
//   BusError        SLVERR on a load's source or a store's destination ->
//                   ERR_BUS_ERROR; the units work again after clear
//   Throughput      cycles of a large LOAD_ACT and LOAD_WGT against the DMA
//                   bound (bytes / 8 per cycle) at 40 cycles latency and 4
//                   outstanding bursts, and STORE cycles per pixel
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "Vtb_load_store_top.h"
#include "hw/sim/axi_ddr_model.h"
#include "hw/sim/host_device_memory.h"
#include "hw/sim/verilated_harness.h"
#include "kernels/fpga/model/datapath.h"
#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace hw_sim {
namespace {

namespace contract = fpga::contract;
using contract::Command;
using contract::ErrorCode;

const contract::AccelConfig& kConfig = *contract::FindConfig("pynq_z2");
constexpr uint32_t kN = 16;
constexpr uint32_t kBeat = 8;  // AXI data bytes
constexpr uint64_t kBase = fpga::DeviceMemory::kDefaultBase;
constexpr size_t kMemoryBytes = size_t{2} << 20;
// Slots 0-2 point into the memory; slot 3 is misaligned, so any use of it is MISALIGNED.
constexpr std::array<uint64_t, contract::kBaseSlots> kSlots = {kBase, kBase + 0x80000, kBase + 0x100000, kBase + 4};

using Harness = VerilatedHarness<Vtb_load_store_top>;

bool Chance(std::mt19937& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
uint32_t Uniform(std::mt19937& rng, uint32_t lo, uint32_t hi) { return lo + rng() % (hi - lo + 1); }

bool IsLoad(const Command& c) {
  const auto op = contract::OpcodeOf(c);
  return op == contract::Opcode::kLoadAct || op == contract::Opcode::kLoadWgt;
}

template <typename Op>
Command Encoded(const Op& op) {
  Command c{};
  EXPECT_TRUE(contract::Encode(op, &c)) << "a field does not fit";
  return c;
}

// The compute unit's priority on the accumulator read port: acc_busy high at
// random, with a random row read meanwhile (which changes the read data).
class AccPortContention : public ClockedComponent {
 public:
  AccPortContention(Vtb_load_store_top& top, uint32_t seed) : top_(top), rng_(seed) {}
  double rate = 0.0;
  void Sample() override {}
  void Drive() override {
    if (rate <= 0) {
      top_.acc_busy = 0;
      return;
    }
    top_.acc_busy = Chance(rng_, rate);
    top_.tb_raddr = static_cast<uint16_t>(rng_() % kConfig.acc_rows);
  }

 private:
  Vtb_load_store_top& top_;
  std::mt19937 rng_;
};

// The RTL's result of one command.
struct Outcome {
  int code = -1;  // ERR_*, or -1 on timeout
  uint64_t cycles = 0;
};

// One DUT with its DDR model, and the model with its own copy of DRAM.
class Bench {
 public:
  explicit Bench(const AxiDdrConfig& ddr_config, uint32_t seed = 1)
      : memory_(kMemoryBytes),
        ddr_(ddr_config, LOOM_AXI_MASTER_PINS(harness_.top(), m_axi_), memory_),
        contention_(harness_.top(), seed * 3 + 1),
        model_memory_(kMemoryBytes),
        model_(kConfig, &model_memory_),
        rng_(seed) {
    for (size_t i = 0; i < kMemoryBytes; ++i) memory_.host().data()[i] = static_cast<uint8_t>(rng_());
    EXPECT_TRUE(memory_.SyncToDevice(kBase, kMemoryBytes).ok());
    std::memcpy(model_memory_.data(), memory_.device().data(), kMemoryBytes);
    harness_.Add(&ddr_);
    harness_.Add(&contention_);
    ddr_.Reset();
    Vtb_load_store_top& t = harness_.top();
    std::memcpy(t.base.data(), kSlots.data(), sizeof kSlots);
    harness_.Reset();
    Clear();
    model_.Reset(kSlots);
    PreloadBuffers();
  }

  Vtb_load_store_top& top() { return harness_.top(); }
  Harness& harness() { return harness_; }
  AxiDdrModel& ddr() { return ddr_; }
  AccPortContention& contention() { return contention_; }
  std::mt19937& rng() { return rng_; }

  // ap_start: the units' counters, the parameter buffer (PARAM_ROWS cycles)
  // and the DMA status are cleared.
  void Clear() {
    top().clear = 1;
    harness_.Tick();
    top().clear = 0;
    for (int i = 0; i < 4 * static_cast<int>(kConfig.param_rows) && top().store_busy; ++i) harness_.Tick();
    EXPECT_FALSE(top().store_busy) << "the parameter buffer clear did not end";
  }

  // Bytes into DRAM on both sides (e.g. parameter records).
  void Put(uint64_t addr, const std::vector<uint8_t>& bytes) {
    ASSERT_TRUE(memory_.host().Write(addr, bytes.data(), bytes.size()).ok());
    ASSERT_TRUE(memory_.SyncToDevice(addr, bytes.size()).ok());
    ASSERT_TRUE(model_memory_.Write(addr, bytes.data(), bytes.size()).ok());
  }

  // Runs the commands on the RTL, each on the unit its opcode belongs to (at
  // most one per unit), all started in the same cycle.
  std::vector<Outcome> RunRtl(const std::vector<Command>& cmds, uint64_t max_cycles = 2'000'000) {
    Vtb_load_store_top& t = top();
    for (const Command& cmd : cmds) {
      auto& port = IsLoad(cmd) ? t.load_cmd : t.store_cmd;
      for (size_t w = 0; w < cmd.size(); ++w) {
        port.at(2 * w) = static_cast<uint32_t>(cmd[w]);
        port.at(2 * w + 1) = static_cast<uint32_t>(cmd[w] >> 32);
      }
      (IsLoad(cmd) ? t.load_start : t.store_start) = 1;
    }
    harness_.Tick();
    t.load_start = t.store_start = 0;
    std::vector<Outcome> outs(cmds.size());
    size_t finished = 0;
    for (uint64_t cycle = 1; cycle <= max_cycles && finished < cmds.size(); ++cycle) {
      for (size_t i = 0; i < cmds.size(); ++i) {
        const bool load = IsLoad(cmds[i]);
        if (outs[i].code < 0 && (load ? t.load_done : t.store_done)) {
          outs[i] = {load ? t.load_error_code : t.store_error_code, cycle};
          EXPECT_EQ(outs[i].code != 0, (load ? t.load_error : t.store_error) != 0);
          ++finished;
        }
      }
      if (finished < cmds.size()) harness_.Tick();
    }
    if (finished < cmds.size()) ADD_FAILURE() << "timed out after " << max_cycles << " cycles";
    return outs;
  }
  Outcome RunRtl(const Command& cmd) { return RunRtl(std::vector<Command>{cmd})[0]; }

  // Runs the commands on both sides (the RTL's at once, the model's in
  // order, so they must not depend on each other) and compares the error
  // codes, the DMA byte counters, DRAM and (after a load) the buffers.
  std::vector<Outcome> Execute(const std::vector<Command>& cmds, const std::string& what) {
    SCOPED_TRACE(what);
    const std::vector<Outcome> outs = RunRtl(cmds);
    bool load = false;
    for (size_t i = 0; i < cmds.size(); ++i) {
      const fpga::Fault fault = model_.Execute(cmds[i]);
      EXPECT_EQ(outs[i].code, static_cast<int>(fault.code)) << "command " << i << ", model: " << fault.detail;
      load = load || IsLoad(cmds[i]);
    }
    // Nothing is left in flight once done has pulsed.
    EXPECT_TRUE(top().rd_idle && top().wr_idle && ddr_.Idle());
    EXPECT_EQ(top().rd_bytes, model_.counters().bytes_read);
    EXPECT_EQ(top().wr_bytes, model_.counters().bytes_written);
    CheckDram();
    if (load) CheckBuffers();
    return outs;
  }
  Outcome Execute(const Command& cmd, const std::string& what) { return Execute(std::vector<Command>{cmd}, what)[0]; }

  void CheckDram() {
    const uint8_t* rtl = memory_.device().data();
    const uint8_t* model = model_memory_.data();
    const auto diff = std::mismatch(rtl, rtl + kMemoryBytes, model);
    EXPECT_TRUE(diff.first == rtl + kMemoryBytes)
        << "DRAM differs at 0x" << std::hex << kBase + (diff.first - rtl) << ": RTL 0x" << int{*diff.first}
        << ", model 0x" << int{*diff.second};
  }

  // Reads both buffers back through the test port (one row per cycle).
  void CheckBuffers() {
    const double rate = contention_.rate;
    contention_.rate = 0;
    auto buffers = model_.buffers_for_test();
    Vtb_load_store_top& t = top();
    int reported = 0;
    for (uint32_t r = 0; r < kConfig.inp_rows; ++r) {
      t.tb_raddr = static_cast<uint16_t>(r);
      harness_.Tick();
      for (const auto& [name, rdata, model] :
           {std::make_tuple("input", t.tb_inp_rdata.data(), &buffers.inp[size_t{r} * kN]),
            std::make_tuple("weight", t.tb_wgt_rdata.data(), &buffers.wgt[size_t{r} * kN])}) {
        if (std::memcmp(rdata, model, kN) != 0 && reported++ < 5) {
          ADD_FAILURE() << name << " buffer row " << r << " differs: RTL " << Hex(rdata) << ", model "
                        << Hex(model);
        }
      }
    }
    contention_.rate = rate;
  }

  fpga::Datapath& model() { return model_; }

 private:
  static std::string Hex(const void* row) {
    std::string s;
    char byte[4];
    for (uint32_t i = 0; i < kN; ++i) {
      std::snprintf(byte, sizeof byte, "%02x", static_cast<const uint8_t*>(row)[i]);
      s += byte;
    }
    return s;
  }

  // Random buffers on both sides: accumulators mostly small (so requantized
  // values vary), some anywhere in int32 (wrapping bias adds, saturation).
  void PreloadBuffers() {
    auto buffers = model_.buffers_for_test();
    Vtb_load_store_top& t = top();
    for (uint8_t& b : buffers.inp) b = static_cast<uint8_t>(rng_());
    for (uint8_t& b : buffers.wgt) b = static_cast<uint8_t>(rng_());
    for (int32_t& a : buffers.acc) {
      const uint32_t kind = rng_() % 4;
      a = kind == 0 ? static_cast<int32_t>(rng_()) : static_cast<int32_t>(rng_() % (1u << 21)) - (1 << 20);
    }
    const uint32_t rows = std::max({kConfig.inp_rows, kConfig.wgt_rows, kConfig.acc_rows});
    for (int pass = 0; pass < 2; ++pass) {
      for (uint32_t r = 0; r < rows; ++r) {
        t.tb_waddr = static_cast<uint16_t>(r);
        t.tb_inp_we = pass == 0 && r < kConfig.inp_rows;
        t.tb_acc_we = pass == 0 && r < kConfig.acc_rows;
        t.tb_wgt_we = pass == 1 && r < kConfig.wgt_rows;
        if (t.tb_inp_we) std::memcpy(t.tb_wdata.data(), &buffers.inp[size_t{r} * kN], kN);
        if (t.tb_wgt_we) std::memcpy(t.tb_wdata.data(), &buffers.wgt[size_t{r} * kN], kN);
        if (t.tb_acc_we) std::memcpy(t.tb_acc_wdata.data(), &buffers.acc[size_t{r} * kN], 4 * kN);
        harness_.Tick();
      }
    }
    t.tb_inp_we = t.tb_wgt_we = t.tb_acc_we = 0;
  }

  Harness harness_;
  HostDeviceMemory memory_;
  AxiDdrModel ddr_;
  AccPortContention contention_;
  fpga::DeviceMemory model_memory_;
  fpga::Datapath model_;
  std::mt19937 rng_;
};

// ---------------------------------------------------------------- random commands

// A slot and an aligned offset with `extent` bytes from there inside DRAM.
void PlaceInDram(std::mt19937& rng, uint64_t extent, uint32_t* slot, uint32_t* offset) {
  *slot = rng() % 3;
  const uint64_t room = kBase + kMemoryBytes - kSlots[*slot] - extent;
  *offset = static_cast<uint32_t>(rng() % (room / 8 + 1) * 8);
}

uint64_t ActExtent(const contract::LoadAct& op) {
  return uint64_t{op.y_size - 1} * op.row_pitch + uint64_t{op.x_size - 1} * op.pixel_pitch + op.cb * kN;
}
uint32_t ActRows(const contract::LoadAct& op) {
  return (op.pad_top + op.y_size + op.pad_bottom) * (op.pad_left + op.x_size + op.pad_right) * op.cb;
}

// pads: bit s set gives side s (top, bottom, left, right) padding 1-3, or
// sometimes up to 15.
contract::LoadAct RandomLoadAct(std::mt19937& rng, unsigned pads) {
  contract::LoadAct op;
  uint32_t* sides[] = {&op.pad_top, &op.pad_bottom, &op.pad_left, &op.pad_right};
  for (int s = 0; s < 4; ++s) *sides[s] = pads >> s & 1 ? (Chance(rng, 0.1) ? Uniform(rng, 4, 15) : Uniform(rng, 1, 3)) : 0;
  do {
    op.cb = Uniform(rng, 1, 4);
    op.y_size = Uniform(rng, 1, 6);
    op.x_size = Uniform(rng, 1, 9);
  } while (ActRows(op) > kConfig.inp_rows);
  const uint32_t pixel = op.cb * kN;
  switch (rng() % 4) {
    case 0:
    case 1: op.pixel_pitch = pixel; break;                                 // contiguous
    case 2: op.pixel_pitch = pixel + 8 * Uniform(rng, 1, 8); break;      // strided
    default: op.pixel_pitch = 8 * (rng() % (2 * pixel / 8 + 1)); break;  // anything aligned, 0 and overlaps too
  }
  switch (rng() % 3) {
    case 0: op.row_pitch = op.x_size * op.pixel_pitch; break;
    case 1: op.row_pitch = op.x_size * op.pixel_pitch + 8 * Uniform(rng, 1, 16); break;
    default: op.row_pitch = 8 * (rng() % 512); break;
  }
  PlaceInDram(rng, ActExtent(op), &op.slot, &op.dram_offset);
  op.sram_row = rng() % (kConfig.inp_rows - ActRows(op) + 1);
  op.pad_value = rng() % 256;
  return op;
}

contract::LoadWgt RandomLoadWgt(std::mt19937& rng) {
  contract::LoadWgt op;
  op.rows = Chance(rng, 0.15) ? Uniform(rng, 1, kConfig.wgt_rows) : Uniform(rng, 1, 96);
  PlaceInDram(rng, uint64_t{op.rows} * kN, &op.slot, &op.dram_offset);
  op.sram_row = rng() % (kConfig.wgt_rows - op.rows + 1);
  return op;
}

// A requantization multiplier and shift: mostly the builder's kind (a Q31
// multiplier in [2^30, 2^31) and a modest right shift), sometimes anything.
void RandomScale(std::mt19937& rng, uint32_t* multiplier, int32_t* shift) {
  *multiplier = Chance(rng, 0.8) ? (1u << 30) + rng() % (1u << 30) : static_cast<uint32_t>(rng());
  *shift = Chance(rng, 0.7) ? -static_cast<int32_t>(rng() % 16) : static_cast<int32_t>(rng() % 63) - 31;
}

// count records at a random place in DRAM (written on both sides); the
// record `bad` (if < count) gets a shift outside [-31, 31].
contract::LoadParam RandomLoadParam(Bench& bench, uint32_t bad = ~0u) {
  std::mt19937& rng = bench.rng();
  contract::LoadParam op;
  op.count = Chance(rng, 0.1) ? Uniform(rng, 1, kConfig.param_rows) : Uniform(rng, 1, 48);
  if (bad != ~0u) op.count = std::max(op.count, bad + 1);
  op.param_row = Chance(rng, 0.7) ? rng() % std::min(128u, kConfig.param_rows - op.count + 1)
                                  : rng() % (kConfig.param_rows - op.count + 1);
  const uint64_t bytes = uint64_t{op.count} * contract::kParamRecordBytes;
  PlaceInDram(rng, bytes, &op.slot, &op.dram_offset);
  std::vector<uint8_t> records(bytes);
  for (uint32_t k = 0; k < op.count; ++k) {
    uint8_t* r = &records[size_t{k} * contract::kParamRecordBytes];
    uint32_t multiplier;
    int32_t shift;
    RandomScale(rng, &multiplier, &shift);
    if (k == bad) shift = Chance(rng, 0.5) ? Uniform(rng, 32, 127) : -static_cast<int32_t>(Uniform(rng, 32, 128));
    fpga::StoreLeInt32(Chance(rng, 0.8) ? static_cast<int32_t>(rng() % (1u << 17)) - (1 << 16)
                                        : static_cast<int32_t>(rng()), r);
    fpga::StoreLeInt32(static_cast<int32_t>(multiplier), r + 4);
    r[8] = static_cast<uint8_t>(shift);
    for (int i = 9; i < 16; ++i) r[i] = static_cast<uint8_t>(rng());  // ignored
  }
  bench.Put(kSlots[op.slot] + op.dram_offset, records);
  return op;
}

contract::Store RandomStore(std::mt19937& rng) {
  contract::Store op;
  if (Chance(rng, 0.1)) {
    op.oh = Uniform(rng, 1, 32);
    op.ow = Uniform(rng, 1, 64);
  } else {
    op.oh = Uniform(rng, 1, 6);
    op.ow = Uniform(rng, 1, 8);
  }
  op.acc_base = rng() % (kConfig.acc_rows - op.oh * op.ow + 1);
  op.out_int32 = Chance(rng, 0.3);
  op.per_tensor = Chance(rng, 0.3);
  op.param_row = op.per_tensor ? rng() % 4096 : rng() % 113;
  op.zero_point = static_cast<int32_t>(rng() % 512) - 256;
  switch (rng() % 4) {
    case 0: op.qmin = -128, op.qmax = 127; break;
    case 1: op.qmin = 0, op.qmax = 255; break;
    case 2: op.qmin = std::max(-128, std::min(127, op.zero_point)), op.qmax = 127; break;  // ReLU
    default:
      op.qmin = static_cast<int32_t>(rng() % 384) - 128;
      op.qmax = op.qmin + static_cast<int32_t>(rng() % (256 - op.qmin));
  }
  RandomScale(rng, &op.multiplier, &op.shift);
  const uint32_t pixel = op.out_int32 ? 4 * kN : kN;
  switch (rng() % 4) {
    case 0:
    case 1: op.pixel_pitch = pixel; break;
    case 2: op.pixel_pitch = pixel + 8 * Uniform(rng, 1, 8); break;
    default: op.pixel_pitch = 8 * (rng() % (2 * pixel / 8 + 1)); break;
  }
  op.row_pitch = op.ow * op.pixel_pitch + (Chance(rng, 0.5) ? 0 : 8 * Uniform(rng, 1, 16));
  const uint64_t extent = uint64_t{op.oh - 1} * op.row_pitch + uint64_t{op.ow - 1} * op.pixel_pitch + pixel;
  PlaceInDram(rng, extent, &op.slot, &op.dram_offset);
  return op;
}

// The DRAM bytes a command reads or writes, [first, second).
std::pair<uint64_t, uint64_t> DramRange(const Command& c) {
  uint64_t addr = 0, bytes = 0;
  switch (contract::OpcodeOf(c)) {
    case contract::Opcode::kLoadAct: {
      contract::LoadAct op;
      contract::Decode(c, &op);
      addr = kSlots[op.slot] + op.dram_offset, bytes = ActExtent(op);
      break;
    }
    case contract::Opcode::kLoadWgt: {
      contract::LoadWgt op;
      contract::Decode(c, &op);
      addr = kSlots[op.slot] + op.dram_offset, bytes = uint64_t{op.rows} * kN;
      break;
    }
    case contract::Opcode::kLoadParam: {
      contract::LoadParam op;
      contract::Decode(c, &op);
      addr = kSlots[op.slot] + op.dram_offset, bytes = uint64_t{op.count} * contract::kParamRecordBytes;
      break;
    }
    default: {
      contract::Store op;
      contract::Decode(c, &op);
      const uint32_t pixel = op.out_int32 ? 4 * kN : kN;
      addr = kSlots[op.slot] + op.dram_offset;
      bytes = uint64_t{op.oh - 1} * op.row_pitch + uint64_t{op.ow - 1} * op.pixel_pitch + pixel;
    }
  }
  return {addr, addr + bytes};
}

// Whether a load and a store-queue command may run at once with the same
// result as one after the other: the store does not write what the load reads.
bool Independent(const Command& load, const Command& store) {
  if (contract::OpcodeOf(store) == contract::Opcode::kLoadParam) return true;
  const auto a = DramRange(load), b = DramRange(store);
  return a.second <= b.first || b.second <= a.first;
}

std::string Describe(const Command& c) {
  char s[120];
  std::snprintf(s, sizeof s, "opcode %d, words %016llx %016llx %016llx %016llx", static_cast<int>(contract::OpcodeOf(c)),
                static_cast<unsigned long long>(c[0]), static_cast<unsigned long long>(c[1]),
                static_cast<unsigned long long>(c[2]), static_cast<unsigned long long>(c[3]));
  return s;
}

TEST(LoadStore, RandomCommands) {
  std::mt19937 rng(7);
  const auto start = std::chrono::steady_clock::now();
  int commands = 0;
  uint64_t cycles = 0;
  for (int round = 0; round < 12 && !HasFailure(); ++round) {
    const AxiDdrConfig config = RandomAxiDdrTiming(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ": read latency " + std::to_string(config.read_latency) +
                 ", outstanding " + std::to_string(config.max_outstanding));
    Bench bench(config, round + 11);
    bench.contention().rate = (rng() % 3) * 0.3;
    for (int i = 0; i < 48 && !HasFailure(); ++i) {
      Command cmd;
      switch (i % 6) {
        case 0:
        case 1:
        case 2: cmd = Encoded(RandomLoadAct(bench.rng(), (i + 5 * round) % 16)); break;
        case 3: cmd = Encoded(RandomLoadWgt(bench.rng())); break;
        case 4: cmd = i % 12 == 4 ? Encoded(RandomLoadParam(bench)) : Encoded(RandomStore(bench.rng())); break;
        default: cmd = Encoded(RandomStore(bench.rng())); break;
      }
      // Half the store-queue commands run beside a load (both units on the
      // read arbiter and the DMA at once).
      std::vector<Command> cmds = {cmd};
      if (!IsLoad(cmd) && Chance(bench.rng(), 0.5)) {
        const Command load = Encoded(RandomLoadAct(bench.rng(), bench.rng()() % 16));
        if (Independent(load, cmd)) cmds.insert(cmds.begin(), load);
      }
      std::string what = "command " + std::to_string(i) + ":";
      for (const Command& c : cmds) what += " [" + Describe(c) + "]";
      for (const Outcome& out : bench.Execute(cmds, what)) {
        EXPECT_EQ(out.code, 0);
        cycles += out.cycles;
        ++commands;
      }
    }
    EXPECT_EQ(bench.ddr().violations(), std::vector<std::string>{});
  }
  std::printf("random commands: %d in %llu command cycles, %.1f s\n", commands,
              static_cast<unsigned long long>(cycles),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// ---------------------------------------------------------------- checks

struct CheckCase {
  const char* name;
  ErrorCode expected;  // what the model says (checked too)
  std::function<Command(Bench&)> make;
};

template <typename Op>
std::function<Command(Bench&)> Broken(std::function<Op(Bench&)> valid, std::function<void(Op&)> breaker) {
  return [valid, breaker](Bench& bench) {
    Op op = valid(bench);
    breaker(op);
    return Encoded(op);
  };
}

std::vector<CheckCase> CheckCases() {
  using A = contract::LoadAct;
  using W = contract::LoadWgt;
  using P = contract::LoadParam;
  using S = contract::Store;
  const std::function<A(Bench&)> act = [](Bench& b) { return RandomLoadAct(b.rng(), b.rng()() % 16); };
  const std::function<W(Bench&)> wgt = [](Bench& b) { return RandomLoadWgt(b.rng()); };
  const std::function<P(Bench&)> param = [](Bench& b) { return RandomLoadParam(b); };
  const std::function<S(Bench&)> store = [](Bench& b) {
    S op = RandomStore(b.rng());
    op.out_int32 = 0;
    return op;
  };
  const auto kField = ErrorCode::kBadField, kAlign = ErrorCode::kMisaligned, kRange = ErrorCode::kSramRange;
  const auto kOk = ErrorCode::kNone;
  return {
      // Valid at the boundaries.
      {"act tile ends at the last row", kOk, Broken<A>(act, [](A& o) { o.sram_row = kConfig.inp_rows - ActRows(o); })},
      {"act slot 3 + offset 4", kOk, Broken<A>(act, [](A& o) { o.slot = 3, o.dram_offset = 4; })},
      {"wgt ends at the last row", kOk, Broken<W>(wgt, [](W& o) { o.sram_row = kConfig.wgt_rows - o.rows; })},
      {"param ends at the last row", kOk, Broken<P>(param, [](P& o) { o.param_row = kConfig.param_rows - o.count; })},
      {"store ends at the last accumulator", kOk,
       Broken<S>(store, [](S& o) { o.acc_base = kConfig.acc_rows - o.oh * o.ow; })},
      {"store last parameter records", kOk, Broken<S>(store, [](S& o) { o.per_tensor = 0, o.param_row = kConfig.param_rows - kN; })},
      {"store widest clamp", kOk, Broken<S>(store, [](S& o) { o.qmin = -128, o.qmax = 255; })},
      {"store one-value clamp", kOk, Broken<S>(store, [](S& o) { o.qmin = o.qmax = 255; })},
      {"store per-tensor shift -31", kOk, Broken<S>(store, [](S& o) { o.per_tensor = 1, o.shift = -31; })},
      {"store per-tensor shift 31", kOk, Broken<S>(store, [](S& o) { o.per_tensor = 1, o.shift = 31; })},
      // Invalid.
      {"act y_size 0", kField, Broken<A>(act, [](A& o) { o.y_size = 0; })},
      {"act x_size 0", kField, Broken<A>(act, [](A& o) { o.x_size = 0; })},
      {"act cb 0 and misaligned", kField, Broken<A>(act, [](A& o) { o.cb = 0, o.dram_offset += 4; })},
      {"act offset", kAlign, Broken<A>(act, [](A& o) { o.dram_offset += 4; })},
      {"act slot 3", kAlign, Broken<A>(act, [](A& o) { o.slot = 3; })},
      {"act row_pitch", kAlign, Broken<A>(act, [](A& o) { o.row_pitch += 4; })},
      {"act pixel_pitch and range", kAlign, Broken<A>(act, [](A& o) { o.pixel_pitch |= 4, o.sram_row = 4095 + 1; })},
      {"act range by one", kRange, Broken<A>(act, [](A& o) { o.sram_row = kConfig.inp_rows - ActRows(o) + 1; })},
      {"act sram_row max", kRange, Broken<A>(act, [](A& o) { o.sram_row = 0xFFFF; })},
      {"act huge tile", kRange, Broken<A>(act, [](A& o) {
         o.y_size = o.x_size = 4095, o.cb = 255, o.pad_top = o.pad_bottom = o.pad_left = o.pad_right = 15;
       })},
      {"act tile one too big", kRange, Broken<A>(act, [](A& o) {
         o.pad_top = o.pad_bottom = o.pad_left = o.pad_right = 0, o.y_size = 1, o.cb = 1, o.sram_row = 100;
         o.x_size = kConfig.inp_rows + 1 - o.sram_row;
       })},
      {"wgt rows 0", kField, Broken<W>(wgt, [](W& o) { o.rows = 0, o.slot = 3; })},
      {"wgt misaligned", kAlign, Broken<W>(wgt, [](W& o) { o.dram_offset |= 2, o.sram_row = 5000; })},
      {"wgt range", kRange, Broken<W>(wgt, [](W& o) { o.sram_row = kConfig.wgt_rows - o.rows + 1; })},
      {"param count 0", kField, Broken<P>(param, [](P& o) { o.count = 0; })},
      {"param misaligned", kAlign, Broken<P>(param, [](P& o) { o.slot = 3; })},
      {"param range", kRange, Broken<P>(param, [](P& o) { o.param_row = kConfig.param_rows - o.count + 1; })},
      {"store oh 0", kField, Broken<S>(store, [](S& o) { o.oh = 0; })},
      {"store ow 0", kField, Broken<S>(store, [](S& o) { o.ow = 0, o.dram_offset |= 1; })},
      {"store qmin -129", kField, Broken<S>(store, [](S& o) { o.qmin = -129; })},
      {"store qmin > qmax", kField, Broken<S>(store, [](S& o) { o.qmin = 10, o.qmax = 9; })},
      {"store per-tensor shift -32", kField, Broken<S>(store, [](S& o) { o.per_tensor = 1, o.shift = -32; })},
      {"store offset", kAlign, Broken<S>(store, [](S& o) { o.dram_offset |= 4, o.acc_base = 4000; })},
      {"store row_pitch", kAlign, Broken<S>(store, [](S& o) { o.row_pitch |= 2; })},
      {"store pixel_pitch", kAlign, Broken<S>(store, [](S& o) { o.pixel_pitch |= 1; })},
      {"store accumulators", kRange, Broken<S>(store, [](S& o) { o.acc_base = kConfig.acc_rows - o.oh * o.ow + 1; })},
      {"store big tile", kRange, Broken<S>(store, [](S& o) { o.acc_base = 0, o.oh = 4095, o.ow = 4095; })},
      {"store params", kRange, Broken<S>(store, [](S& o) { o.per_tensor = 0, o.param_row = kConfig.param_rows - 15; })},
  };
}

TEST(LoadStore, CommandChecks) {
  AxiDdrConfig config;
  config.read_latency = 7;
  Bench bench(config, 5);
  for (const CheckCase& c : CheckCases()) {
    for (int rep = 0; rep < 3 && !HasFailure(); ++rep) {
      const Command cmd = c.make(bench);
      const Outcome out = bench.Execute(cmd, std::string(c.name) + ": " + Describe(cmd));
      EXPECT_EQ(out.code, static_cast<int>(c.expected)) << c.name;
      if (c.expected != ErrorCode::kNone) {
        EXPECT_LT(out.cycles, 40u) << c.name << ": the checks take too long";
      }
    }
  }
  // Not errors: the per-tensor shift and the clamp are not used by an int32
  // STORE, nor param_row by a per-tensor one.
  contract::Store s = RandomStore(bench.rng());
  s.out_int32 = 1, s.per_tensor = 1, s.shift = -32, s.qmin = 5, s.qmax = 4, s.param_row = 4095;
  s.pixel_pitch = 4 * kN, s.row_pitch = s.ow * 4 * kN, s.dram_offset = 0, s.slot = 0;
  EXPECT_EQ(bench.Execute(Encoded(s), "int32 per-tensor STORE with unused fields out of range").code, 0);
  // A shift out of range in record k: records 0 .. k-1 are written (STOREs
  // of them compare), then BAD_FIELD.
  for (uint32_t bad : {0u, 1u, 5u}) {
    const contract::LoadParam p = RandomLoadParam(bench, bad);
    EXPECT_EQ(bench.Execute(Encoded(p), "LOAD_PARAM, bad shift in record " + std::to_string(bad)).code,
              static_cast<int>(ErrorCode::kBadField));
    contract::Store st = RandomStore(bench.rng());
    st.per_tensor = 0, st.param_row = std::min(p.param_row, kConfig.param_rows - kN);
    EXPECT_EQ(bench.Execute(Encoded(st), "STORE after the failed LOAD_PARAM").code, 0);
  }
}

// ---------------------------------------------------------------- bus errors

TEST(LoadStore, BusError) {
  AxiDdrConfig config;
  config.read_latency = 13;
  for (int kind = 0; kind < 4; ++kind) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    Bench bench(config, 40 + kind);
    Command cmd;
    uint64_t begin = 0, end = 0;  // the command's DRAM range
    if (kind == 0) {
      contract::LoadAct op;
      do {  // contiguous, so the middle of the range is read
        op = RandomLoadAct(bench.rng(), 15);
      } while (op.pixel_pitch != op.cb * kN || op.row_pitch != op.x_size * op.pixel_pitch);
      begin = kSlots[op.slot] + op.dram_offset, end = begin + ActExtent(op);
      cmd = Encoded(op);
    } else if (kind == 1) {
      contract::LoadWgt op = RandomLoadWgt(bench.rng());
      begin = kSlots[op.slot] + op.dram_offset, end = begin + uint64_t{op.rows} * kN;
      cmd = Encoded(op);
    } else if (kind == 2) {
      contract::LoadParam op = RandomLoadParam(bench);
      begin = kSlots[op.slot] + op.dram_offset, end = begin + uint64_t{op.count} * contract::kParamRecordBytes;
      cmd = Encoded(op);
    } else {
      contract::Store op = RandomStore(bench.rng());
      op.pixel_pitch = op.out_int32 ? 4 * kN : kN;
      op.row_pitch = op.ow * op.pixel_pitch;
      begin = kSlots[op.slot] + op.dram_offset, end = begin + uint64_t{op.oh} * op.row_pitch;
      cmd = Encoded(op);
    }
    const uint64_t middle = begin + (end - begin) / 2 / kBeat * kBeat;
    bench.ddr().SetSlverrRange(middle, middle + kBeat);
    EXPECT_EQ(bench.RunRtl(cmd).code, static_cast<int>(ErrorCode::kBusError)) << Describe(cmd);
    EXPECT_TRUE(bench.top().rd_idle && bench.top().wr_idle && bench.ddr().Idle());
    // After clear (the next run) the units work again.
    bench.ddr().SetSlverrRange(0, 0);
    bench.Clear();
    EXPECT_FALSE(bench.top().rd_bus_error || bench.top().wr_bus_error);
    EXPECT_EQ(bench.RunRtl(cmd).code, 0) << Describe(cmd);
    EXPECT_EQ(bench.ddr().violations(), std::vector<std::string>{});
  }
}

// ---------------------------------------------------------------- throughput

TEST(LoadStore, Throughput) {
  AxiDdrConfig config;
  config.read_latency = 40;
  config.max_outstanding = 4;
  Bench bench(config, 3);
  auto report = [&](const char* what, const Command& cmd, uint64_t bytes) {
    const Outcome out = bench.Execute(cmd, what);
    const double ideal = static_cast<double>(bytes) / kBeat;
    std::printf("%-44s %7llu cycles, DMA bound %6.0f: %5.1f %%\n", what, static_cast<unsigned long long>(out.cycles),
                ideal, 100 * ideal / out.cycles);
    return ideal / out.cycles;
  };
  // A 32 x 32 x 4-block tile (the whole input buffer) from a 30 x 30 image,
  // padding 1 on every side.
  contract::LoadAct act;
  act.y_size = act.x_size = 30, act.cb = 4;
  act.pad_top = act.pad_bottom = act.pad_left = act.pad_right = 1;
  act.pixel_pitch = act.cb * kN, act.row_pitch = act.x_size * act.pixel_pitch, act.pad_value = 3;
  EXPECT_GE(report("LOAD_ACT 30x30x4 + pad 1, contiguous", Encoded(act), 30 * 30 * 64), 0.85);
  act.pixel_pitch = 2 * act.cb * kN, act.row_pitch = act.x_size * act.pixel_pitch;  // every other pixel
  report("LOAD_ACT 30x30x4 + pad 1, strided pixels", Encoded(act), 30 * 30 * 64);
  contract::LoadWgt wgt;
  wgt.rows = kConfig.wgt_rows;
  EXPECT_GE(report("LOAD_WGT 4096 rows", Encoded(wgt), uint64_t{wgt.rows} * kN), 0.85);

  for (int out_int32 = 0; out_int32 < 2; ++out_int32) {
    contract::Store st;
    st.oh = 32, st.ow = 64, st.out_int32 = out_int32, st.per_tensor = 1;
    st.qmin = -128, st.qmax = 127, st.multiplier = 1u << 30, st.shift = -3;
    st.pixel_pitch = out_int32 ? 4 * kN : kN, st.row_pitch = st.ow * st.pixel_pitch;
    const Outcome out = bench.Execute(Encoded(st), "STORE 2048 pixels");
    const double per_pixel = static_cast<double>(out.cycles) / (st.oh * st.ow);
    std::printf("STORE 2048 pixels, %s: %llu cycles, %.2f cycles per pixel (lanes bound %d, DMA bound %u)\n",
                out_int32 ? "int32" : "int8 ", static_cast<unsigned long long>(out.cycles), per_pixel,
                static_cast<int>(kN / kConfig.requant_lanes), (out_int32 ? 4 : 1) * kN / kBeat);
    EXPECT_LT(per_pixel, out_int32 ? 8.2 : 4.1);
  }
  EXPECT_EQ(bench.ddr().violations(), std::vector<std::string>{});
}

}  // namespace
}  // namespace hw_sim
}  // namespace loom
