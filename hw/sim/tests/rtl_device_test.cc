// The whole accelerator (RtlDevice: loom_accel_top Verilated, on the AXI DDR
// model) against the functional model and the int64 references of the
// lowering tests: randomized Conv, Gemm, Add and MaxPool layers lowered by
// kernels/fpga/lowering run on both, and every byte of DRAM after the run
// must match (outputs, padding channels, guard bands), as must the DMA byte
// counts; the Bench compares the model with the reference. Bad streams must
// end with the model's ERROR and ERROR_CMD, ap_done and no hang.
//
// Suites: RtlDevice* run in CI (ctest hw.rtl_device, small sizes);
// RtlDeviceLong* (ctest hw.rtl_device_long, label hw-long) run thousands of
// layers (scaled by $LOOM_FPGA_LONG) and the ResNet-18 convolutions at
// 224x224 with per-layer cycles and utilization; RtlDeviceTest.LongSpeed
// measures the simulation speed (hw/README.md, Simulation speed):
//   LOOM_FPGA_LONG=1 loom_hw_rtl_device_test --gtest_filter='*LongSpeed*'
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hw/sim/host_device_memory.h"
#include "hw/sim/rtl_device.h"
#include "kernels/fpga/lowering/lowering.h"
#include "kernels/fpga/lowering/testing/lowering_test_util.h"
#include "kernels/fpga/model/little_endian.h"
#include "kernels/fpga/model/testing/model_test_util.h"
#include "kernels/fpga/perf/cycle_model.h"

namespace loom {
namespace hw_sim {
namespace {

namespace c = fpga::contract;
namespace lt = fpga::lowering::testing;
using fpga::DeviceMemory;
using fpga::RunArgs;
using fpga::RunResult;

const c::AccelConfig& Pynq() { return *c::FindConfig("pynq_z2"); }

// RtlDevice as the Bench's second device. Each run gets a fresh device on a
// memory of exactly the Bench's size and base (so an access outside it is a
// bus error on both), with AXI back-pressure chosen and seeded by the run's
// schedule seed. Counts runs and simulated cycles for the speed report.
class RtlSecondDevice : public lt::SecondDevice {
 public:
  struct RunRecord {
    RtlCounters counters;
    uint64_t cycles_simulated = 0;    // since the device was made (reset and register accesses included)
    uint64_t run_cycles = 0;          // within RtlDevice::Run
    double seconds = 0;               // wall time of RtlDevice::Run
    bool back_pressure = false;       // the DDR model stalled at random
    fpga::perf::CycleEstimate model;  // the analytic cycle model's prediction of the same run
  };

  ~RtlSecondDevice() override { Release(); }

  RunResult Run(const RunArgs& args, DeviceMemory* memory) override {
    Release();
    dram_ = std::make_unique<HostDeviceMemory>(memory->size(), memory->base());
    std::copy(memory->data(), memory->data() + memory->size(), dram_->host().data());
    EXPECT_TRUE(dram_->SyncToDevice(memory->base(), memory->size()).ok());
    // Back-pressure by seed: none, light, heavy.
    static constexpr double kStall[] = {0.0, 0.05, 0.3};
    RtlDeviceOptions options;
    options.ddr.arready_stall = options.ddr.awready_stall = kStall[args.schedule_seed % 3];
    options.ddr.wready_stall = options.ddr.rvalid_gap = kStall[args.schedule_seed % 3];
    options.trace_name = TraceName();
    device_ = std::make_unique<RtlDevice>(Pynq(), dram_.get(), options);
    RunResult result;
    const uint64_t cycles_before = device_->simulated_cycles();
    const auto start = std::chrono::steady_clock::now();
    const Status status = device_->status().ok() ? device_->Run(args, &result) : device_->status();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_TRUE(dram_->SyncFromDevice(memory->base(), memory->size()).ok());
    std::copy(dram_->host().data(), dram_->host().data() + memory->size(), memory->data());
    last_ = {device_->counters(), device_->simulated_cycles(), device_->simulated_cycles() - cycles_before, seconds,
             args.schedule_seed % 3 != 0, Estimate(args, *memory, options.ddr)};
    if (!last_.back_pressure && last_.counters.cycles > 0 && result.ok()) RecordModelError();
    ++runs_;
    cycles_ += last_.cycles_simulated;
    seconds_ += seconds;
    return result;
  }

