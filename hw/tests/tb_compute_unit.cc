// compute_unit (hw/rtl/compute_unit.sv, in tb_compute_top.sv with its three
// buffers; pynq_z2: N = 16, DSP_ROWS = 12) against the functional model's
// Datapath (kernels/fpga/model), bit for bit.
//
// Both sides start from the same buffers: random input and weight buffers
// (the RTL's written through the testbench ports, the model's loaded with
// LOAD_ACT / LOAD_WGT from device memory) and zeroed accumulators; then one
// long stream of compute commands runs on both, so CONV with accumulate = 1
// adds to whatever earlier commands left. After every command: the same
// error code; every accumulator write inside the command's rows (none for
// a failing command) and exactly as many as the model's loops make; the
// unit's port enables only while busy; the command's accumulator rows equal
// (the model's read back with a raw int32 STORE); every 32 commands and at
// the end all rows. Commands:
//   conv, maxpool, add  random valid commands (kh, kw <= 7, strides and
//                       dilations 1-3, cb_count and in_cb <= 4, both
//                       accumulate and act_unsigned values; ADD with random
//                       zero points, multipliers and shifts)
//   add sweep           every shift in [-31, 31] x corner multipliers x zero
//                       points over rows holding all 256 byte values
//   invalid             each BAD_FIELD and SRAM_RANGE condition, both at once,
//                       the limits exactly met (valid) and just passed, and
//                       random bits with a compute opcode; BAD_OPCODE for the
//                       other opcodes
//   efficiency          cycles from start to done for big shapes against the
//                       ideal cb_count·kh·kw·oh·ow
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vtb_compute_top.h"
#include "hw/tests/tb_util.h"
#include "kernels/fpga/model/datapath.h"
#include "kernels/fpga/model/device_memory.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace hw_tb {
namespace {

namespace contract = fpga::contract;
using contract::ErrorCode;

const contract::AccelConfig& Config() { return *contract::FindConfig("pynq_z2"); }
constexpr uint32_t kN = 16;
constexpr uint32_t kInpRows = 4096, kWgtRows = 4096, kAccRows = 2048;
// Device memory: the input image, the weight image, the STORE scratch rows.
constexpr uint32_t kInpImage = 0, kWgtImage = kInpRows * kN, kScratch = kWgtImage + kWgtRows * kN;
constexpr uint32_t kMemoryBytes = kScratch + kAccRows * 4 * kN;

template <typename Op>
contract::Command Encode(const Op& op) {
  contract::Command command{};
  if (!contract::Encode(op, &command)) {
    std::printf("FATAL: a test command does not encode\n");
    std::abort();
  }
  return command;
}

// What a command writes, from its fields (the model's loops): rows
// [acc_first, acc_first + acc_rows), `writes` row writes in all.
struct Footprint {
  uint32_t acc_first = 0, acc_rows = 0;
  uint64_t writes = 0;
  uint64_t ideal = 0;  // CONV: cb_count·kh·kw·P; MAXPOOL: P·kh·kw; ADD: rows
};

Footprint FootprintOf(const contract::Command& command) {
  Footprint f;
  switch (contract::OpcodeOf(command)) {
    case contract::Opcode::kConv: {
      contract::Conv op;
      contract::Decode(command, &op);
      f.acc_first = op.acc_base;
      f.acc_rows = op.oh * op.ow;
      f.writes = uint64_t{f.acc_rows} * op.cb_count * op.kh * op.kw;
      f.ideal = f.writes;
      break;
    }
    case contract::Opcode::kMaxpool: {
      contract::Maxpool op;
      contract::Decode(command, &op);
      f.acc_first = op.acc_base;
      f.acc_rows = op.oh * op.ow;
      f.writes = f.acc_rows;
      f.ideal = uint64_t{f.acc_rows} * op.kh * op.kw;
      break;
    }
    case contract::Opcode::kAdd: {
      contract::Add op;
      contract::Decode(command, &op);
      f.acc_first = op.acc_base;
      f.acc_rows = op.rows;
      f.writes = op.rows;
      f.ideal = op.rows;
      break;
    }
    default:
      break;
  }
  return f;
}

class Bench {
 public:
  Bench() : top_(std::make_unique<Vtb_compute_top>()), memory_(kMemoryBytes), datapath_(Config(), &memory_) {
    top_->rst_n = 0;
    top_->start = 0;
    top_->tb_inp_we = top_->tb_wgt_we = top_->tb_acc_we = top_->tb_acc_re = 0;
    for (int i = 0; i < 4; ++i) Step();
    top_->rst_n = 1;
    datapath_.Reset({memory_.base(), 0, 0, 0});
    // Zeroed accumulators on both sides (Reset zeroed the model's).
    top_->tb_acc_we = 1;
    for (uint32_t w = 0; w < 16; ++w) top_->tb_acc_wdata[w] = 0;
    for (uint32_t r = 0; r < kAccRows; ++r) {
      top_->tb_acc_waddr = r;
      Step();
    }
    top_->tb_acc_we = 0;
  }
  ~Bench() { top_->final(); }

