// The accelerator's memory system (hw/sim/tests/tb_dma_top.sv: three read
// clients -> dma_read_arbiter -> axi_dma_read, one write client ->
// axi_dma_write) against AxiDdrModel: random requests (aligned addresses,
// many next to 4 KB boundaries, 8 B to 64 KB) with random back-pressure,
// latencies and outstanding limits. Checked: every read beat byte for byte
// against device memory and routed to the port that asked, data_last, the
// bursts exactly as the splitting rule says, writes landing exactly, req_done
// one cycle after a request's last B and never early, the byte counters,
// SLVERR -> bus_error, misaligned requests -> req_error, no AXI rule broken.
// Also measures read and write bandwidth at 40 cycles latency.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vtb_dma_top.h"
#include "hw/sim/axi_ddr_model.h"
#include "hw/sim/host_device_memory.h"
#include "hw/sim/verilated_harness.h"

namespace loom {
namespace hw_sim {
namespace {

constexpr unsigned kBeat = 8;  // DATA_BITS 64
constexpr int kPorts = 3;
constexpr uint64_t kBase = fpga::DeviceMemory::kDefaultBase;
constexpr uint64_t kPortRegion = 1 << 20;               // read port p reads [kBase + p MiB, +1 MiB)
constexpr uint64_t kWriteBase = kBase + kPorts * kPortRegion;
constexpr uint64_t kWriteRegion = 1 << 20;
constexpr size_t kMemoryBytes = kPorts * kPortRegion + kWriteRegion;

using Harness = VerilatedHarness<Vtb_dma_top>;

struct Request {
  uint64_t addr;
  uint32_t bytes;
};

struct Burst {
  uint64_t addr;
  unsigned beats;
  bool operator==(const Burst& o) const { return addr == o.addr && beats == o.beats; }
};

// The splitting rule of hw/rtl/axi_burst_issue.sv: 16 beats, shortened only
// where a 4 KB page or the request ends.
std::vector<Burst> SplitBursts(const Request& r) {
  std::vector<Burst> bursts;
  uint64_t addr = r.addr, beats_left = r.bytes / kBeat;
  while (beats_left > 0) {
    const uint64_t to_page = (4096 - addr % 4096) / kBeat;
    const unsigned beats = static_cast<unsigned>(std::min<uint64_t>({16, to_page, beats_left}));
    bursts.push_back({addr, beats});
    addr += beats * kBeat;
    beats_left -= beats;
  }
  return bursts;
}

void SetBit(CData& port, int bit, bool value) {
  port = static_cast<CData>(value ? port | 1u << bit : port & ~(1u << bit));
}
bool GetBit(CData port, int bit) { return port >> bit & 1; }

// Limits failure floods from per-cycle checks to the first few messages.
struct FailureBudget {
  int left = 10;
  bool Take() { return left-- > 0; }
};

bool Chance(std::mt19937& rng, double probability) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < probability;
}

// Read client on arbiter port `port`: presents queued requests and checks
// every beat it gets against device memory.
class ReadClient : public ClockedComponent {
 public:
  ReadClient(Vtb_dma_top& top, int port, HostDeviceMemory& memory, std::vector<Request>& grants,
             FailureBudget& failures, uint32_t seed)
      : top_(top), port_(port), memory_(memory), grants_(grants), failures_(failures), rng_(seed) {}

  double request_rate = 0.5;  // chance per idle cycle of presenting the next request
  double ready_rate = 1.0;    // chance per cycle of rsp_ready

  void Queue(const Request& r) {
    queue_.push_back(r);
    bytes_queued_ += r.bytes;
  }
  bool Done() const { return queue_.empty() && !presenting_ && pending_.empty(); }
  uint64_t bytes_queued() const { return bytes_queued_; }
  uint64_t bytes_received() const { return bytes_received_; }
  // Every byte received, in order, if record is set.
  bool record = false;
  std::vector<uint8_t> received;
  uint64_t first_request_cycle = 0, last_beat_cycle = 0;

