#include "hw/sim/axi_ddr_model.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace loom {
namespace hw_sim {
namespace {

constexpr uint8_t kOkay = 0, kSlverr = 2, kDecerr = 3;
constexpr size_t kMaxViolationsKept = 100;
constexpr size_t kMaxWBeatsBuffered = 64;  // W beats taken ahead of their AW

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buffer[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

}  // namespace

AxiDdrConfig RandomAxiDdrTiming(std::mt19937& rng) {
  AxiDdrConfig config;
  config.read_latency = 1 + rng() % 60;
  config.write_latency = 1 + rng() % 60;
  config.max_outstanding = 1 + rng() % 4;
  config.arready_stall = (rng() % 4) * 0.15;
  config.awready_stall = (rng() % 4) * 0.15;
  config.wready_stall = (rng() % 4) * 0.15;
  config.rvalid_gap = (rng() % 4) * 0.1;
  config.seed = rng();
  return config;
}

AxiDdrModel::AxiDdrModel(const AxiDdrConfig& config, const AxiMasterPins& pins, HostDeviceMemory& memory)
    : config_(config), pins_(pins), memory_(memory), rng_(config.seed) {}

void AxiDdrModel::Reset() {
  pins_.arready.Set(0);
  pins_.rvalid.Set(0);
  pins_.awready.Set(0);
  pins_.wready.Set(0);
  pins_.bvalid.Set(0);
}

bool AxiDdrModel::Chance(double probability) {
  return probability > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < probability;
}

void AxiDdrModel::Violation(const std::string& message) {
  if (violations_.size() < kMaxViolationsKept)
    violations_.push_back(Format("cycle %llu: ", static_cast<unsigned long long>(cycle_)) + message);
}

void AxiDdrModel::CheckStable(const char* channel, Pending& pending, bool valid, bool fire, uint64_t addr,
                              uint64_t len) {
  if (pending.waiting && !valid) Violation(Format("%s: VALID withdrawn before READY", channel));
  if (pending.waiting && valid && (addr != pending.addr || len != pending.len))
    Violation(Format("%s: payload changed while VALID waited for READY", channel));
  pending.waiting = valid && !fire;
  pending.addr = addr;
  pending.len = len;
}

AxiDdrModel::Burst AxiDdrModel::Accept(bool write, uint64_t addr, unsigned len, unsigned size, unsigned burst) {
  const char* ch = write ? "AW" : "AR";
  const auto a = static_cast<unsigned long long>(addr);
  Burst b;
  b.addr = addr;
  b.beats = len + 1;
  const uint64_t bytes = uint64_t{b.beats} * config_.data_bytes;
  if (b.beats > config_.max_burst_beats)
    Violation(Format("%s 0x%llx: %u beats, more than %u", ch, a, b.beats, config_.max_burst_beats));
  if (burst != 1) Violation(Format("%s 0x%llx: burst type %u, not INCR", ch, a, burst));
  if ((1u << size) != config_.data_bytes)
    Violation(Format("%s 0x%llx: size %u bytes, bus is %u", ch, a, 1u << size, config_.data_bytes));
  if (addr % config_.data_bytes != 0)
    Violation(Format("%s 0x%llx: not aligned to %u bytes", ch, a, config_.data_bytes));
  if (addr / config_.boundary != (addr + bytes - 1) / config_.boundary)
    Violation(Format("%s 0x%llx: %u beats cross a %u-byte boundary", ch, a, b.beats, config_.boundary));
  if (!memory_.device().Contains(addr, bytes)) {
    if (config_.outside_is_violation) Violation(Format("%s 0x%llx: %u beats outside device memory", ch, a, b.beats));
    b.resp = kDecerr;
  } else if (addr < config_.slverr_end && addr + bytes > config_.slverr_begin) {
    b.resp = kSlverr;
  }
  if (config_.record_bursts) bursts_.push_back({write, addr, b.beats, cycle_});
  return b;
}

void AxiDdrModel::Sample() {
  // AR
  const bool arvalid = pins_.arvalid.High(), ar_fire = arvalid && pins_.arready.High();
  CheckStable("AR", ar_, arvalid, ar_fire, pins_.araddr.Get(), pins_.arlen.Get());
  if (ar_fire) {
    Burst b = Accept(false, pins_.araddr.Get(), static_cast<unsigned>(pins_.arlen.Get()),
                     static_cast<unsigned>(pins_.arsize.Get()), static_cast<unsigned>(pins_.arburst.Get()));
    b.ready_cycle = cycle_ + config_.read_latency;
    reads_.push_back(b);
    ++stats_.read_bursts;
  }
  // R
  if (rvalid_ && pins_.rready.High()) {
    rvalid_ = false;
    ++stats_.read_beats;
    stats_.read_bytes += config_.data_bytes;
    if (++reads_.front().done == reads_.front().beats) reads_.pop_front();
  }
  // AW
  const bool awvalid = pins_.awvalid.High(), aw_fire = awvalid && pins_.awready.High();
  CheckStable("AW", aw_, awvalid, aw_fire, pins_.awaddr.Get(), pins_.awlen.Get());
  if (aw_fire) {
    writes_.push_back(Accept(true, pins_.awaddr.Get(), static_cast<unsigned>(pins_.awlen.Get()),
                             static_cast<unsigned>(pins_.awsize.Get()), static_cast<unsigned>(pins_.awburst.Get())));
    ++stats_.write_bursts;
  }
  // W: the stability check looks at the low data bytes, WLAST and WSTRB.
  const bool wvalid = pins_.wvalid.High(), w_fire = wvalid && pins_.wready.High();
  CheckStable("W", w_, wvalid, w_fire, pins_.wdata.Get(), pins_.wlast.Get() | pins_.wstrb.Get() << 1);
  if (w_fire) {
    const uint8_t* data = pins_.wdata.Bytes();
    w_beats_.push_back({std::vector<uint8_t>(data, data + config_.data_bytes), pins_.wstrb.Get(),
                        pins_.wlast.High()});
    ++stats_.write_beats;
    stats_.write_bytes += config_.data_bytes;
  }
  // B
  if (bvalid_ && pins_.bready.High()) {
    bvalid_ = false;
    responses_.pop_front();
    ++stats_.write_responses;
  }
  MatchWrites();
  stats_.read_busy_cycles += !reads_.empty();
  stats_.write_busy_cycles += !writes_.empty() || !responses_.empty();
}

void AxiDdrModel::MatchWrites() {
  const uint64_t all_strobes = config_.data_bytes >= 64 ? ~uint64_t{0} : (uint64_t{1} << config_.data_bytes) - 1;
  while (!writes_.empty() && !w_beats_.empty()) {
    Burst& b = writes_.front();
    const WBeat beat = std::move(w_beats_.front());
    w_beats_.pop_front();
    const uint64_t addr = b.addr + uint64_t{b.done} * config_.data_bytes;
    const bool last = b.done + 1 == b.beats;
    if (beat.last != last)
      Violation(Format("W beat %u of the AW 0x%llx burst (%u beats): WLAST %d", b.done,
                       static_cast<unsigned long long>(b.addr), b.beats, beat.last));
    if (config_.require_full_strobes && beat.strobes != all_strobes)
      Violation(Format("W 0x%llx: WSTRB 0x%llx, not all ones", static_cast<unsigned long long>(addr),
                       static_cast<unsigned long long>(beat.strobes)));
    if (b.resp == kOkay) {
      uint8_t* dst = memory_.device().data() + (addr - memory_.base());
      for (unsigned i = 0; i < config_.data_bytes; ++i) {
        if (beat.strobes >> i & 1) dst[i] = beat.data[i];
      }
    }
    if (++b.done == b.beats) {
      b.ready_cycle = cycle_ + config_.write_latency;
      responses_.push_back(b);
      writes_.pop_front();
    }
  }
}

void AxiDdrModel::Drive() {
  ++cycle_;
  ++stats_.cycles;
  pins_.arready.Set(reads_.size() < config_.max_outstanding && !Chance(config_.arready_stall));
  pins_.awready.Set(writes_.size() + responses_.size() < config_.max_outstanding &&
                    !Chance(config_.awready_stall));
  pins_.wready.Set(w_beats_.size() < kMaxWBeatsBuffered && !Chance(config_.wready_stall));

  // A beat once offered stays on the pins until taken (rvalid_ still set).
  if (!rvalid_ && !reads_.empty() && reads_.front().ready_cycle <= cycle_ && !Chance(config_.rvalid_gap)) {
    const Burst& b = reads_.front();
    uint8_t* rdata = pins_.rdata.Bytes();
    if (b.resp == kDecerr) {
      std::memset(rdata, 0, config_.data_bytes);
    } else {
      std::memcpy(rdata, memory_.device().data() + (b.addr - memory_.base()) + uint64_t{b.done} * config_.data_bytes,
                  config_.data_bytes);
    }
    pins_.rresp.Set(b.resp);
    pins_.rlast.Set(b.done + 1 == b.beats);
    rvalid_ = true;
  }
  pins_.rvalid.Set(rvalid_);

  if (!bvalid_ && !responses_.empty() && responses_.front().ready_cycle <= cycle_) {
    pins_.bresp.Set(responses_.front().resp);
    bvalid_ = true;
  }
  pins_.bvalid.Set(bvalid_);
}

}  // namespace hw_sim
}  // namespace loom