  // rows x N bytes into input rows [first, first + rows), both sides.
  void WriteInput(uint32_t first, const std::vector<uint8_t>& bytes) {
    const uint32_t rows = static_cast<uint32_t>(bytes.size() / kN);
    std::memcpy(memory_.data() + kInpImage + first * kN, bytes.data(), bytes.size());
    contract::LoadAct op;
    op.dram_offset = kInpImage + first * kN;
    op.sram_row = first;
    op.y_size = (rows + 63) / 64;
    op.x_size = std::min<uint32_t>(rows, 64);
    op.cb = 1;
    op.row_pitch = 64 * kN;
    op.pixel_pitch = kN;
    if (rows > 64 && rows % 64 != 0) std::abort();  // whole 64-row lines only
    ModelMust(op);
    top_->tb_inp_we = 1;
    for (uint32_t r = 0; r < rows; ++r) {
      top_->tb_inp_waddr = first + r;
      SetBytes(top_->tb_inp_wdata, &bytes[r * kN]);
      Step();
    }
    top_->tb_inp_we = 0;
  }

  void WriteWeights(const std::vector<uint8_t>& bytes) {
    std::memcpy(memory_.data() + kWgtImage, bytes.data(), bytes.size());
    contract::LoadWgt op;
    op.dram_offset = kWgtImage;
    op.rows = kWgtRows;
    ModelMust(op);
    top_->tb_wgt_we = 1;
    for (uint32_t r = 0; r < kWgtRows; ++r) {
      top_->tb_wgt_waddr = r;
      SetBytes(top_->tb_wgt_wdata, &bytes[r * kN]);
      Step();
    }
    top_->tb_wgt_we = 0;
  }

  // Runs command on both sides and checks it; returns the RTL's cycles from
  // start to done.
  uint64_t Run(const contract::Command& command, const char* what) {
    const uint64_t model_macs_before = datapath_.counters().macs;
    const ErrorCode want = datapath_.Execute(command).code;
    const uint64_t model_macs = datapath_.counters().macs - model_macs_before;
    const Footprint f = want == ErrorCode::kNone ? FootprintOf(command) : Footprint{};
    const uint64_t cycles = RunRtl(command, want, f, model_macs, what);
    if (want == ErrorCode::kNone) CompareAccumulators(f.acc_first, f.acc_rows, what);
    return cycles;
  }

