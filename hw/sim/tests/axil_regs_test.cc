// hw/rtl/axil_regs.sv (pynq_z2 contract) through AxiLiteDriver: XRT's
// ap_ctrl_hs handshakes, clear-on-read, ISR toggle-on-write, the interrupt,
// 64-bit arguments with byte strobes, read-only status and counters (with the
// high-word latch), unmapped offsets, and the driver's timeout.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "Vaxil_regs.h"
#include "hw/sim/axil_driver.h"
#include "hw/sim/verilated_harness.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace hw_sim {
namespace {

namespace c = fpga::contract;

constexpr uint32_t kApStart = 1, kApDone = 2, kApIdle = 4, kApReady = 8;

class AxilRegsTest : public ::testing::Test {
 protected:
  AxilRegsTest() : regs_(LOOM_AXI_LITE_PINS(harness_.top(), s_axi_), [this] { harness_.Tick(); }, 100) {
    harness_.Add(&regs_);
    regs_.Reset();
    top().core_idle = 1;
    harness_.Reset();
  }

  Vaxil_regs& top() { return harness_.top(); }

  uint32_t Read(uint32_t addr) {
    uint32_t value = 0;
    const Status status = regs_.Read32(addr, &value);
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(regs_.last_resp(), 0u);
    return value;
  }
  uint64_t Read64(uint32_t addr) {
    uint64_t value = 0;
    const Status status = regs_.Read64(addr, &value);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return value;
  }
  void Write(uint32_t addr, uint32_t value, uint8_t strobes = 0xF) {
    const Status status = regs_.Write32(addr, value, strobes);
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_EQ(regs_.last_resp(), 0u);
  }
  // A one-cycle pulse on a core input.
  void Pulse(CData& pin) {
    pin = 1;
    harness_.Tick();
    pin = 0;
  }

  VerilatedHarness<Vaxil_regs> harness_;
  AxiLiteDriver regs_;
};

TEST_F(AxilRegsTest, IdentityRegisters) {
  EXPECT_EQ(Read(c::kRegConfigId), c::FindConfig("pynq_z2")->config_id);
  EXPECT_EQ(Read(c::kRegVersion), c::kVersion);
  Write(c::kRegVersion, 0x1234);
  EXPECT_EQ(Read(c::kRegVersion), c::kVersion);
}

TEST_F(AxilRegsTest, StartReadyHandshake) {
  EXPECT_EQ(Read(c::kRegCtrl), kApIdle);
  EXPECT_FALSE(top().ap_start);
  Write(c::kRegCtrl, kApStart);
  EXPECT_TRUE(top().ap_start);
  Write(c::kRegCtrl, 0);  // writing 0 does not withdraw a start
  EXPECT_EQ(Read(c::kRegCtrl), kApStart | kApIdle);
  for (int i = 0; i < 5; ++i) harness_.Tick();
  EXPECT_TRUE(top().ap_start);  // held until the core takes it

  top().core_idle = 0;
  Pulse(top().core_ready);
  EXPECT_FALSE(top().ap_start);
  EXPECT_EQ(Read(c::kRegCtrl), kApReady);
  EXPECT_EQ(Read(c::kRegCtrl), 0u);  // ap_ready cleared by the read
}

TEST_F(AxilRegsTest, DoneIsClearedOnRead) {
  Write(c::kRegCtrl, kApStart);
  top().core_idle = 0;
  Pulse(top().core_ready);
  EXPECT_EQ(Read(c::kRegCtrl), kApReady);
  top().core_idle = 1;
  Pulse(top().core_done);
  EXPECT_EQ(Read(c::kRegCtrl), kApDone | kApIdle);
  EXPECT_EQ(Read(c::kRegCtrl), kApIdle);
}

TEST_F(AxilRegsTest, InterruptAndIsrToggle) {
  Write(c::kRegGie, 1);
  Write(c::kRegIer, 1);
  EXPECT_EQ(Read(c::kRegGie), 1u);
  EXPECT_EQ(Read(c::kRegIer), 1u);
  EXPECT_FALSE(top().irq);
  Pulse(top().core_ready);  // ready is not enabled: no ISR bit
  EXPECT_EQ(Read(c::kRegIsr), 0u);
  Pulse(top().core_done);
  EXPECT_EQ(Read(c::kRegIsr), 1u);
  EXPECT_TRUE(top().irq);
  Write(c::kRegIsr, 1);  // toggles bit 0 off
  EXPECT_EQ(Read(c::kRegIsr), 0u);
  EXPECT_FALSE(top().irq);
  Write(c::kRegIsr, 1);  // and on again
  EXPECT_EQ(Read(c::kRegIsr), 1u);
  EXPECT_TRUE(top().irq);
  Write(c::kRegGie, 0);
  EXPECT_FALSE(top().irq);
  Write(c::kRegGie, 1);
  Write(c::kRegIsr, 1);
  EXPECT_FALSE(top().irq);

  Write(c::kRegIer, 2);  // ready only
  Pulse(top().core_done);
  EXPECT_EQ(Read(c::kRegIsr), 0u);
  Pulse(top().core_ready);
  EXPECT_EQ(Read(c::kRegIsr), 2u);
  EXPECT_TRUE(top().irq);
  Write(c::kRegIer, 1);  // IER masks the pin
  EXPECT_FALSE(top().irq);
}

TEST_F(AxilRegsTest, Arguments) {
  const uint32_t offsets[] = {c::kRegCmdAddr, c::kRegBase0, c::kRegBase1, c::kRegBase2, c::kRegBase3, c::kRegCmdCount};
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(regs_.Write64(offsets[i], 0x0123456789ABCDEFull * (i + 1) + i).ok());
  }
  const uint64_t outputs[] = {top().arg_cmd_addr, top().arg_base0, top().arg_base1,
                              top().arg_base2,    top().arg_base3, top().arg_cmd_count};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(Read64(offsets[i]), 0x0123456789ABCDEFull * (i + 1) + i) << "offset " << offsets[i];
    EXPECT_EQ(outputs[i], 0x0123456789ABCDEFull * (i + 1) + i) << "offset " << offsets[i];
  }
  // Byte strobes: only byte 1 of BASE0's high word changes.
  const uint64_t base0 = top().arg_base0;
  Write(c::kRegBase0 + 4, 0xAABBCCDD, 0x2);
  EXPECT_EQ(top().arg_base0, (base0 & ~0x0000FF0000000000ull) | 0x0000CC0000000000ull);
}