  const RunRecord& last() const { return last_; }
  // The cycle model against the RTL over the runs without back-pressure:
  // count, largest and mean |model − RTL| / RTL.
  int model_runs() const { return model_runs_; }
  double model_max_error() const { return model_max_error_; }
  double model_mean_error() const { return model_runs_ == 0 ? 0.0 : model_error_sum_ / model_runs_; }
  int runs() const { return runs_; }
  uint64_t cycles() const { return cycles_; }
  double seconds() const { return seconds_; }

 private:
  static std::string TraceName() {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    return test != nullptr ? std::string(test->test_suite_name()) + "." + test->name() : "rtl_device";
  }

  // The stream as the device reads it, through the cycle model with the DDR
  // model's timing.
  static fpga::perf::CycleEstimate Estimate(const RunArgs& args, const DeviceMemory& memory,
                                            const AxiDdrConfig& ddr) {
    fpga::perf::CycleEstimate estimate;
    std::vector<uint8_t> bytes(size_t{args.count} * c::kCommandBytes);
    if (!memory.Read(args.cmd_addr, bytes.data(), bytes.size()).ok()) return estimate;
    std::vector<c::Command> commands;
    for (size_t at = 0; at < bytes.size(); at += c::kCommandBytes)
      commands.push_back(fpga::CommandFromBytes(&bytes[at]));
    fpga::perf::CycleModelOptions options;
    options.dram.read_latency = ddr.read_latency;
    options.dram.write_latency = ddr.write_latency;
    options.dram.max_outstanding = ddr.max_outstanding;
    options.base = args.base;
    if (!fpga::perf::EstimateCycles(Pynq(), commands, options, &estimate).ok()) estimate = {};
    return estimate;
  }

  void RecordModelError() {
    const double rtl = static_cast<double>(last_.counters.cycles);
    const double error = std::abs(static_cast<double>(last_.model.cycles) - rtl) / rtl;
    model_max_error_ = std::max(model_max_error_, error);
    model_error_sum_ += error;
    ++model_runs_;
    if (std::getenv("LOOM_PERF_DEBUG") != nullptr) {  // per run, for tuning the model
      const RtlCounters& k = last_.counters;
      const fpga::perf::CycleEstimate& m = last_.model;
      auto ull = [](uint64_t v) { return static_cast<unsigned long long>(v); };
      std::printf("perf: cycles rtl %llu model %llu (%+.1f %%) | busy rtl/model: load %llu/%llu compute %llu/%llu "
                  "store %llu/%llu\n",
                  ull(k.cycles), ull(m.cycles), 100.0 * (static_cast<double>(m.cycles) - rtl) / rtl,
                  ull(k.load_busy), ull(m.busy[0]), ull(k.compute_busy), ull(m.busy[1]), ull(k.store_busy),
                  ull(m.busy[2]));
    }
  }

  // Ends the last run's device, keeping its trace (with LOOM_HW_TRACE) if the
  // test has failed by now: the Bench compares the memory after Run returns.
  void Release() {
    if (device_ != nullptr && ::testing::Test::HasFailure()) device_->KeepTrace();
    device_.reset();
    dram_.reset();
  }

  std::unique_ptr<HostDeviceMemory> dram_;
  std::unique_ptr<RtlDevice> device_;
  RunRecord last_;
  int runs_ = 0;
  uint64_t cycles_ = 0;
  double seconds_ = 0;
  int model_runs_ = 0;
  double model_max_error_ = 0, model_error_sum_ = 0;
};

// Installs an RtlSecondDevice for the test; at the end prints the layers
// that matched and the simulation speed.
class RtlDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { lt::SetSecondDevice(&rtl_); }
  void TearDown() override {
    lt::SetSecondDevice(nullptr);
    if (layers_ > 0 && !HasFailure())
      std::printf("%d layers bit-identical: model = RTL = reference\n", layers_);
    if (rtl_.runs() > 0) {
      std::printf("RTL: %d runs, %.2f M cycles simulated in %.1f s: %.2f M cycles/s (Verilator %s)\n", rtl_.runs(),
                  rtl_.cycles() / 1e6, rtl_.seconds(), rtl_.cycles() / 1e6 / rtl_.seconds(),
                  RtlDevice::VerilatorFlags());
    }
    if (rtl_.model_runs() > 0) {
      std::printf("cycle model vs RTL over %d runs without back-pressure: mean error %.1f %%, largest %.1f %%\n",
                  rtl_.model_runs(), 100 * rtl_.model_mean_error(), 100 * rtl_.model_max_error());
      // The placer trusts the model: it must stay within 10 % of the RTL.
      EXPECT_LE(rtl_.model_max_error(), 0.10) << "the cycle model (kernels/fpga/perf) drifted from the RTL";
    }
  }