  // The RTL alone, expecting error code `want`, the writes of f and model_macs.
  uint64_t RunRtl(const contract::Command& command, ErrorCode want, const Footprint& f, uint64_t model_macs,
                  const char* what) {
    const uint64_t macs_before = top_->cnt_macs;
    Vtb_compute_top& m = *top_;
    for (int w = 0; w < 8; ++w) m.cmd[w] = static_cast<uint32_t>(command[w / 2] >> (32 * (w % 2)));
    m.start = 1;
    m.eval();
    Step();
    m.start = 0;
    uint64_t cycles = 1, writes = 0;
    bool stray = false;
    for (;; ++cycles) {
      m.eval();
      if (m.done) break;
      if (!m.busy) {
        failures.Add("%s: busy low before done, cycle %llu", what, static_cast<unsigned long long>(cycles));
        break;
      }
      if (m.cu_acc_we) {
        ++writes;
        if (m.cu_acc_waddr < f.acc_first || m.cu_acc_waddr >= f.acc_first + f.acc_rows) stray = true;
      }
      // At most N cycles per tile of one pixel, plus the check and the drain.
      if (cycles > 200 + 20 * f.ideal) {
        failures.Add("%s: no done after %llu cycles", what, static_cast<unsigned long long>(cycles));
        return cycles;
      }
      Step();
    }
    const ErrorCode got = m.error ? static_cast<ErrorCode>(m.error_code) : ErrorCode::kNone;
    if (got != want || (m.error && m.error_code == 0))
      failures.Add("%s: error %s (%u), model %s", what, contract::ErrorName(got), m.error_code,
                   contract::ErrorName(want));
    if (stray)
      failures.Add("%s: an accumulator write outside rows [%u, %u)", what, f.acc_first, f.acc_first + f.acc_rows);
    if (writes != f.writes)
      failures.Add("%s: %llu accumulator writes, the model's loops make %llu", what,
                   static_cast<unsigned long long>(writes), static_cast<unsigned long long>(f.writes));
    const uint64_t macs = m.cnt_macs - macs_before;
    if (macs != model_macs)
      failures.Add("%s: %llu MACs counted, the model %llu", what, static_cast<unsigned long long>(macs),
                   static_cast<unsigned long long>(model_macs));
    Step();  // done's cycle: the enables must be low from here on
    if (m.cu_inp_re || m.cu_wgt_re || m.cu_acc_re || m.cu_acc_we) failures.Add("%s: a port enable while idle", what);
    ++commands;
    return cycles;
  }

  // Accumulator rows [first, first + rows) of the RTL and the model.
  void CompareAccumulators(uint32_t first, uint32_t rows, const char* what) {
    if (rows == 0) return;
    contract::Store op;
    op.acc_base = first;
    op.oh = rows;
    op.ow = 1;
    op.dram_offset = kScratch;
    op.row_pitch = 4 * kN;
    op.pixel_pitch = 4 * kN;
    op.out_int32 = 1;
    op.per_tensor = 1;
    ModelMust(op);
    Vtb_compute_top& m = *top_;
    m.tb_acc_re = 1;
    for (uint32_t r = 0; r <= rows; ++r) {
      if (r > 0) {
        const uint8_t* want = memory_.data() + kScratch + (r - 1) * 4 * kN;
        for (uint32_t j = 0; j < kN; ++j) {
          int32_t w;
          std::memcpy(&w, want + 4 * j, 4);
          const int32_t got = static_cast<int32_t>(m.acc_rdata[j]);
          if (got != w) failures.Add("%s: acc row %u lane %u is %d, model %d", what, first + r - 1, j, got, w);
        }
      }
      if (r < rows) {
        m.tb_acc_raddr = first + r;
        Step();
      }
    }
    m.tb_acc_re = 0;
    m.eval();
  }

  Failures failures;
  long commands = 0;
  uint64_t cycle = 0;

 private:
  void Step() {
    Tick(*top_);
    ++cycle;
  }

  template <typename Port>
  static void SetBytes(Port& port, const uint8_t* bytes) {
    for (uint32_t w = 0; w < kN / 4; ++w) {
      uint32_t word;
      std::memcpy(&word, bytes + 4 * w, 4);
      port[w] = word;
    }
  }

