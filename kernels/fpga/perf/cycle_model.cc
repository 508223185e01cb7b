#include "kernels/fpga/perf/cycle_model.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <string>

#include "kernels/fpga/perf/unit_timing.h"

namespace loom {
namespace fpga {
namespace perf {
namespace {

namespace c = contract;
using c::Queue;

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr int kUnits = 3;

// Handshake delays of the top level (loom_accel_top.sv, fetch_unit.sv,
// unit_sequencer.sv), in cycles.
constexpr uint64_t kStartToFetch = 2;       // ap_start taken, arguments latched, fetch's first request
constexpr uint64_t kFetchRequestToAr = 2;   // arbiter grant register, burst address register
constexpr uint64_t kBeatToDispatch = 1;     // the command's last beat shifts into the dispatch register
constexpr uint64_t kQueueToHead = 1;        // a pushed command is at the queue's head the next cycle
constexpr uint64_t kHeadToUnit = 1;         // the sequencer registers the command; the unit sees start
constexpr uint64_t kDoneToHead = 1;         // after done the sequencer takes the next head (start 2 after)
constexpr uint64_t kTokenDelay = 1;         // a pushed token counts in its FIFO the next cycle
constexpr uint64_t kDoneToApDone = 3;       // the end of the run is seen, ap_done and the interrupt
constexpr uint32_t kFetchBufferBursts = 2;  // fetch's beat buffer
constexpr uint64_t kResetCycles = 1;        // the datapath reset at ap_start

enum TokenFifo { kLoadToCompute, kComputeToLoad, kComputeToStore, kStoreToCompute, kFifoCount };

// The FIFO unit q pops from / pushes to on its prev or next side; -1 if q
// has no such neighbour (fetch rejects such flags).
int PopFifo(Queue q, bool prev) {
  if (q == Queue::kLoad) return prev ? -1 : kComputeToLoad;
  if (q == Queue::kStore) return prev ? kComputeToStore : -1;
  return prev ? kLoadToCompute : kStoreToCompute;
}
int PushFifo(Queue q, bool prev) {
  if (q == Queue::kLoad) return prev ? -1 : kLoadToCompute;
  if (q == Queue::kStore) return prev ? kStoreToCompute : -1;
  return prev ? kComputeToLoad : kComputeToStore;
}

struct Pending {
  uint32_t index;
  uint64_t dispatched;
};

class Timeline {
 public:
  Timeline(const c::AccelConfig& config, const std::vector<c::Command>& commands, const CycleModelOptions& options,
           CycleEstimate* estimate)
      : config_(config),
        commands_(commands),
        options_(options),
        estimate_(estimate),
        bus_{config.axi_data_bits / 8, 16, 4096},
        read_(options.dram, bus_),
        write_(options.dram, bus_) {
    context_.config = &config_;
    context_.base = options.base;
    context_.read = &read_;
    context_.write = &write_;
    beats_per_command_ = std::max<uint64_t>(1, c::kCommandBits / config.axi_data_bits);
    commands_per_burst_ = std::max<uint64_t>(1, bus_.max_burst_beats / beats_per_command_);
    // The store unit clears its parameter buffer after the datapath reset
    // at ap_start, one record per cycle, before it takes a command.
    unit_free_[static_cast<int>(Queue::kStore)] = kResetCycles + config.param_rows;
  }

  Status Run() {
    for (size_t i = 0; i < commands_.size(); ++i) {
      const uint32_t code = static_cast<uint32_t>(c::GetBits(commands_[i], c::kOpcodeField.lsb, c::kOpcodeField.width));
      if (!c::IsValidOpcode(code))
        return Status::InvalidArgument("command " + std::to_string(i) + ": unknown opcode " + std::to_string(code));
      const Queue q = c::QueueOf(c::OpcodeOf(commands_[i]));
      const c::Deps deps = c::DepsOf(commands_[i]);
      if ((deps.pop_prev && PopFifo(q, true) < 0) || (deps.pop_next && PopFifo(q, false) < 0) ||
          (deps.push_prev && PushFifo(q, true) < 0) || (deps.push_next && PushFifo(q, false) < 0))
        return Status::InvalidArgument("command " + std::to_string(i) + ": token flag towards a missing neighbour");
    }
    uint64_t end = 0;
    size_t started = 0;
    while (started < commands_.size()) {
      uint64_t best = kNever;
      int who = -1;  // kUnits: fetch
      if (next_ < commands_.size()) {
        best = FetchTime();
        if (best != kNever) who = kUnits;
      }
      for (int u = 0; u < kUnits; ++u) {
        const uint64_t t = StartTime(u);
        if (t < best) {
          best = t;
          who = u;
        }
      }
      if (who < 0) {
        const uint32_t index = LowestHead();
        return Status::InvalidArgument("command " + std::to_string(index) +
                                       ": the dependency tokens deadlock (no unit can start)");
      }
      if (who == kUnits) {
        Dispatch(best);
      } else {
        end = std::max(end, Start(who, best));
        ++started;
      }
    }
    estimate_->cycles = end + kDoneToApDone;
    estimate_->dma_read_bytes = read_.bytes() + commands_.size() * c::kCommandBytes;
    estimate_->dma_write_bytes = write_.bytes();
    return Status::Ok();
  }