  void Sample() override {
    if (presenting_ && GetBit(top_.rd_req_ready, port_)) {
      presenting_ = false;
      pending_.push_back(queue_.front());
      grants_.push_back(queue_.front());
      queue_.pop_front();
    }
    if (!GetBit(top_.rd_rsp_valid, port_) || !GetBit(top_.rd_rsp_ready, port_)) return;
    if (pending_.empty()) {
      if (failures_.Take()) ADD_FAILURE() << "port " << port_ << ": a beat with no request outstanding";
      return;
    }
    Request& r = pending_.front();
    uint64_t expected = 0;
    std::memcpy(&expected, memory_.device().data() + (r.addr - kBase) + beat_ * kBeat, kBeat);
    const bool last = (beat_ + 1) * kBeat == r.bytes;
    if ((top_.rd_rsp_data != expected || top_.rd_rsp_last != last) && failures_.Take()) {
      ADD_FAILURE() << "port " << port_ << ", request 0x" << std::hex << r.addr << std::dec << " + " << r.bytes
                    << " B, beat " << beat_ << ": data 0x" << std::hex << top_.rd_rsp_data << " last "
                    << int{top_.rd_rsp_last} << ", expected 0x" << expected << " last " << last;
    }
    if (record) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(&top_.rd_rsp_data);
      received.insert(received.end(), bytes, bytes + kBeat);
    }
    bytes_received_ += kBeat;
    last_beat_cycle = cycle_;
    if (++beat_ * kBeat >= r.bytes) {
      beat_ = 0;
      pending_.pop_front();
    }
  }

  void Drive() override {
    ++cycle_;
    if (!presenting_ && !queue_.empty() && Chance(rng_, request_rate)) {
      presenting_ = true;
      if (first_request_cycle == 0) first_request_cycle = cycle_;
      top_.rd_req_addr[2 * port_] = static_cast<uint32_t>(queue_.front().addr);
      top_.rd_req_addr[2 * port_ + 1] = static_cast<uint32_t>(queue_.front().addr >> 32);
      top_.rd_req_bytes[port_] = queue_.front().bytes;
    }
    SetBit(top_.rd_req_valid, port_, presenting_);
    SetBit(top_.rd_rsp_ready, port_, Chance(rng_, ready_rate));
  }

 private:
  Vtb_dma_top& top_;
  int port_;
  HostDeviceMemory& memory_;
  std::vector<Request>& grants_;  // every port's accepted requests, in grant order
  FailureBudget& failures_;
  std::mt19937 rng_;
  std::deque<Request> queue_;     // not yet presented
  std::deque<Request> pending_;   // accepted, data still due
  bool presenting_ = false;
  uint64_t beat_ = 0;             // of pending_.front()
  uint64_t bytes_queued_ = 0, bytes_received_ = 0;
  uint64_t cycle_ = 0;
};

// Write client: presents requests, streams their data (random bytes, also
// applied to `expected`, the image the write region must end up as), and
// checks req_done against the B responses the DDR model has sent.
class WriteClient : public ClockedComponent {
 public:
  WriteClient(Vtb_dma_top& top, const AxiDdrModel& ddr, std::vector<uint8_t>& expected, FailureBudget& failures,
              uint32_t seed)
      : top_(top), ddr_(ddr), expected_(expected), failures_(failures), rng_(seed) {}

  double request_rate = 0.5;
  double data_rate = 1.0;  // chance per cycle of offering the next beat

  void Queue(const Request& r) {
    queue_.push_back(r);
    for (uint32_t i = 0; i < r.bytes; ++i) {
      const auto byte = static_cast<uint8_t>(rng_());
      expected_[r.addr - kWriteBase + i] = byte;
      data_.push_back(byte);
    }
  }
  bool Done() const { return queue_.empty() && !presenting_ && done_ == accepted_.size(); }
  std::string State() const {
    return std::to_string(queue_.size()) + " queued, " + std::to_string(accepted_.size()) + " accepted, " +
           std::to_string(done_) + " done" + (presenting_ ? ", presenting" : "");
  }
  const std::vector<Request>& accepted() const { return accepted_; }
  uint64_t first_request_cycle = 0;