  // One seed per layer: the RTL simulation is slow, the model's seed sweep is
  // the lowering tests' job. A nonzero seed varies the AXI back-pressure.
  void ExpectConv(const lt::ConvCase& c, uint64_t seed) {
    EXPECT_TRUE(lt::RunConvCase(Pynq(), c, {seed}));
    ++layers_;
  }

  RtlSecondDevice rtl_;
  int layers_ = 0;
};

// A Conv case of a given shape with random values.
lt::ConvCase ConvOf(int c_in, int h, int w, int c_out, int k, int stride, int pad, bool act_unsigned,
                    std::mt19937* rng) {
  lt::ConvCase c;
  fpga::testing::ConvLayer& l = c.ref;
  l.c_in = c_in;
  l.h = h;
  l.w = w;
  l.c_out = c_out;
  l.kh = l.kw = k;
  l.stride_y = l.stride_x = stride;
  l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = pad;
  l.act_unsigned = act_unsigned;
  c.out_unsigned = act_unsigned;
  c.name = std::to_string(c_in) + "x" + std::to_string(h) + "x" + std::to_string(w) + " -> " + std::to_string(c_out) +
           " k" + std::to_string(k) + " s" + std::to_string(stride) + " p" + std::to_string(pad);
  lt::RandomizeValues(&c, rng);
  return c;
}

TEST_F(RtlDeviceTest, OneConvBitExact) {
  std::mt19937 rng(1);
  ExpectConv(ConvOf(24, 10, 9, 20, 3, 1, 1, false, &rng), 0);
  // The counters: every unit worked, within the run.
  const RtlCounters& k = rtl_.last().counters;
  EXPECT_GT(k.cycles, 0u);
  for (uint64_t busy : {k.load_busy, k.compute_busy, k.store_busy}) {
    EXPECT_GT(busy, 0u);
    EXPECT_LE(busy, k.cycles);
  }
  EXPECT_LE(k.compute_stall, k.cycles);
  EXPECT_GT(k.dma_read_bytes, 0u);
  EXPECT_GT(k.dma_write_bytes, 0u);
}

// ResNet-18's convolution shapes (every distinct one, conv1 both as the
// network has it and as the space-to-depth stem the builder lowers) at an
// eighth of their spatial size: the network's channel counts, so the same
// tiles, K chunks and weight streaming, in a few million cycles.
TEST_F(RtlDeviceTest, ResNet18ConvShapes) {
  std::mt19937 rng(19);
  uint64_t seed = 1;
  for (const lt::ResNetConv& r : lt::ResNet18ConvShapes(8)) {
    SCOPED_TRACE(r.name);
    ExpectConv(lt::ResNetConvCase(r, &rng), seed++);
  }
}

// kSmall: spatial <= 16, channels <= 48, kernels 1..7, strides 1..3,
// dilation, padding, int8/uint8, int32 outputs sometimes.
TEST_F(RtlDeviceTest, RandomConvs) {
  std::mt19937 rng(2);
  for (int i = 0; i < 150; ++i) {
    const lt::ConvCase c = lt::RandomConvCase(Pynq(), lt::ConvProfile::kSmall, &rng);
    SCOPED_TRACE(c.name);
    ExpectConv(c, i + 1);
  }
}

// 64..128 channels, several tiles, K split into chunks, weights not resident,
// parameters reloaded per block (kWide: up to 512 channels).
TEST_F(RtlDeviceTest, WideAndTiledConvs) {
  std::mt19937 rng(3);
  ExpectConv(ConvOf(64, 12, 12, 64, 3, 1, 1, false, &rng), 1);
  ExpectConv(ConvOf(100, 9, 11, 72, 3, 2, 1, true, &rng), 2);
  ExpectConv(ConvOf(128, 7, 7, 128, 1, 1, 0, false, &rng), 3);
  ExpectConv(ConvOf(72, 10, 9, 112, 3, 1, 0, true, &rng), 4);
  ExpectConv(ConvOf(3, 40, 40, 24, 7, 2, 3, true, &rng), 5);  // a stem: 3 channels padded to N
  for (int i = 0; i < 6; ++i) {
    const lt::ConvCase medium = lt::RandomConvCase(Pynq(), lt::ConvProfile::kMedium, &rng);
    SCOPED_TRACE(medium.name);
    ExpectConv(medium, 10 + i);
    const lt::ConvCase wide = lt::RandomConvCase(Pynq(), lt::ConvProfile::kWide, &rng);
    SCOPED_TRACE(wide.name);
    ExpectConv(wide, 20 + i);
  }
}

TEST_F(RtlDeviceTest, RandomGemms) {
  std::mt19937 rng(4);
  for (int i = 0; i < 20; ++i) {
    const lt::ConvCase c = lt::RandomConvCase(Pynq(), lt::ConvProfile::kGemm, &rng);
    SCOPED_TRACE(c.name);
    ExpectConv(c, i + 1);
  }
}

TEST_F(RtlDeviceTest, RandomAddsAndMaxPools) {
  std::mt19937 rng(5);
  for (int i = 0; i < 30; ++i) {
    const lt::AddCase add = lt::RandomAddCase(Pynq(), &rng);
    EXPECT_TRUE(lt::RunAddCase(Pynq(), add, {uint64_t(i) + 1})) << add.layer.name;
    const lt::MaxPoolCase pool = lt::RandomMaxPoolCase(Pynq(), &rng);
    EXPECT_TRUE(lt::RunMaxPoolCase(Pynq(), pool, {uint64_t(i) + 1})) << pool.layer.name;
    layers_ += 2;
  }
}

// ---------------------------------------------------------------- bad streams

// A stream on the model's harness memory, run on the model and on the RTL
// with a copy of the memory: the same ERROR and ERROR_CMD, and done.
class RtlDeviceErrorTest : public ::testing::Test {
 protected:
  void ExpectSameError(c::ErrorCode code, uint32_t index, uint64_t cmd_addr_offset = 0) {
    uint64_t cmd_addr = 0;
    ASSERT_TRUE(fpga::WriteStream(s_, &m_.memory(), &cmd_addr).ok());
    const RunArgs args = m_.Args(cmd_addr + cmd_addr_offset, static_cast<uint32_t>(s_.size()));
    DeviceMemory copy(m_.memory().size(), m_.memory().base());
    std::copy(m_.memory().data(), m_.memory().data() + copy.size(), copy.data());
    RunResult model;
    ASSERT_TRUE(m_.model().Run(args, &model).ok());
    EXPECT_EQ(model.error, code) << model.error_detail;
    EXPECT_EQ(model.error_cmd, index) << model.error_detail;
    const RunResult rtl = rtl_.Run(args, &copy);
    EXPECT_EQ(rtl.error, model.error) << "RTL: " << rtl.error_detail << "; model: " << model.error_detail;
    EXPECT_EQ(rtl.error_cmd, model.error_cmd) << "RTL: " << rtl.error_detail << "; model: " << model.error_detail;
  }

