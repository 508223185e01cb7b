// AxiDdrModel on its own, driven by a scripted master (plain variables, no
// Verilator): latency, data, the outstanding limit, SLVERR injection, and that
// each burst rule it promises to check really is reported when broken.
#include "hw/sim/axi_ddr_model.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom {
namespace hw_sim {
namespace {

constexpr uint64_t kBase = fpga::DeviceMemory::kDefaultBase;

// The master's side of the bus, laid out like a Verilated top's ports.
struct Bus {
  uint8_t arvalid = 0, arready = 0, arlen = 0, arsize = 3, arburst = 1;
  uint64_t araddr = 0;
  uint8_t rvalid = 0, rready = 1, rresp = 0, rlast = 0;
  uint64_t rdata = 0;
  uint8_t awvalid = 0, awready = 0, awlen = 0, awsize = 3, awburst = 1;
  uint64_t awaddr = 0;
  uint8_t wvalid = 0, wready = 0, wstrb = 0xFF, wlast = 0;
  uint64_t wdata = 0;
  uint8_t bvalid = 0, bready = 1, bresp = 0;
};

class AxiDdrModelTest : public ::testing::Test {
 protected:
  void Start(const AxiDdrConfig& config) {
    for (size_t i = 0; i < memory_.size(); ++i) memory_.device().data()[i] = static_cast<uint8_t>(i * 7 + 1);
    ddr_ = std::make_unique<AxiDdrModel>(config, LOOM_AXI_MASTER_PINS(bus_, ), memory_);
    ddr_->Reset();
  }
  void Cycle() {
    ddr_->Sample();
    ddr_->Drive();
    ++cycle_;
  }
  // Offers an AR until it is taken; returns the handshake's cycle.
  uint64_t Ar(uint64_t addr, uint8_t len) {
    bus_.arvalid = 1;
    bus_.araddr = addr;
    bus_.arlen = len;
    while (!bus_.arready) Cycle();
    const uint64_t at = cycle_;
    Cycle();
    bus_.arvalid = 0;
    return at;
  }
  // Takes `beats` R beats; returns the cycle of the first.
  uint64_t TakeR(unsigned beats, std::vector<uint64_t>* data = nullptr, std::vector<uint8_t>* resp = nullptr) {
    uint64_t first = 0;
    for (unsigned taken = 0; taken < beats;) {
      if (bus_.rvalid) {
        if (taken == 0) first = cycle_;
        if (data != nullptr) data->push_back(bus_.rdata);
        if (resp != nullptr) resp->push_back(bus_.rresp);
        EXPECT_EQ(bus_.rlast, taken + 1 == beats);
        ++taken;
      }
      Cycle();
    }
    return first;
  }
  // One write burst, AW then the beats; wlast_at: the beat that carries WLAST.
  void WriteBurst(uint64_t addr, uint8_t len, unsigned wlast_at, uint8_t strobes = 0xFF) {
    bus_.awvalid = 1;
    bus_.awaddr = addr;
    bus_.awlen = len;
    while (!bus_.awready) Cycle();
    Cycle();
    bus_.awvalid = 0;
    for (unsigned beat = 0; beat <= len;) {
      bus_.wvalid = 1;
      bus_.wdata = 0x1111111111111111ull * (beat + 1);
      bus_.wstrb = strobes;
      bus_.wlast = beat == wlast_at;
      const bool taken = bus_.wready;
      Cycle();
      beat += taken;
    }
    bus_.wvalid = 0;
  }
  bool Reported(const std::string& what) const {
    for (const std::string& v : ddr_->violations()) {
      if (v.find(what) != std::string::npos) return true;
    }
    return false;
  }