TEST_F(AxilRegsTest, ReadOnlyStatusAndCounters) {
  top().error_code = static_cast<uint8_t>(c::ErrorCode::kBusError);
  top().error_cmd = 1234;
  QData* counters[] = {&top().cnt_cycles,     &top().cnt_load_busy,      &top().cnt_load_stall,
                       &top().cnt_compute_busy, &top().cnt_compute_stall, &top().cnt_store_busy,
                       &top().cnt_store_stall,  &top().cnt_dma_read_bytes, &top().cnt_dma_write_bytes};
  const uint32_t offsets[] = {c::kRegCycles,       c::kRegLoadBusy,  c::kRegLoadStall,
                              c::kRegComputeBusy,  c::kRegComputeStall, c::kRegStoreBusy,
                              c::kRegStoreStall,   c::kRegDmaReadBytes, c::kRegDmaWriteBytes};
  for (int i = 0; i < 9; ++i) *counters[i] = 0x1111'0000'0000'0000ull * (i + 1) + 0x100 * i + 7;
  EXPECT_EQ(Read(c::kRegError), static_cast<uint32_t>(c::ErrorCode::kBusError));
  EXPECT_EQ(Read(c::kRegErrorCmd), 1234u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(Read64(offsets[i]), *counters[i]) << "offset " << offsets[i];
    Write(offsets[i], 0);  // read only
    EXPECT_EQ(Read64(offsets[i]), *counters[i]) << "offset " << offsets[i];
  }
  // Reading the low word latches the high word.
  top().cnt_cycles = 0x0000'0001'FFFF'FFFFull;
  EXPECT_EQ(Read(c::kRegCycles), 0xFFFF'FFFFu);
  top().cnt_cycles = 0x0000'0002'0000'0000ull;  // carried into the high word meanwhile
  EXPECT_EQ(Read(c::kRegCycles + 4), 1u);
  EXPECT_EQ(Read(c::kRegCycles + 4), 2u);     // no latch without the low read
}

TEST_F(AxilRegsTest, UnmappedOffsetsReadZero) {
  for (uint32_t addr : {0x98u, 0xA0u, 0xFCu}) {
    Write(addr, 0xFFFFFFFF);
    EXPECT_EQ(Read(addr), 0u) << "offset " << addr;
  }
  EXPECT_EQ(Read(c::kRegCtrl), kApIdle);  // nothing else changed
  EXPECT_EQ(Read(c::kRegGie), 0u);
}

TEST_F(AxilRegsTest, DriverTimesOut) {
  top().rst_n = 0;  // a slave held in reset never answers a write
  const Status status = regs_.Write32(c::kRegGie, 1);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no BVALID after 100 cycles"), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace hw_sim
}  // namespace loom