  template <typename Op>
  void ModelMust(const Op& op) {
    const fpga::Fault fault = datapath_.Execute(Encode(op));
    if (!fault.ok()) {
      std::printf("FATAL: model refused a testbench command: %s\n", fault.detail.c_str());
      std::abort();
    }
  }

  std::unique_ptr<Vtb_compute_top> top_;
  fpga::DeviceMemory memory_;
  fpga::Datapath datapath_;
};

uint32_t Uniform(std::mt19937& rng, uint32_t lo, uint32_t hi) { return lo + rng() % (hi - lo + 1); }

// The last input row a window reads (compute_ops.cc's Window::Check).
uint64_t LastInputRow(uint32_t in_w, uint32_t in_cb, uint32_t cb_last, uint32_t kh, uint32_t kw, uint32_t sy,
                      uint32_t sx, uint32_t dy, uint32_t dx, uint32_t oh, uint32_t ow) {
  const uint64_t y = uint64_t{oh - 1} * sy + uint64_t{kh - 1} * dy;
  const uint64_t x = uint64_t{ow - 1} * sx + uint64_t{kw - 1} * dx;
  return (y * in_w + x) * in_cb + cb_last;
}

// A random valid CONV; max_pixels bounds oh·ow.
contract::Conv RandomConv(std::mt19937& rng, uint32_t max_side) {
  for (;;) {
    contract::Conv op;
    op.kh = Uniform(rng, 1, 7);
    op.kw = Uniform(rng, 1, 7);
    op.stride_y = Uniform(rng, 1, 3);
    op.stride_x = Uniform(rng, 1, 3);
    op.dilation_y = Uniform(rng, 1, 3);
    op.dilation_x = Uniform(rng, 1, 3);
    op.oh = Uniform(rng, 1, max_side);
    op.ow = Uniform(rng, 1, max_side);
    op.cb_count = Uniform(rng, 1, 4);
    op.in_cb = Uniform(rng, op.cb_count, 4);
    op.cb_begin = Uniform(rng, 0, op.in_cb - op.cb_count);
    op.in_w = (op.ow - 1) * op.stride_x + (op.kw - 1) * op.dilation_x + 1 + Uniform(rng, 0, 3);
    const uint64_t last = LastInputRow(op.in_w, op.in_cb, op.cb_begin + op.cb_count - 1, op.kh, op.kw, op.stride_y,
                                       op.stride_x, op.dilation_y, op.dilation_x, op.oh, op.ow);
    if (last >= kInpRows) continue;
    op.inp_base = Uniform(rng, 0, static_cast<uint32_t>(kInpRows - 1 - last));
    const uint32_t wgt_rows = op.cb_count * op.kh * op.kw * kN;
    op.wgt_base = Uniform(rng, 0, kWgtRows - wgt_rows);
    op.acc_base = Uniform(rng, 0, kAccRows - op.oh * op.ow);
    op.accumulate = rng() % 2;
    op.act_unsigned = rng() % 2;
    return op;
  }
}

contract::Maxpool RandomMaxpool(std::mt19937& rng, uint32_t max_side) {
  for (;;) {
    contract::Maxpool op;
    op.kh = Uniform(rng, 1, 7);
    op.kw = Uniform(rng, 1, 7);
    op.stride_y = Uniform(rng, 1, 3);
    op.stride_x = Uniform(rng, 1, 3);
    op.dilation_y = Uniform(rng, 1, 3);
    op.dilation_x = Uniform(rng, 1, 3);
    op.oh = Uniform(rng, 1, max_side);
    op.ow = Uniform(rng, 1, max_side);
    op.in_cb = Uniform(rng, 1, 4);
    op.cb = Uniform(rng, 0, op.in_cb - 1);
    op.in_w = (op.ow - 1) * op.stride_x + (op.kw - 1) * op.dilation_x + 1 + Uniform(rng, 0, 3);
    const uint64_t last = LastInputRow(op.in_w, op.in_cb, op.cb, op.kh, op.kw, op.stride_y, op.stride_x, op.dilation_y,
                                       op.dilation_x, op.oh, op.ow);
    if (last >= kInpRows) continue;
    op.inp_base = Uniform(rng, 0, static_cast<uint32_t>(kInpRows - 1 - last));
    op.acc_base = Uniform(rng, 0, kAccRows - op.oh * op.ow);
    op.in_zp = static_cast<int32_t>(Uniform(rng, 0, 511)) - 256;
    op.act_unsigned = rng() % 2;
    return op;
  }
}

int32_t RandomMultiplier(std::mt19937& rng) {
  switch (rng() % 10) {
    case 0:
      return static_cast<int32_t>(rng());  // any int32
    case 1: {
      static const int32_t kCorners[] = {0, 1, -1, INT32_MIN, INT32_MAX, 1 << 30, -(1 << 30)};
      return kCorners[rng() % 7];
    }
    default:
      return static_cast<int32_t>((1u << 30) | (rng() & ((1u << 30) - 1)));  // what QuantizeMultiplier makes
  }
}

int32_t RandomShift(std::mt19937& rng) {
  return rng() % 4 == 0 ? static_cast<int32_t>(Uniform(rng, 0, 62)) - 31 : -static_cast<int32_t>(Uniform(rng, 0, 20));
}

contract::Add RandomAdd(std::mt19937& rng, uint32_t max_rows) {
  contract::Add op;
  op.rows = Uniform(rng, 1, max_rows);
  op.a_base = Uniform(rng, 0, kInpRows - op.rows);
  op.b_base = Uniform(rng, 0, kInpRows - op.rows);
  op.acc_base = Uniform(rng, 0, kAccRows - op.rows);
  op.a_zp = static_cast<int32_t>(Uniform(rng, 0, 511)) - 256;
  op.b_zp = static_cast<int32_t>(Uniform(rng, 0, 511)) - 256;
  op.a_multiplier = static_cast<uint32_t>(RandomMultiplier(rng));
  op.b_multiplier = static_cast<uint32_t>(RandomMultiplier(rng));
  op.a_shift = RandomShift(rng);
  op.b_shift = RandomShift(rng);
  op.act_unsigned = rng() % 2;
  return op;
}

std::vector<uint8_t> RandomBytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> bytes(n);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

// Runs commands from make() and reports them as one scenario.
void Scenario(Bench& bench, const char* name, int count, const std::function<contract::Command()>& make) {
  const long before = bench.failures.count();
  uint64_t cycles = 0;
  for (int k = 0; k < count; ++k) {
    cycles += bench.Run(make(), name);
    if (bench.commands % 32 == 0) bench.CompareAccumulators(0, kAccRows, name);
  }
  std::printf("%-10s %4d commands, %8llu cycles, %s\n", name, count, static_cast<unsigned long long>(cycles),
              bench.failures.count() == before ? "ok" : "FAILED");
}

// Every shift x corner multipliers x zero points, rows [0, 16) and [16, 32)
// holding all 256 byte values (the second in another order).
void AddSweep(Bench& bench, std::mt19937& rng) {
  std::vector<uint8_t> bytes(32 * kN);
  for (uint32_t k = 0; k < 256; ++k) {
    bytes[k] = static_cast<uint8_t>(k);
    bytes[256 + k] = static_cast<uint8_t>(k * 167 + 13);
  }
  bench.WriteInput(0, bytes);
  const int32_t multipliers[] = {0, 1, -1, INT32_MIN, INT32_MAX, 1 << 30, -(1 << 30), 3 << 29, 1 << 15};
  const int32_t zero_points[] = {-256, 255, 0, -128, 127};
  const long before = bench.failures.count();
  int count = 0;
  for (int32_t shift = -31; shift <= 31; ++shift) {
    for (int32_t m : multipliers) {
      contract::Add op;
      op.rows = 16;
      op.a_base = 0;
      op.b_base = 16;
      op.acc_base = Uniform(rng, 0, kAccRows - 16);
      op.a_zp = zero_points[count % 5];
      op.b_zp = zero_points[(count / 5 + 2) % 5];
      op.a_multiplier = static_cast<uint32_t>(m);
      op.a_shift = shift;
      op.b_multiplier = static_cast<uint32_t>(RandomMultiplier(rng));
      op.b_shift = -shift;
      op.act_unsigned = count % 2;
      bench.Run(Encode(op), "add sweep");
      ++count;
    }
  }
  std::printf("%-10s %4d commands, %s\n", "add sweep", count, bench.failures.count() == before ? "ok" : "FAILED");
}

// Invalid commands, and the limits exactly met.
void Invalid(Bench& bench, std::mt19937& rng) {
  const long before = bench.failures.count();
  int count = 0;
  auto run = [&](const contract::Command& command) {
    bench.Run(command, "invalid");
    ++count;
  };
  for (int round = 0; round < 4; ++round) {
    // CONV: each zero field, the window wider than the tile, the channel
    // blocks past in_cb, each buffer just passed and just met, two at once.
    const contract::Conv conv = RandomConv(rng, 6);
    for (uint32_t contract::Conv::*field :
         {&contract::Conv::cb_count, &contract::Conv::kh, &contract::Conv::kw, &contract::Conv::stride_y,
          &contract::Conv::stride_x, &contract::Conv::dilation_y, &contract::Conv::dilation_x, &contract::Conv::oh,
          &contract::Conv::ow}) {
      contract::Conv op = conv;
      op.*field = 0;
      run(Encode(op));
    }
    contract::Conv op = conv;
    op.in_w = (op.ow - 1) * op.stride_x + (op.kw - 1) * op.dilation_x;  // one short
    run(Encode(op));
    op = conv;
    op.in_cb = op.cb_begin + op.cb_count - 1;
    run(Encode(op));
    const uint64_t last =
        LastInputRow(conv.in_w, conv.in_cb, conv.cb_begin + conv.cb_count - 1, conv.kh, conv.kw, conv.stride_y,
                     conv.stride_x, conv.dilation_y, conv.dilation_x, conv.oh, conv.ow);
    for (uint32_t past : {0u, 1u}) {
      op = conv;
      op.inp_base = static_cast<uint32_t>(kInpRows - 1 - last + past);
      run(Encode(op));
      op = conv;
      op.wgt_base = kWgtRows - op.cb_count * op.kh * op.kw * kN + past;
      run(Encode(op));
      op = conv;
      op.acc_base = kAccRows - op.oh * op.ow + past;
      run(Encode(op));
    }
    op = conv;
    op.acc_base = 60000;
    op.kw = 0;
    run(Encode(op));  // BAD_FIELD wins over SRAM_RANGE
    op = conv;
    op.oh = op.ow = 4095;
    run(Encode(op));
    op = conv;
    op.in_w = 4095;
    op.in_cb = 255;
    op.cb_count = 255;
    op.cb_begin = 0;
    run(Encode(op));
    op = conv;
    op.inp_base = 65535;
    op.wgt_base = 65535;
    run(Encode(op));

    // MAXPOOL.
    const contract::Maxpool pool = RandomMaxpool(rng, 6);
    for (uint32_t contract::Maxpool::*field :
         {&contract::Maxpool::kh, &contract::Maxpool::kw, &contract::Maxpool::stride_y, &contract::Maxpool::stride_x,
          &contract::Maxpool::dilation_y, &contract::Maxpool::dilation_x, &contract::Maxpool::oh,
          &contract::Maxpool::ow, &contract::Maxpool::in_cb, &contract::Maxpool::in_w}) {
      contract::Maxpool p = pool;
      p.*field = 0;
      run(Encode(p));
    }
    contract::Maxpool p = pool;
    p.cb = p.in_cb;
    run(Encode(p));
    const uint64_t pool_last = LastInputRow(pool.in_w, pool.in_cb, pool.cb, pool.kh, pool.kw, pool.stride_y,
                                            pool.stride_x, pool.dilation_y, pool.dilation_x, pool.oh, pool.ow);
    for (uint32_t past : {0u, 1u}) {
      p = pool;
      p.inp_base = static_cast<uint32_t>(kInpRows - 1 - pool_last + past);
      run(Encode(p));
      p = pool;
      p.acc_base = kAccRows - p.oh * p.ow + past;
      run(Encode(p));
    }

    // ADD.
    const contract::Add add = RandomAdd(rng, 20);
    contract::Add a = add;
    a.rows = 0;
    run(Encode(a));
    a = add;
    a.a_shift = -32;
    run(Encode(a));
    a = add;
    a.b_shift = -32;
    a.acc_base = 65535;
    run(Encode(a));
    for (uint32_t past : {0u, 1u}) {
      a = add;
      a.a_base = kInpRows - a.rows + past;
      run(Encode(a));
      a = add;
      a.b_base = kInpRows - a.rows + past;
      run(Encode(a));
      a = add;
      a.acc_base = kAccRows - a.rows + past;
      run(Encode(a));
    }
  }
  // Random bits with a compute opcode: run those the model refuses, and the
  // rare valid ones when short.
  const contract::Opcode opcodes[] = {contract::Opcode::kConv, contract::Opcode::kAdd, contract::Opcode::kMaxpool};
  for (int k = 0; k < 60; ++k) {
    contract::Command command{};
    for (uint64_t& word : command) word = (uint64_t{rng()} << 32) | rng();
    command[0] = (command[0] & ~uint64_t{0xf}) | static_cast<uint64_t>(opcodes[k % 3]);
    const Footprint f = FootprintOf(command);
    if (f.ideal > 20000) continue;  // too long to simulate, were it valid
    run(command);
  }
  std::printf("%-10s %4d commands, %s\n", "invalid", count, bench.failures.count() == before ? "ok" : "FAILED");
}

// Opcodes the compute unit never gets: BAD_OPCODE (the unit's own rule; the
// model's Datapath would run the load and store ones).
void BadOpcodes(Bench& bench) {
  const long before = bench.failures.count();
  int count = 0;
  for (uint32_t opcode : {0u, 1u, 2u, 3u, 7u, 8u, 9u, 12u, 15u}) {
    contract::Command command{};
    command[0] = opcode | 0xffff'ff00u;
    command[1] = ~uint64_t{0};
    bench.RunRtl(command, ErrorCode::kBadOpcode, Footprint{}, 0, "opcode");
    ++count;
  }
  std::printf("%-10s %4d opcodes, %s\n", "opcode", count, bench.failures.count() == before ? "ok" : "FAILED");
}

struct Shape {
  const char* name;
  uint32_t kh, kw, oh, ow, cb_count;
};

void Efficiency(Bench& bench, std::mt19937& rng) {
  const Shape shapes[] = {
      {"3x3 P=196 cb=4", 3, 3, 14, 14, 4}, {"3x3 P=196 cb=1", 3, 3, 14, 14, 1}, {"1x1 P=196 cb=4", 1, 1, 14, 14, 4},
      {"3x3 P=64 cb=4", 3, 3, 8, 8, 4},    {"3x3 P=64 cb=1", 3, 3, 8, 8, 1},    {"1x1 P=1024 cb=1", 1, 1, 32, 32, 1},
      {"1x1 P=16 cb=4", 1, 1, 4, 4, 4},    {"3x3 P=9 cb=4", 3, 3, 3, 3, 4},     {"7x7 P=256 cb=1", 7, 7, 16, 16, 1},
  };
  std::printf("efficiency: cycles start -> done vs ideal cb_count*kh*kw*P (tiles of P < N take N cycles)\n");
  for (const Shape& s : shapes) {
    contract::Conv op;
    op.kh = s.kh;
    op.kw = s.kw;
    op.stride_y = op.stride_x = op.dilation_y = op.dilation_x = 1;
    op.oh = s.oh;
    op.ow = s.ow;
    op.cb_count = s.cb_count;
    op.in_cb = s.cb_count;
    op.in_w = s.ow + s.kw - 1;
    op.accumulate = 1;
    op.act_unsigned = rng() % 2;
    const uint64_t cycles = bench.Run(Encode(op), s.name);
    const uint64_t ideal = uint64_t{s.cb_count} * s.kh * s.kw * s.oh * s.ow;
    std::printf("  CONV %-16s %6llu cycles, ideal %6llu: %5.1f %%\n", s.name, static_cast<unsigned long long>(cycles),
                static_cast<unsigned long long>(ideal), 100.0 * ideal / cycles);
  }
  contract::Maxpool pool;
  pool.kh = pool.kw = 3;
  pool.stride_y = pool.stride_x = pool.dilation_y = pool.dilation_x = 1;
  pool.oh = pool.ow = 14;
  pool.in_cb = 1;
  pool.in_w = 16;
  uint64_t cycles = bench.Run(Encode(pool), "maxpool");
  std::printf("  MAXPOOL 3x3 P=196      %6llu cycles, ideal %6d: %5.1f %%\n", static_cast<unsigned long long>(cycles),
              196 * 9, 100.0 * 196 * 9 / cycles);
  contract::Add add;
  add.rows = 196;
  add.b_base = 1000;
  add.a_multiplier = add.b_multiplier = 1 << 30;
  cycles = bench.Run(Encode(add), "add");
  std::printf("  ADD rows=196           %6llu cycles: %.2f cycles per row\n", static_cast<unsigned long long>(cycles),
              cycles / 196.0);
}

}  // namespace