  Bus bus_;
  HostDeviceMemory memory_{1 << 16};
  std::unique_ptr<AxiDdrModel> ddr_;
  uint64_t cycle_ = 0;
};

TEST_F(AxiDdrModelTest, ReadLatencyAndData) {
  AxiDdrConfig config;
  config.read_latency = 7;
  Start(config);
  Cycle();
  const uint64_t ar = Ar(kBase + 0x100, 3);
  std::vector<uint64_t> data;
  EXPECT_EQ(TakeR(4, &data), ar + 7);
  for (unsigned i = 0; i < 4; ++i) {
    uint64_t expected = 0;
    ASSERT_TRUE(memory_.device().Read(kBase + 0x100 + 8 * i, &expected, 8).ok());
    EXPECT_EQ(data[i], expected);
  }
  EXPECT_TRUE(ddr_->violations().empty());
  EXPECT_EQ(ddr_->stats().read_bytes, 32u);
}

TEST_F(AxiDdrModelTest, OutstandingLimitHoldsArready) {
  AxiDdrConfig config;
  config.read_latency = 50;
  config.max_outstanding = 2;
  Start(config);
  bus_.rready = 0;
  Cycle();
  Ar(kBase, 0);
  Ar(kBase + 8, 0);
  for (int i = 0; i < 60; ++i) {
    EXPECT_FALSE(bus_.arready);
    Cycle();
  }
  EXPECT_EQ(ddr_->stats().read_bursts, 2u);
  bus_.rready = 1;
  TakeR(1);
  TakeR(1);
  EXPECT_TRUE(bus_.arready);
}

TEST_F(AxiDdrModelTest, ReportsEachBrokenBurstRule) {
  Start(AxiDdrConfig{});
  Cycle();
  Ar(kBase, 16);  // 17 beats
  EXPECT_TRUE(Reported("17 beats, more than 16"));
  Ar(kBase + 4096 - 16, 3);
  EXPECT_TRUE(Reported("cross a 4096-byte boundary"));
  Ar(kBase + 4, 0);
  EXPECT_TRUE(Reported("not aligned to 8 bytes"));
  bus_.arsize = 2;
  Ar(kBase, 0);
  EXPECT_TRUE(Reported("size 4 bytes, bus is 8"));
  bus_.arsize = 3;
  bus_.arburst = 0;
  Ar(kBase, 0);
  EXPECT_TRUE(Reported("burst type 0, not INCR"));
  bus_.arburst = 1;
  Ar(kBase + (1 << 16), 0);
  EXPECT_TRUE(Reported("outside device memory"));

  WriteBurst(kBase, 3, 2);  // WLAST one beat early and missing at the end
  EXPECT_TRUE(Reported("W beat 2 of the AW 0x40000000 burst (4 beats): WLAST 1"));
  EXPECT_TRUE(Reported("W beat 3 of the AW 0x40000000 burst (4 beats): WLAST 0"));
  WriteBurst(kBase, 0, 0, 0x0F);
  EXPECT_TRUE(Reported("WSTRB 0xf, not all ones"));
}

TEST_F(AxiDdrModelTest, ReportsUnstableChannels) {
  AxiDdrConfig config;
  config.arready_stall = 1.0;  // never ready
  config.awready_stall = 1.0;
  Start(config);
  Cycle();
  bus_.arvalid = 1;
  bus_.araddr = kBase;
  Cycle();
  bus_.arvalid = 0;  // withdrawn before ARREADY
  Cycle();
  EXPECT_TRUE(Reported("AR: VALID withdrawn before READY"));
  bus_.awvalid = 1;
  bus_.awaddr = kBase;
  Cycle();
  bus_.awaddr = kBase + 8;  // changed while waiting
  Cycle();
  EXPECT_TRUE(Reported("AW: payload changed while VALID waited for READY"));
}

TEST_F(AxiDdrModelTest, WritesLandAndSlverrRange) {
  AxiDdrConfig config;
  config.write_latency = 5;
  Start(config);
  ddr_->SetSlverrRange(kBase + 0x200, kBase + 0x208);
  Cycle();
  WriteBurst(kBase + 0x100, 1, 1);
  while (!bus_.bvalid) Cycle();
  EXPECT_EQ(bus_.bresp, 0);
  uint64_t words[2];
  ASSERT_TRUE(memory_.device().Read(kBase + 0x100, words, 16).ok());
  EXPECT_EQ(words[0], 0x1111111111111111ull);
  EXPECT_EQ(words[1], 0x2222222222222222ull);
  Cycle();
  WriteBurst(kBase + 0x1F8, 1, 1);  // touches the SLVERR range: dropped
  while (!bus_.bvalid) Cycle();
  EXPECT_EQ(bus_.bresp, 2);
  ASSERT_TRUE(memory_.device().Read(kBase + 0x1F8, words, 16).ok());
  EXPECT_NE(words[0], 0x1111111111111111ull);
  Cycle();
  Ar(kBase + 0x200, 0);
  std::vector<uint8_t> resp;
  TakeR(1, nullptr, &resp);
  EXPECT_EQ(resp, std::vector<uint8_t>{2});
  EXPECT_TRUE(ddr_->violations().empty()) << ddr_->violations().front();
  Ar(kBase + (1 << 16), 0);  // outside the memory: DECERR
  resp.clear();
  TakeR(1, nullptr, &resp);
  EXPECT_EQ(resp, std::vector<uint8_t>{3});
  EXPECT_EQ(ddr_->violations().size(), 1u);
}

// A 128-bit bus (kv260): data is a VlWide<4>-like array of words.
TEST(AxiDdrModelWide, Serves128BitBeats) {
  struct {
    uint8_t arvalid = 1, arready = 0, arlen = 1, arsize = 4, arburst = 1;
    uint64_t araddr = kBase + 0x40;
    uint8_t rvalid = 0, rready = 1, rresp = 0, rlast = 0;
    uint32_t rdata[4] = {};
    uint8_t awvalid = 0, awready = 0, awlen = 0, awsize = 4, awburst = 1;
    uint64_t awaddr = 0;
    uint8_t wvalid = 0, wready = 0, wlast = 0;
    uint16_t wstrb = 0xFFFF;
    uint32_t wdata[4] = {};
    uint8_t bvalid = 0, bready = 1, bresp = 0;
  } bus;
  HostDeviceMemory memory(1 << 12);
  for (size_t i = 0; i < memory.size(); ++i) memory.device().data()[i] = static_cast<uint8_t>(i);
  AxiDdrConfig config;
  config.data_bytes = 16;
  config.read_latency = 2;
  AxiDdrModel ddr(config, LOOM_AXI_MASTER_PINS(bus, ), memory);
  ddr.Reset();
  std::vector<uint8_t> received;
  for (int cycle = 0; cycle < 20; ++cycle) {
    ddr.Sample();
    if (bus.rvalid) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(bus.rdata);
      received.insert(received.end(), bytes, bytes + 16);
    }
    if (bus.arready) bus.arvalid = 0;  // taken at this edge
    ddr.Drive();
  }
  ASSERT_EQ(received.size(), 32u);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(received[i], static_cast<uint8_t>(0x40 + i));
  EXPECT_TRUE(ddr.violations().empty()) << ddr.violations().front();
}

}  // namespace
}  // namespace hw_sim
}  // namespace loom
