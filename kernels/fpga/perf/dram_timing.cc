#include "kernels/fpga/perf/dram_timing.h"

#include <algorithm>
#include <cmath>

namespace loom {
namespace fpga {
namespace perf {
namespace {

// Pipeline registers between a client's request and the address channel: the
// arbiter's registered grant, then axi_burst_issue's address register.
constexpr uint64_t kGrantToAddress = 2;
// An R beat passes axi_dma_read's two-entry buffer and the arbiter's
// response mux before the client writes it.
constexpr uint64_t kBeatToClient = 1;
// axi_dma_write: a request reaches the AW register one cycle after its
// handshake; the store unit sees req_done one cycle after B.
constexpr uint64_t kRequestToAddress = 1;
constexpr uint64_t kResponseToClient = 1;

}  // namespace

uint64_t ReadChannel::Read(uint64_t ready, uint64_t addr, uint64_t bytes, uint64_t* first_beat) {
  bytes_ += bytes;
  uint64_t grant = std::max(ready, next_grant_);
  if (requests_.size() >= order_depth_) {
    // The order FIFO is full: the oldest request must have been answered.
    grant = std::max(grant, requests_.front() + 1);
    requests_.pop_front();
  }
  next_grant_ = grant + 1;
  const uint64_t request = grant + kGrantToAddress;
  uint64_t first = 0, last = 0;
  bool any = false;
  ForEachBurst(bus_, addr, bytes, [&](uint64_t beats) {
    uint64_t address = std::max(request, next_address_);
    if (bursts_.size() >= timing_.max_outstanding) {
      address = std::max(address, bursts_.front() + 1);  // a burst slot frees after its last beat
      bursts_.pop_front();
    }
    next_address_ = address + 1;
    const uint64_t begin = std::max(address + timing_.read_latency, data_free_);
    last = begin + beats - 1;
    data_free_ = last + 1;
    bursts_.push_back(last);
    if (!any) first = begin;
    any = true;
  });
  if (!any) first = last = request;
  requests_.push_back(last);
  if (first_beat != nullptr) *first_beat = first + kBeatToClient;
  return last + kBeatToClient;
}

uint64_t WriteChannel::Write(uint64_t ready, uint64_t addr, uint64_t bytes, uint64_t data_ready,
                             double cycles_per_beat) {
  bytes_ += bytes;
  const uint64_t request = ready + kRequestToAddress;
  uint64_t beat = 0;  // beats of this request so far
  uint64_t response = request;
  ForEachBurst(bus_, addr, bytes, [&](uint64_t beats) {
    uint64_t address = std::max(request, next_address_);
    if (bursts_.size() >= timing_.max_outstanding) {
      address = std::max(address, bursts_.front() + 1);  // a burst slot frees at its B
      bursts_.pop_front();
    }
    next_address_ = address + 1;
    const auto produced = [&](uint64_t k) {
      return data_ready + static_cast<uint64_t>(std::ceil(static_cast<double>(k) * cycles_per_beat));
    };
    const uint64_t begin = std::max({produced(beat), data_free_, address});
    const uint64_t last = std::max(begin + beats - 1, produced(beat + beats - 1));
    data_free_ = last + 1;
    response = last + timing_.write_latency;
    bursts_.push_back(response);
    beat += beats;
  });
  return response + kResponseToClient;
}

}  // namespace perf
}  // namespace fpga
}  // namespace loom