  void Sample() override {
    if (presenting_ && top_.wr_req_ready) {
      presenting_ = false;
      accepted_.push_back(queue_.front());
      bursts_through_.push_back((bursts_through_.empty() ? 0 : bursts_through_.back()) +
                                SplitBursts(queue_.front()).size());
      beats_allowed_ += queue_.front().bytes / kBeat;
      queue_.pop_front();
    }
    if (offering_ && top_.wr_data_ready) {
      offering_ = false;
      data_pos_ += kBeat;
    }
  }

  void Drive() override {
    ++cycle_;
    // req_done is registered: it shows the B taken at the edge just passed.
    if (top_.wr_req_done) ++done_;
    size_t complete = 0;  // requests whose every B the model has sent
    while (complete < bursts_through_.size() && bursts_through_[complete] <= ddr_.stats().write_responses) ++complete;
    if (done_ != complete) {
      if (failures_.Take()) {
        ADD_FAILURE() << "cycle " << cycle_ << ": " << done_ << " req_done pulses, but " << complete
                      << " requests have all their B responses";
      }
      done_ = complete;
    }
    if (!presenting_ && !queue_.empty() && Chance(rng_, request_rate)) {
      presenting_ = true;
      if (first_request_cycle == 0) first_request_cycle = cycle_;
      top_.wr_req_addr = queue_.front().addr;
      top_.wr_req_bytes = queue_.front().bytes;
    }
    top_.wr_req_valid = presenting_;
    // Beats of accepted requests only, in order; an offered beat stays.
    if (!offering_ && data_pos_ / kBeat < beats_allowed_ && Chance(rng_, data_rate)) {
      offering_ = true;
      std::memcpy(&top_.wr_data, &data_[data_pos_], kBeat);
    }
    top_.wr_data_valid = offering_;
  }