  void Good() {  // two good commands first
    fpga::testing::Append(&s_, fpga::testing::TinyLoad(data_));
    fpga::testing::Append(&s_, fpga::testing::TinyConv());
  }

  fpga::testing::ModelHarness m_{Pynq(), size_t{1} << 20};
  const uint32_t data_ = m_.Reserve(64 * 1024);
  std::vector<c::Command> s_;
  RtlSecondDevice rtl_;
};

TEST_F(RtlDeviceErrorTest, UnknownOpcode) {
  for (uint64_t opcode : {0, 8, 15}) {
    s_.clear();
    Good();
    c::Command bad{};
    c::SetBits(bad, c::kOpcodeField.lsb, c::kOpcodeField.width, opcode);
    s_.push_back(bad);
    fpga::testing::Append(&s_, fpga::testing::TinyConv());
    ExpectSameError(c::ErrorCode::kBadOpcode, 2);
  }
}

TEST_F(RtlDeviceErrorTest, FlagTowardAMissingNeighbour) {
  Good();
  c::Store store = fpga::testing::TinyStore(data_);
  store.deps.push_next = true;
  fpga::testing::Append(&s_, store);
  ExpectSameError(c::ErrorCode::kBadTokens, 2);
}

TEST_F(RtlDeviceErrorTest, MisalignedAddresses) {
  Good();
  fpga::testing::Append(&s_, fpga::testing::TinyLoad(data_ + 4));
  ExpectSameError(c::ErrorCode::kMisaligned, 2);
  // The command stream itself: command 0, also when it is empty.
  s_.clear();
  Good();
  ExpectSameError(c::ErrorCode::kMisaligned, 0, 8);
  s_.clear();
  ExpectSameError(c::ErrorCode::kMisaligned, 0, 16);
}

TEST_F(RtlDeviceErrorTest, TokenDeadlock) {
  // CONV waits for a load->compute token no load pushes; the load behind it
  // can run, the store waits for the CONV's.
  c::Conv conv = fpga::testing::TinyConv();
  conv.deps.pop_prev = true;
  conv.deps.push_next = true;
  fpga::testing::Append(&s_, conv);
  fpga::testing::Append(&s_, fpga::testing::TinyLoad(data_));
  c::Store store = fpga::testing::TinyStore(data_);
  store.deps.pop_prev = true;
  fpga::testing::Append(&s_, store);
  ExpectSameError(c::ErrorCode::kDeadlock, 0);
}

TEST_F(RtlDeviceErrorTest, FullTokenFifoDeadlock) {
  // queue_depth + 1 loads push load->compute tokens nobody takes: the last
  // one cannot start (its push would overflow), then a CONV that pops from
  // the store never gets its token.
  for (uint32_t i = 0; i <= Pynq().queue_depth; ++i) {
    c::LoadWgt load = fpga::testing::TinyLoad(data_);
    load.deps.push_next = true;
    fpga::testing::Append(&s_, load);
  }
  ExpectSameError(c::ErrorCode::kDeadlock, Pynq().queue_depth);
}

TEST_F(RtlDeviceErrorTest, SramRangeAndBadField) {
  Good();
  c::LoadWgt past = fpga::testing::TinyLoad(data_);
  past.sram_row = Pynq().wgt_rows - 1;
  past.rows = 2;
  fpga::testing::Append(&s_, past);
  ExpectSameError(c::ErrorCode::kSramRange, 2);
  s_.clear();
  Good();
  c::LoadWgt none = fpga::testing::TinyLoad(data_);
  none.rows = 0;
  fpga::testing::Append(&s_, none);
  ExpectSameError(c::ErrorCode::kBadField, 2);
}

// A read (load unit) and a write (store unit) outside the memory: DECERR.
// (A command stream running past the memory's end is a bus error too, but
// the RTL names the first command of the failing burst, the model the first
// command outside.)
TEST_F(RtlDeviceErrorTest, BusErrorOutsideMemory) {
  const uint32_t outside = static_cast<uint32_t>(m_.memory().size()) + 4096;
  Good();
  fpga::testing::Append(&s_, fpga::testing::TinyLoad(outside));
  ExpectSameError(c::ErrorCode::kBusError, 2);
  s_.clear();
  Good();
  c::Store store = fpga::testing::TinyStore(outside);
  fpga::testing::Append(&s_, store);
  ExpectSameError(c::ErrorCode::kBusError, 2);
}

// The device itself: a configuration it was not built for, and a run cut
// short by max_cycles, are failed Statuses, not hangs or device errors.
TEST(RtlDeviceApiTest, OtherConfigurationIsUnsupported) {
  HostDeviceMemory dram(1 << 16);
  RtlDevice device(*c::FindConfig("kv260"), &dram);
  EXPECT_EQ(device.status().code(), StatusCode::kUnsupported) << device.status().message();
  RunResult result;
  EXPECT_FALSE(device.Run(RunArgs(), &result).ok());
}

TEST(RtlDeviceApiTest, TimeoutIsAFailedStatus) {
  fpga::testing::ModelHarness m(Pynq(), size_t{1} << 20);
  const uint32_t data = m.Reserve(4096);
  std::vector<c::Command> s;
  fpga::testing::Append(&s, fpga::testing::TinyLoad(data));
  uint64_t cmd_addr = 0;
  ASSERT_TRUE(fpga::WriteStream(s, &m.memory(), &cmd_addr).ok());
  HostDeviceMemory dram(m.memory().size(), m.memory().base());
  std::copy(m.memory().data(), m.memory().data() + m.memory().size(), dram.host().data());
  ASSERT_TRUE(dram.SyncToDevice(dram.base(), dram.size()).ok());
  RtlDeviceOptions options;
  options.max_cycles = 20;  // the store unit alone clears its parameters for longer
  RtlDevice device(Pynq(), &dram, options);
  ASSERT_TRUE(device.status().ok()) << device.status().message();
  RunResult result;
  const Status status = device.Run(m.Args(cmd_addr, 1), &result);
  EXPECT_EQ(status.code(), StatusCode::kDeviceError);
  EXPECT_NE(status.message().find("did not finish within 20 cycles"), std::string::npos) << status.message();
}

// ---------------------------------------------------------------- long runs (hw-long)

TEST_F(RtlDeviceTest, LongRandomLayers) {
  if (std::getenv("LOOM_FPGA_LONG") == nullptr) GTEST_SKIP() << "set LOOM_FPGA_LONG to run";
  std::mt19937 rng(6);
  const int rounds = 100 * lt::LongRunFactor();
  for (int i = 0; i < rounds && !HasFailure(); ++i) {
    const lt::ConvProfile profile = i % 5 == 4 ? lt::ConvProfile::kGemm
                                    : i % 5 == 3 ? lt::ConvProfile::kMedium
                                                 : lt::ConvProfile::kSmall;
    const lt::ConvCase c = lt::RandomConvCase(Pynq(), profile, &rng);
    SCOPED_TRACE(c.name);
    ExpectConv(c, i + 1);
    if (i % 4 == 0) {
      const lt::AddCase add = lt::RandomAddCase(Pynq(), &rng);
      EXPECT_TRUE(lt::RunAddCase(Pynq(), add, {uint64_t(i) + 1})) << add.layer.name;
      const lt::MaxPoolCase pool = lt::RandomMaxPoolCase(Pynq(), &rng);
      EXPECT_TRUE(lt::RunMaxPoolCase(Pynq(), pool, {uint64_t(i) + 1})) << pool.layer.name;
      layers_ += 2;
    }
  }
}

// The simulation speed on the reference layer of hw/README.md (Simulation
// speed): 64x28x28 -> 64, 3x3, stride 1, padding 1, no AXI back-pressure
// (seed 0). Simulated cycles per wall second of RtlDevice::Run, for each of
// kRuns runs and the best and median of them (the machine may be shared).
TEST_F(RtlDeviceTest, LongSpeed) {
  if (std::getenv("LOOM_FPGA_LONG") == nullptr) GTEST_SKIP() << "set LOOM_FPGA_LONG to run";
  constexpr int kRuns = 3;
  std::vector<double> speeds;
  for (int i = 0; i < kRuns && !HasFailure(); ++i) {
    std::mt19937 rng(28);
    ExpectConv(ConvOf(64, 28, 28, 64, 3, 1, 1, false, &rng), 0);
    const RtlSecondDevice::RunRecord& r = rtl_.last();
    speeds.push_back(r.run_cycles / 1e6 / r.seconds);
    std::printf("speed run %d: %llu cycles in %.3f s: %.3f M cycles/s\n", i + 1,
                static_cast<unsigned long long>(r.run_cycles), r.seconds, speeds.back());
  }
  std::sort(speeds.begin(), speeds.end());
  if (!speeds.empty()) {
    std::printf("speed 64x28x28 -> 64 3x3: best %.3f, median %.3f M cycles/s of %zu runs (Verilator %s)\n",
                speeds.back(), speeds[speeds.size() / 2], speeds.size(), RtlDevice::VerilatorFlags());
  }
}

// ResNet-18's convolutions, max pooling and residual Adds at 224x224 on the
// RTL (DDR model: one 64-bit HP port, 40 cycles of read latency, 4 bursts in
// flight, no back-pressure): cycles per layer, utilization = MACs / (N² ·
// cycles), the time at the configuration's clock, and the analytic cycle
// model's prediction, which must be within 10 % of the RTL on every layer.
TEST_F(RtlDeviceTest, LongResNet18Layers) {
  if (std::getenv("LOOM_FPGA_LONG") == nullptr) GTEST_SKIP() << "set LOOM_FPGA_LONG to run";
  const c::AccelConfig& config = Pynq();
  std::mt19937 rng(18);
  const double n2 = double(config.n) * config.n;
  const double cycles_per_ms = config.clock_mhz * 1e3;
  uint64_t conv_cycles = 0, rest_cycles = 0, model_conv_cycles = 0, all_cycles = 0, model_all_cycles = 0;
  double max_error = 0;
  std::printf("%-20s %8s %10s %7s %8s %10s %8s %9s %9s %9s\n", "layer", "MMAC", "cycles", "util %", "ms",
              "model", "error %", "load", "compute", "store");
  auto report = [&](const std::string& name, uint64_t macs) {
    const RtlSecondDevice::RunRecord& run = rtl_.last();
    const uint64_t cycles = run.counters.cycles;
    const double error = (double(run.model.cycles) - double(cycles)) / double(cycles);
    max_error = std::max(max_error, std::abs(error));
    EXPECT_LE(std::abs(error), 0.10) << name << ": model " << run.model.cycles << " cycles, RTL " << cycles;
    all_cycles += cycles;
    model_all_cycles += run.model.cycles;
    std::printf("%-20s %8.1f %10llu %7.1f %8.3f %10llu %+8.1f %9llu %9llu %9llu\n", name.c_str(), macs / 1e6,
                static_cast<unsigned long long>(cycles), macs == 0 ? 0.0 : 100.0 * macs / (n2 * cycles),
                cycles / cycles_per_ms, static_cast<unsigned long long>(run.model.cycles), 100 * error,
                static_cast<unsigned long long>(run.counters.load_busy),
                static_cast<unsigned long long>(run.counters.compute_busy),
                static_cast<unsigned long long>(run.counters.store_busy));
    std::fflush(stdout);
    return cycles;
  };
  for (const lt::ResNetConv& r : lt::ResNet18Convs()) {
    const lt::ConvCase c = lt::ResNetConvCase(r, &rng);
    fpga::lowering::ProgramStats stats;
    EXPECT_TRUE(lt::RunConvCase(config, c, {0}, &stats)) << r.name;
    ++layers_;
    const uint64_t cycles = report(r.name, stats.macs);
    conv_cycles += cycles;
    model_conv_cycles += rtl_.last().model.cycles;
    if (&r != &lt::ResNet18Convs().front()) rest_cycles += cycles;
  }
  uint64_t stem_cycles = 0;
  {
    const lt::ResNetConv stem = lt::ResNet18SpaceToDepthStem();
    fpga::lowering::ProgramStats stats;
    EXPECT_TRUE(lt::RunConvCase(config, lt::ResNetConvCase(stem, &rng), {0}, &stats)) << stem.name;
    ++layers_;
    stem_cycles = report(stem.name, stats.macs);
  }
  const lt::MaxPoolCase pool = lt::ResNet18MaxPool(&rng);
  EXPECT_TRUE(lt::RunMaxPoolCase(config, pool, {0}));
  ++layers_;
  report(pool.layer.name, 0);
  for (const auto& [name, add] : lt::ResNet18Adds(&rng)) {
    EXPECT_TRUE(lt::RunAddCase(config, add, {0})) << name;
    ++layers_;
    report(name, 0);
  }
  std::printf("ResNet-18 convs: %.2f ms at %u MHz, without conv1 %.2f ms (goal <= 95 ms); model %.2f ms (%+.1f %%)\n",
              conv_cycles / cycles_per_ms, config.clock_mhz, rest_cycles / cycles_per_ms,
              model_conv_cycles / cycles_per_ms, 100.0 * (double(model_conv_cycles) - conv_cycles) / conv_cycles);
  std::printf("with the space-to-depth stem instead of conv1: %.2f ms\n",
              (rest_cycles + stem_cycles) / cycles_per_ms);
  std::printf("all %d layers: RTL %.2f ms, model %.2f ms; largest model error on a layer %.1f %%\n", layers_,
              all_cycles / cycles_per_ms, model_all_cycles / cycles_per_ms, 100 * max_error);
}

}  // namespace
}  // namespace hw_sim
}  // namespace loom