int Run() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::mt19937 rng(20240612);
  const auto start = std::chrono::steady_clock::now();
  Bench bench;
  bench.WriteInput(0, RandomBytes(kInpRows * kN, rng));
  bench.WriteWeights(RandomBytes(kWgtRows * kN, rng));

  Scenario(bench, "conv", 300, [&] { return Encode(RandomConv(rng, rng() % 4 == 0 ? 24 : 8)); });
  Scenario(bench, "maxpool", 100, [&] { return Encode(RandomMaxpool(rng, rng() % 4 == 0 ? 24 : 8)); });
  Scenario(bench, "add", 100, [&] { return Encode(RandomAdd(rng, rng() % 4 == 0 ? 300 : 40)); });
  AddSweep(bench, rng);
  bench.WriteInput(0, RandomBytes(32 * kN, rng));
  Invalid(bench, rng);
  BadOpcodes(bench);
  Scenario(bench, "mixed", 200, [&] {
    switch (rng() % 3) {
      case 0:
        return Encode(RandomConv(rng, 8));
      case 1:
        return Encode(RandomMaxpool(rng, 8));
      default:
        return Encode(RandomAdd(rng, 40));
    }
  });
  Efficiency(bench, rng);
  bench.CompareAccumulators(0, kAccRows, "final");

  const double seconds = SecondsSince(start);
  std::printf("%ld commands, %llu cycles in %.2f s (%.0f cycles/s)\n", bench.commands,
              static_cast<unsigned long long>(bench.cycle), seconds, bench.cycle / seconds);
  if (bench.failures.count() != 0) {
    std::printf("compute_unit: %ld mismatches\n", bench.failures.count());
    return 1;
  }
  std::printf("compute_unit: every command matches the model\n");
  return 0;
}

}  // namespace hw_tb
}  // namespace loom