 private:
  Vtb_dma_top& top_;
  const AxiDdrModel& ddr_;
  std::vector<uint8_t>& expected_;
  FailureBudget& failures_;
  std::mt19937 rng_;
  std::deque<Request> queue_;
  std::vector<Request> accepted_;
  std::vector<uint64_t> bursts_through_;  // bursts of accepted requests 0..i
  std::vector<uint8_t> data_;             // every queued request's bytes, in order
  uint64_t data_pos_ = 0, beats_allowed_ = 0;
  size_t done_ = 0;
  bool presenting_ = false, offering_ = false;
  uint64_t cycle_ = 0;
};

AxiDdrConfig Recording(AxiDdrConfig config) {
  config.record_bursts = true;
  return config;
}

// One DUT with the DDR model and the clients; memory filled with random bytes.
struct Bench {
  explicit Bench(const AxiDdrConfig& config, uint32_t seed = 1)
      : memory(kMemoryBytes),
        ddr(Recording(config), LOOM_AXI_MASTER_PINS(harness.top(), m_axi_), memory),
        expected(kWriteRegion),
        writer(harness.top(), ddr, expected, failures, seed * 7 + 5) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < kMemoryBytes; ++i) memory.host().data()[i] = static_cast<uint8_t>(rng());
    EXPECT_TRUE(memory.SyncToDevice(kBase, kMemoryBytes).ok());
    std::memcpy(expected.data(), memory.host().data() + (kWriteBase - kBase), kWriteRegion);
    for (int p = 0; p < kPorts; ++p) {
      readers.push_back(std::make_unique<ReadClient>(harness.top(), p, memory, grants, failures, seed * 11 + p));
    }
    harness.Add(&ddr);
    for (auto& r : readers) harness.Add(r.get());
    harness.Add(&writer);
    ddr.Reset();
    harness.Reset();
  }

  bool Done() {
    for (const auto& r : readers) {
      if (!r->Done()) return false;
    }
    return writer.Done() && harness.top().rd_idle && harness.top().wr_idle && ddr.Idle();
  }

  // What is still busy, for timeout messages.
  std::string Busy() {
    std::string busy;
    for (int p = 0; p < kPorts; ++p) {
      if (!readers[p]->Done()) busy += " read port " + std::to_string(p) + ";";
    }
    if (!writer.Done()) busy += " write client (" + writer.State() + ");";
    if (!harness.top().rd_idle) busy += " axi_dma_read;";
    if (!harness.top().wr_idle) busy += " axi_dma_write;";
    if (!ddr.Idle()) busy += " DDR model;";
    return busy;
  }

  // Ticks until every client is done; false on timeout.
  bool Run(uint64_t max_cycles) {
    for (uint64_t i = 0; i < max_cycles; ++i) {
      if (Done()) return true;
      harness.Tick();
    }
    return Done();
  }

  // The checks every run ends with.
  void CheckEnd(uint64_t read_bytes, uint64_t write_bytes) {
    Vtb_dma_top& t = harness.top();
    EXPECT_EQ(ddr.violations(), std::vector<std::string>{});
    EXPECT_EQ(t.rd_bytes, read_bytes);
    EXPECT_EQ(t.wr_bytes, write_bytes);
    EXPECT_FALSE(t.rd_bus_error);
    EXPECT_FALSE(t.wr_bus_error);
    EXPECT_FALSE(t.rd_req_error);
    EXPECT_FALSE(t.wr_req_error);
    for (const auto& r : readers) EXPECT_EQ(r->bytes_received(), r->bytes_queued());
    // The bursts, in order, exactly as the splitting rule makes them.
    std::vector<Burst> expected_reads, expected_writes, reads, writes;
    for (const Request& r : grants) {
      for (const Burst& b : SplitBursts(r)) expected_reads.push_back(b);
    }
    for (const Request& r : writer.accepted()) {
      for (const Burst& b : SplitBursts(r)) expected_writes.push_back(b);
    }
    for (const AxiBurstRecord& b : ddr.bursts()) (b.write ? writes : reads).push_back({b.addr, b.beats});
    EXPECT_TRUE(reads == expected_reads) << reads.size() << " read bursts, expected " << expected_reads.size();
    EXPECT_TRUE(writes == expected_writes) << writes.size() << " write bursts, expected " << expected_writes.size();
    // Writes landed exactly: the host sees them after SyncFromDevice.
    EXPECT_TRUE(memory.SyncFromDevice(kWriteBase, kWriteRegion).ok());
    const uint8_t* host = memory.host().data() + (kWriteBase - kBase);
    const auto mismatch = std::mismatch(expected.begin(), expected.end(), host);
    EXPECT_TRUE(mismatch.first == expected.end())
        << "write region differs at 0x" << std::hex << kWriteBase + (mismatch.first - expected.begin());
  }

  FailureBudget failures;
  Harness harness;
  HostDeviceMemory memory;
  AxiDdrModel ddr;
  std::vector<uint8_t> expected;  // the write region's final image
  std::vector<Request> grants;    // read requests in grant order
  std::vector<std::unique_ptr<ReadClient>> readers;
  WriteClient writer;
};

uint32_t RandomBytes(std::mt19937& rng) {
  const unsigned log = rng() % 14;  // 8 B .. 64 KB, spread over the scales
  return kBeat * (1 + rng() % (1u << log));
}

// An aligned address for `bytes` inside [begin, begin + size); a third of them
// a few beats before a 4 KB boundary.
uint64_t RandomAddr(std::mt19937& rng, uint64_t begin, uint64_t size, uint32_t bytes) {
  uint64_t offset;
  if (rng() % 3 == 0) {
    offset = (rng() % (size / 4096)) * 4096 + 4096 - kBeat * (1 + rng() % 24);
  } else {
    offset = (rng() % (size / kBeat)) * kBeat;
  }
  offset = std::min<uint64_t>(offset, size - bytes);
  return begin + offset;
}

