// The accelerator's AXI master and the memory behind it, at burst
// granularity, for the cycle model (cycle_model.h).
//
// DramTiming describes the memory: by default one Zynq-7000 HP port as
// hw/sim's AxiDdrModel serves it without back-pressure (40 cycles from an AR
// handshake to the burst's first R beat, 10 from a burst's last W beat to its
// B, 4 bursts in flight per direction, one beat per cycle each way; reads and
// writes do not share a data bus).
//
// ReadChannel and WriteChannel replay the DMA's rules (hw/README.md, DMA)
// with a recurrence over bursts instead of a cycle loop: a request is split
// into INCR bursts of at most 16 beats that never cross 4 KB; burst j's
// address handshake waits for the channel's address slot (one per cycle) and
// for burst j − outstanding to finish; its beats follow the previous burst's
// on the data bus. Reads also honour the read arbiter's order FIFO (at most
// `order_depth` requests granted and not fully answered). The cost of a
// request is then a sum of latency and bytes ÷ bandwidth where the memory is
// the bottleneck, and of the outstanding-burst window where small requests
// make latency the bottleneck (one request per pixel of a strided load).
#pragma once

#include <cstdint>
#include <deque>

namespace loom {
namespace fpga {
namespace perf {

struct DramTiming {
  uint32_t read_latency = 40;    // cycles from an AR handshake to its first R beat
  uint32_t write_latency = 10;   // cycles from a burst's last W beat to its B
  uint32_t max_outstanding = 4;  // bursts in flight per direction
};

// The bus shape both channels split requests by.
struct BusShape {
  uint32_t beat_bytes = 8;  // AXI data width / 8
  uint32_t max_burst_beats = 16;
  uint32_t boundary = 4096;  // no burst crosses a multiple of this
};

class ReadChannel {
 public:
  ReadChannel(const DramTiming& timing, const BusShape& bus, uint32_t order_depth = 4)
      : timing_(timing), bus_(bus), order_depth_(order_depth) {}

  // A request of `bytes` at `addr`, presented at cycle `ready` (the client's
  // request register). Returns the cycle its last beat reaches the client;
  // *first_beat (optional) gets its first beat's.
  uint64_t Read(uint64_t ready, uint64_t addr, uint64_t bytes, uint64_t* first_beat = nullptr);

  uint64_t bytes() const { return bytes_; }

 private:
  const DramTiming timing_;
  const BusShape bus_;
  const uint32_t order_depth_;
  uint64_t next_grant_ = 0;        // the arbiter grants one request per cycle at most
  uint64_t next_address_ = 0;      // AR: one handshake per cycle
  uint64_t data_free_ = 0;         // R: the cycle after the last beat so far
  std::deque<uint64_t> bursts_;    // last-beat cycles of the bursts that may still be in flight
  std::deque<uint64_t> requests_;  // last-beat cycles of the requests in the order FIFO
  uint64_t bytes_ = 0;
};

class WriteChannel {
 public:
  WriteChannel(const DramTiming& timing, const BusShape& bus) : timing_(timing), bus_(bus) {}

  // A request of `bytes` at `addr`, presented at cycle `ready`, whose beats
  // the client can supply from cycle `data_ready` on, one every
  // `cycles_per_beat` cycles (the producer's rate; the bus takes at most one
  // per cycle). Returns the cycle of its last B response.
  uint64_t Write(uint64_t ready, uint64_t addr, uint64_t bytes, uint64_t data_ready, double cycles_per_beat);

  uint64_t bytes() const { return bytes_; }

 private:
  const DramTiming timing_;
  const BusShape bus_;
  uint64_t next_address_ = 0;    // AW: one handshake per cycle
  uint64_t data_free_ = 0;       // W: the cycle after the last beat so far
  std::deque<uint64_t> bursts_;  // B cycles of the bursts that may still be in flight
  uint64_t bytes_ = 0;
};

// The bursts a request of `bytes` at `addr` splits into: calls
// visit(beats) for each, in order.
template <typename Visit>
void ForEachBurst(const BusShape& bus, uint64_t addr, uint64_t bytes, Visit visit) {
  uint64_t beats_left = (bytes + bus.beat_bytes - 1) / bus.beat_bytes;
  while (beats_left > 0) {
    const uint64_t to_boundary = (bus.boundary - addr % bus.boundary) / bus.beat_bytes;
    uint64_t beats = beats_left < bus.max_burst_beats ? beats_left : bus.max_burst_beats;
    if (to_boundary > 0 && beats > to_boundary) beats = to_boundary;
    visit(beats);
    addr += beats * bus.beat_bytes;
    beats_left -= beats;
  }
}

}  // namespace perf
}  // namespace fpga
}  // namespace loom