 private:
  // ---------------------------------------------------------------- fetch
  // The cycle command next_'s last beat arrives, its burst requested once
  // the beat buffer has room (the burst two before it dispatched).
  uint64_t Arrival(uint64_t index) {
    const uint64_t burst = index / commands_per_burst_;
    while (burst_request_.size() <= burst) {
      const uint64_t b = burst_request_.size();
      uint64_t request = kStartToFetch + b;  // one request per cycle at most
      if (b >= kFetchBufferBursts) {
        const uint64_t freeing_last = (b - kFetchBufferBursts + 1) * commands_per_burst_ - 1;
        request = std::max(request, dispatch_time_[freeing_last] + 1);
      }
      if (b > 0) request = std::max(request, burst_request_.back() + 1);
      burst_request_.push_back(request);
    }
    const uint64_t position = index % commands_per_burst_;
    return burst_request_[burst] + kFetchRequestToAr + options_.dram.read_latency +
           (position + 1) * beats_per_command_ + kBeatToDispatch;
  }

  uint64_t FetchTime() {
    const Queue q = c::QueueOf(c::OpcodeOf(commands_[next_]));
    const auto& queue = queues_[static_cast<int>(q)];
    if (queue.size() >= config_.queue_depth) return kNever;
    uint64_t t = std::max(Arrival(next_), room_at_[static_cast<int>(q)]);
    if (next_ > 0) t = std::max(t, dispatch_time_[next_ - 1] + beats_per_command_);
    return t;
  }

  void Dispatch(uint64_t t) {
    const Queue q = c::QueueOf(c::OpcodeOf(commands_[next_]));
    queues_[static_cast<int>(q)].push_back({static_cast<uint32_t>(next_), t});
    dispatch_time_.push_back(t);
    ++next_;
  }

  // ---------------------------------------------------------------- units
  uint64_t StartTime(int u) {
    const auto& queue = queues_[u];
    if (queue.empty()) return kNever;
    const Pending& head = queue.front();
    const c::Deps deps = c::DepsOf(commands_[head.index]);
    const Queue q = static_cast<Queue>(u);
    uint64_t t = std::max(unit_free_[u], head.dispatched + kQueueToHead);
    const bool pops[2] = {deps.pop_prev, deps.pop_next};
    const bool pushes[2] = {deps.push_prev, deps.push_next};
    for (int side = 0; side < 2; ++side) {
      if (pops[side]) {
        const auto& fifo = tokens_[PopFifo(q, side == 0)];
        if (fifo.empty()) return kNever;
        t = std::max(t, fifo.front());
      }
      if (pushes[side] && tokens_[PushFifo(q, side == 0)].size() >= config_.queue_depth) return kNever;
    }
    return t;
  }

  uint64_t Start(int u, uint64_t t) {
    auto& queue = queues_[u];
    const Pending head = queue.front();
    if (queue.size() >= config_.queue_depth) room_at_[u] = t + 1;
    queue.pop_front();
    const c::Command& command = commands_[head.index];
    const c::Deps deps = c::DepsOf(command);
    const Queue q = static_cast<Queue>(u);
    if (deps.pop_prev) tokens_[PopFifo(q, true)].pop_front();
    if (deps.pop_next) tokens_[PopFifo(q, false)].pop_front();
    const uint64_t done = CommandDone(context_, command, t + kHeadToUnit);
    if (deps.push_prev) tokens_[PushFifo(q, true)].push_back(done + kTokenDelay);
    if (deps.push_next) tokens_[PushFifo(q, false)].push_back(done + kTokenDelay);
    unit_free_[u] = done + kDoneToHead;
    estimate_->busy[u] += done - t;
    estimate_->array_macs += ArrayMacs(config_, command);
    if (options_.record_commands)
      estimate_->commands.push_back({head.index, c::OpcodeOf(command), head.dispatched, t, done});
    return done;
  }

  uint32_t LowestHead() const {
    uint32_t lowest = static_cast<uint32_t>(next_);
    for (const auto& queue : queues_) {
      if (!queue.empty()) lowest = std::min(lowest, queue.front().index);
    }
    return lowest;
  }

  const c::AccelConfig& config_;
  const std::vector<c::Command>& commands_;
  const CycleModelOptions& options_;
  CycleEstimate* estimate_;
  BusShape bus_;
  ReadChannel read_;
  WriteChannel write_;
  UnitContext context_;
  uint64_t beats_per_command_ = 4;
  uint64_t commands_per_burst_ = 4;

  size_t next_ = 0;                      // the next command fetch dispatches
  std::vector<uint64_t> dispatch_time_;  // per dispatched command
  std::vector<uint64_t> burst_request_;  // per fetch burst
  std::array<std::deque<Pending>, kUnits> queues_;
  std::array<uint64_t, kUnits> room_at_{};
  std::array<uint64_t, kUnits> unit_free_{};
  std::array<std::deque<uint64_t>, kFifoCount> tokens_;  // the cycles tokens become visible
};

}  // namespace

Status EstimateCycles(const c::AccelConfig& config, const std::vector<c::Command>& commands,
                      const CycleModelOptions& options, CycleEstimate* estimate) {
  *estimate = CycleEstimate{};
  Timeline timeline(config, commands, options, estimate);
  return timeline.Run();
}

}  // namespace perf
}  // namespace fpga
}  // namespace loom