TEST(AxiDma, RandomTraffic) {
  std::mt19937 rng(2024);
  uint64_t cycles = 0, read_requests = 0, write_requests = 0, beats = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 24; ++round) {
    const AxiDdrConfig config = RandomAxiDdrTiming(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ": latency " + std::to_string(config.read_latency) +
                 ", outstanding " + std::to_string(config.max_outstanding));
    Bench bench(config, round + 1);
    uint64_t read_bytes = 0, write_bytes = 0;
    for (int p = 0; p < kPorts; ++p) {
      bench.readers[p]->request_rate = 0.2 + (rng() % 4) * 0.25;
      bench.readers[p]->ready_rate = 0.4 + (rng() % 4) * 0.2;
      for (int i = 0; i < 6; ++i) {
        const uint32_t bytes = RandomBytes(rng);
        bench.readers[p]->Queue({RandomAddr(rng, kBase + p * kPortRegion, kPortRegion, bytes), bytes});
        read_bytes += bytes;
      }
    }
    bench.writer.request_rate = 0.3 + (rng() % 3) * 0.3;
    bench.writer.data_rate = 0.4 + (rng() % 4) * 0.2;
    for (int i = 0; i < 10; ++i) {
      const uint32_t bytes = RandomBytes(rng);
      bench.writer.Queue({RandomAddr(rng, kWriteBase, kWriteRegion, bytes), bytes});
      write_bytes += bytes;
    }
    EXPECT_TRUE(bench.Run(4'000'000)) << "timed out at cycle " << bench.harness.cycle() << ", busy:" << bench.Busy();
    bench.CheckEnd(read_bytes, write_bytes);
    cycles += bench.harness.cycle();
    read_requests += bench.grants.size();
    write_requests += bench.writer.accepted().size();
    beats += (read_bytes + write_bytes) / kBeat;
    if (HasFailure()) break;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("random traffic: %llu read and %llu write requests, %llu beats in %llu cycles (%.1f M cycles/s)\n",
              static_cast<unsigned long long>(read_requests), static_cast<unsigned long long>(write_requests),
              static_cast<unsigned long long>(beats), static_cast<unsigned long long>(cycles), cycles / seconds / 1e6);
}

// The accelerator's loads depend on this: 40 cycles latency, 4 outstanding
// 16-beat bursts, no back-pressure.
TEST(AxiDma, Bandwidth) {
  AxiDdrConfig config;
  config.read_latency = 40;
  config.max_outstanding = 4;
  Bench bench(config);
  bench.readers[0]->request_rate = 1.0;
  bench.writer.request_rate = 1.0;
  constexpr uint32_t kBytes = 64 << 10;
  for (int i = 0; i < 4; ++i) bench.readers[0]->Queue({kBase + i * uint64_t{kBytes}, kBytes});
  ASSERT_TRUE(bench.Run(1'000'000));
  const double read_cycles =
      static_cast<double>(bench.readers[0]->last_beat_cycle - bench.readers[0]->first_request_cycle + 1);
  const double read_bw = 4.0 * kBytes / kBeat / read_cycles;

  const uint64_t start = bench.harness.cycle();
  for (int i = 0; i < 4; ++i) bench.writer.Queue({kWriteBase + i * uint64_t{kWriteRegion / 4}, kBytes});
  ASSERT_TRUE(bench.Run(1'000'000));
  const double write_bw = 4.0 * kBytes / kBeat / static_cast<double>(bench.harness.cycle() - start);
  bench.CheckEnd(4 * kBytes, 4 * kBytes);
  std::printf("DMA bandwidth, 64-bit bus, latency 40, 4 outstanding: read %.3f beats/cycle (%.0f MB/s at 100 MHz), "
              "write %.3f beats/cycle (until the last B)\n",
              read_bw, read_bw * kBeat * 100, write_bw);
  EXPECT_GT(read_bw, 0.95);
  EXPECT_GT(write_bw, 0.9);
}

