#include "hw/sim/axil_driver.h"

#include <cstdio>
#include <string>
#include <utility>

namespace loom {
namespace hw_sim {
namespace {

std::string Hex(uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%02X", value);
  return buffer;
}

}  // namespace

AxiLiteDriver::AxiLiteDriver(const AxiLitePins& pins, std::function<void()> tick, unsigned timeout_cycles)
    : pins_(pins), tick_(std::move(tick)), timeout_cycles_(timeout_cycles) {}

void AxiLiteDriver::Reset() {
  aw_due_ = w_due_ = b_due_ = ar_due_ = r_due_ = false;
  Drive();
}

void AxiLiteDriver::Sample() {
  if (aw_due_ && pins_.awready.High()) aw_due_ = false;
  if (w_due_ && pins_.wready.High()) w_due_ = false;
  if (b_due_ && pins_.bvalid.High()) {
    b_due_ = false;
    write_done_ = true;
    last_resp_ = static_cast<uint32_t>(pins_.bresp.Get());
  }
  if (ar_due_ && pins_.arready.High()) ar_due_ = false;
  if (r_due_ && !ar_due_ && pins_.rvalid.High()) {
    r_due_ = false;
    read_done_ = true;
    read_value_ = static_cast<uint32_t>(pins_.rdata.Get());
    last_resp_ = static_cast<uint32_t>(pins_.rresp.Get());
  }
}

void AxiLiteDriver::Drive() {
  pins_.awvalid.Set(aw_due_);
  pins_.wvalid.Set(w_due_);
  pins_.bready.Set(b_due_);
  pins_.arvalid.Set(ar_due_);
  pins_.rready.Set(r_due_);
}

Status AxiLiteDriver::Wait(const char* what, uint32_t addr, const bool& done) {
  for (unsigned cycle = 0; !done; ++cycle) {
    if (cycle == timeout_cycles_) {
      const char* stalled = aw_due_  ? "AWREADY"
                            : w_due_ ? "WREADY"
                            : b_due_ ? "BVALID"
                            : ar_due_ ? "ARREADY"
                                      : "RVALID";
      aw_due_ = w_due_ = b_due_ = ar_due_ = r_due_ = false;
      Drive();
      return Status::DeviceError(std::string("AXI-Lite ") + what + " " + Hex(addr) + ": no " + stalled + " after " +
                                 std::to_string(timeout_cycles_) + " cycles");
    }
    tick_();
  }
  return Status::Ok();
}

Status AxiLiteDriver::Write32(uint32_t addr, uint32_t value, uint8_t strobes) {
  pins_.awaddr.Set(addr);
  pins_.wdata.Set(value);
  pins_.wstrb.Set(strobes);
  aw_due_ = w_due_ = b_due_ = true;
  write_done_ = false;
  Drive();
  return Wait("write", addr, write_done_);
}

Status AxiLiteDriver::Read32(uint32_t addr, uint32_t* value) {
  pins_.araddr.Set(addr);
  ar_due_ = r_due_ = true;
  read_done_ = false;
  Drive();
  RETURN_IF_ERROR(Wait("read", addr, read_done_));
  *value = read_value_;
  return Status::Ok();
}

Status AxiLiteDriver::Write64(uint32_t addr, uint64_t value) {
  RETURN_IF_ERROR(Write32(addr, static_cast<uint32_t>(value)));
  return Write32(addr + 4, static_cast<uint32_t>(value >> 32));
}

Status AxiLiteDriver::Read64(uint32_t addr, uint64_t* value) {
  uint32_t low = 0, high = 0;
  RETURN_IF_ERROR(Read32(addr, &low));
  RETURN_IF_ERROR(Read32(addr + 4, &high));
  *value = uint64_t{high} << 32 | low;
  return Status::Ok();
}

}  // namespace hw_sim
}  // namespace loom