TEST(AxiDma, SlverrRaisesBusError) {
  AxiDdrConfig config;
  config.read_latency = 5;
  Bench bench(config);
  bench.ddr.SetSlverrRange(kBase + 0x2000, kBase + 0x2100);
  bench.readers[1]->Queue({kBase + 0x1000, 256});  // clean
  ASSERT_TRUE(bench.Run(10'000));
  EXPECT_FALSE(bench.harness.top().rd_bus_error);
  bench.readers[1]->Queue({kBase + 0x2080, 64});  // inside: the data still arrives
  ASSERT_TRUE(bench.Run(10'000));
  EXPECT_TRUE(bench.harness.top().rd_bus_error);
  EXPECT_FALSE(bench.harness.top().wr_bus_error);
  bench.ddr.SetSlverrRange(kWriteBase, kWriteBase + 8);
  bench.writer.Queue({kWriteBase, 128});
  ASSERT_TRUE(bench.Run(10'000));
  EXPECT_TRUE(bench.harness.top().wr_bus_error);
  // Sticky until clear.
  bench.harness.Tick();
  EXPECT_TRUE(bench.harness.top().rd_bus_error && bench.harness.top().wr_bus_error);
  bench.harness.top().clear = 1;
  bench.harness.Tick();
  bench.harness.top().clear = 0;
  EXPECT_FALSE(bench.harness.top().rd_bus_error || bench.harness.top().wr_bus_error);
  EXPECT_EQ(bench.harness.top().rd_bytes, 0u);
  EXPECT_EQ(bench.ddr.violations(), std::vector<std::string>{});
}

TEST(AxiDma, MisalignedRequestIsRefused) {
  for (const Request& bad : {Request{kBase + 4, 64}, Request{kBase, 60}, Request{kBase, 0}}) {
    Bench bench(AxiDdrConfig{});
    bench.readers[2]->request_rate = 1.0;
    bench.readers[2]->Queue(bad);
    EXPECT_FALSE(bench.Run(200));  // never taken: the request stalls its port
    EXPECT_TRUE(bench.harness.top().rd_req_error);
    EXPECT_EQ(bench.ddr.stats().read_bursts, 0u);

    bench.writer.request_rate = 1.0;
    bench.writer.Queue({kWriteBase + (bad.addr - kBase), bad.bytes});
    bench.Run(200);
    EXPECT_TRUE(bench.harness.top().wr_req_error);
    EXPECT_EQ(bench.ddr.stats().write_bursts, 0u);
  }
}

// The host view reaches the device only through SyncToDevice: a DMA read of
// data the host wrote but did not flush returns what the device held before.
TEST(AxiDma, MissingSyncReadsStaleData) {
  AxiDdrConfig config;
  config.read_latency = 3;
  Bench bench(config);
  const uint64_t addr = kBase + 0x3000;
  std::vector<uint8_t> before(256), written(256, 0xA5);
  ASSERT_TRUE(bench.memory.device().Read(addr, before.data(), before.size()).ok());
  ASSERT_NE(before, written);
  ASSERT_TRUE(bench.memory.host().Write(addr, written.data(), written.size()).ok());

  ReadClient& port = *bench.readers[0];
  port.record = true;
  port.Queue({addr, 256});  // without SyncToDevice
  ASSERT_TRUE(bench.Run(2000));
  EXPECT_EQ(port.received, before);

  ASSERT_TRUE(bench.memory.SyncToDevice(addr, written.size()).ok());
  port.received.clear();
  port.Queue({addr, 256});
  ASSERT_TRUE(bench.Run(2000));
  EXPECT_EQ(port.received, written);
}

}  // namespace
}  // namespace hw_sim
}  // namespace loom
