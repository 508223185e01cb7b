#include "kernels/fpga/model/accel_model.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <random>
#include <sstream>

#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace fpga {
namespace {

using contract::ErrorCode;
using contract::Queue;

constexpr int kUnits = 3;  // load, compute, store: indexed by contract::Queue
constexpr const char* kUnitNames[kUnits] = {"load", "compute", "store"};

// The four token FIFOs; a unit's prev/next neighbour is the one before/after
// it in load -> compute -> store.
enum TokenFifo { kLoadToCompute, kComputeToLoad, kComputeToStore, kStoreToCompute, kFifoCount };
constexpr const char* kFifoNames[kFifoCount] = {"load->compute", "compute->load", "compute->store", "store->compute"};

// The FIFO unit `q` takes tokens from (pop) or gives tokens to (push) on the
// side of its prev or next neighbour. Only called for sides the unit has.
TokenFifo PopFifo(Queue q, bool prev) {
  if (q == Queue::kLoad) return kComputeToLoad;    // load's only side: next
  if (q == Queue::kStore) return kComputeToStore;  // store's only side: prev
  return prev ? kLoadToCompute : kStoreToCompute;
}
TokenFifo PushFifo(Queue q, bool prev) {
  if (q == Queue::kLoad) return kLoadToCompute;
  if (q == Queue::kStore) return kStoreToCompute;
  return prev ? kComputeToLoad : kComputeToStore;
}

struct Entry {
  contract::Command command;
  uint32_t index;  // position in the stream, for ERROR_CMD
};

std::string Label(uint32_t index, const contract::Command& command) {
  const uint64_t code = contract::GetBits(command, contract::kOpcodeField.lsb, contract::kOpcodeField.width);
  std::string label = "command " + std::to_string(index);
  if (contract::IsValidOpcode(static_cast<uint32_t>(code)))
    label += std::string(" (") + contract::OpcodeName(contract::OpcodeOf(command)) + ")";
  return label;
}

// The state of one run: fetch position, queues, token FIFOs (hw/README.md,
// Micro-architecture). Run() steps it until the stream is done or an error.
class Scheduler {
 public:
  Scheduler(const contract::AccelConfig& config, Datapath* datapath, const RunArgs& args, RunResult* result)
      : depth_(config.queue_depth), datapath_(datapath), args_(args), result_(result), rng_(args.schedule_seed) {}

  void Run() {
    if (args_.cmd_addr % contract::kCommandBytes != 0) {
      std::ostringstream m;
      m << "command stream address 0x" << std::hex << args_.cmd_addr << std::dec << " is not a multiple of "
        << contract::kCommandBytes;
      return Fail(0, "command 0", Fault::Of(ErrorCode::kMisaligned, m.str()));
    }
    while (result_->ok()) {
      std::array<int, kUnits + 1> ready{};
      int count = 0;
      if (FetchCanStep()) ready[count++] = kFetch;
      for (int unit = 0; unit < kUnits; ++unit) {
        if (CanStart(unit, nullptr)) ready[count++] = unit;
      }
      if (count == 0) {
        if (!Done()) Deadlock();
        return;
      }
      // Seed 0: the first ready in the order fetch, load, compute, store.
      const int pick = args_.schedule_seed == 0 ? ready[0] : ready[rng_() % static_cast<uint64_t>(count)];
      if (pick == kFetch) {
        FetchStep();
      } else {
        Execute(pick);
      }
    }
  }

 private:
  static constexpr int kFetch = kUnits;

  bool Done() const {
    return next_ == args_.count && !held_ &&
           std::all_of(queues_.begin(), queues_.end(), [](const std::deque<Entry>& q) { return q.empty(); });
  }

  bool FetchCanStep() const {
    return next_ < args_.count && (!held_ || queues_[static_cast<int>(QueueOfEntry(*held_))].size() < depth_);
  }

  static Queue QueueOfEntry(const Entry& e) { return contract::QueueOf(contract::OpcodeOf(e.command)); }

  // Reads and decodes the next command unless one is held, then dispatches it
  // if its queue has room (else holds it: fetch stalls).
  void FetchStep() {
    if (!held_) {
      const uint32_t index = next_;
      uint8_t bytes[contract::kCommandBytes];
      const Fault read =
          datapath_->ReadDram(args_.cmd_addr + uint64_t{index} * contract::kCommandBytes, bytes, sizeof bytes);
      if (!read.ok())
        return Fail(index, "command " + std::to_string(index), Fault::Of(read.code, "fetch: " + read.detail));
      const Entry entry{CommandFromBytes(bytes), index};
      const Fault decoded = Decode(entry.command);
      if (!decoded.ok()) return Fail(index, Label(index, entry.command), decoded);
      held_ = entry;
    }
    std::deque<Entry>& queue = queues_[static_cast<int>(QueueOfEntry(*held_))];
    if (queue.size() >= depth_) return;
    queue.push_back(*held_);
    held_.reset();
    ++next_;
  }

  // BAD_OPCODE for an unknown opcode, BAD_TOKENS for a flag toward a
  // neighbour the command's unit does not have.
  static Fault Decode(const contract::Command& command) {
    const uint64_t code = contract::GetBits(command, contract::kOpcodeField.lsb, contract::kOpcodeField.width);
    if (!contract::IsValidOpcode(static_cast<uint32_t>(code)))
      return Fault::Of(ErrorCode::kBadOpcode, "opcode " + std::to_string(code) + " is not a command");
    const Queue q = contract::QueueOf(contract::OpcodeOf(command));
    const contract::Deps deps = contract::DepsOf(command);
    const char* unit = kUnitNames[static_cast<int>(q)];
    if ((deps.pop_prev || deps.push_prev) && !contract::QueueHasPrev(q))
      return Fault::Of(ErrorCode::kBadTokens, std::string(deps.pop_prev ? "pop_prev" : "push_prev") + " set, but the " +
                                                  unit + " unit has no previous unit");
    if ((deps.pop_next || deps.push_next) && !contract::QueueHasNext(q))
      return Fault::Of(ErrorCode::kBadTokens, std::string(deps.pop_next ? "pop_next" : "push_next") + " set, but the " +
                                                  unit + " unit has no next unit");
    return Fault::Ok();
  }

  // Whether the unit's head command has its tokens and room for its pushes;
  // if not and `why` is given, what it waits for.
  bool CanStart(int unit, std::string* why) const {
    const std::deque<Entry>& queue = queues_[unit];
    if (queue.empty()) {
      if (why) *why = "idle";
      return false;
    }
    const Queue q = static_cast<Queue>(unit);
    const contract::Deps deps = contract::DepsOf(queue.front().command);
    auto head = [&] { return Label(queue.front().index, queue.front().command); };
    for (const auto& [flag, prev] : {std::pair{deps.pop_prev, true}, std::pair{deps.pop_next, false}}) {
      if (flag && tokens_[PopFifo(q, prev)] == 0) {
        if (why) *why = head() + " waits for a " + kFifoNames[PopFifo(q, prev)] + " token";
        return false;
      }
    }
    for (const auto& [flag, prev] : {std::pair{deps.push_prev, true}, std::pair{deps.push_next, false}}) {
      if (flag && tokens_[PushFifo(q, prev)] >= depth_) {
        if (why) *why = head() + " waits for room in the full " + kFifoNames[PushFifo(q, prev)] + " token FIFO";
        return false;
      }
    }
    return true;
  }

  void Execute(int unit) {
    const Entry entry = queues_[unit].front();
    queues_[unit].pop_front();
    const Queue q = static_cast<Queue>(unit);
    const contract::Deps deps = contract::DepsOf(entry.command);
    if (deps.pop_prev) --tokens_[PopFifo(q, true)];
    if (deps.pop_next) --tokens_[PopFifo(q, false)];
    const Fault fault = datapath_->Execute(entry.command);
    if (!fault.ok()) return Fail(entry.index, Label(entry.index, entry.command), fault);
    if (deps.push_prev) ++tokens_[PushFifo(q, true)];
    if (deps.push_next) ++tokens_[PushFifo(q, false)];
    ++result_->commands[unit];
  }

  // No unit can start and fetch cannot move: report the lowest-index head
  // command and what every unit and fetch wait for.
  void Deadlock() {
    std::optional<Entry> first;
    std::string detail = "deadlock:";
    for (int unit = 0; unit < kUnits; ++unit) {
      std::string why;
      CanStart(unit, &why);
      detail += std::string(" ") + kUnitNames[unit] + ": " + why + ";";
      if (!queues_[unit].empty() && (!first || queues_[unit].front().index < first->index))
        first = queues_[unit].front();
    }
    if (held_) {
      detail += " fetch: command " + std::to_string(held_->index) + " waits for room in the full " +
                kUnitNames[static_cast<int>(QueueOfEntry(*held_))] + " queue";
    } else {
      detail += " fetch: done";
    }
    if (!first) first = held_;  // cannot happen: fetch only stalls on a full queue
    Fail(first->index, Label(first->index, first->command), Fault::Of(ErrorCode::kDeadlock, detail));
  }

  void Fail(uint32_t index, const std::string& label, const Fault& fault) {
    result_->error = fault.code;
    result_->error_cmd = index;
    result_->error_detail = label + ": " + fault.detail;
  }

  const uint32_t depth_;
  Datapath* datapath_;
  const RunArgs& args_;
  RunResult* result_;
  std::mt19937_64 rng_;
  uint32_t next_ = 0;          // next command fetch reads
  std::optional<Entry> held_;  // fetched, waiting for room in its queue
  std::array<std::deque<Entry>, kUnits> queues_;
  std::array<uint32_t, kFifoCount> tokens_{};
};

}  // namespace

AccelModel::AccelModel(const contract::AccelConfig& config, DeviceMemory* memory)
    : config_(config), memory_(memory), datapath_(config_, memory) {}

Status AccelModel::Run(const RunArgs& args, RunResult* result) {
  if (result == nullptr) return Status::InvalidArgument("AccelModel::Run: result is null");
  if (memory_ == nullptr) return Status::InvalidArgument("AccelModel: no device memory");
  if (config_.n == 0 || config_.queue_depth == 0) {
    return Status::InvalidArgument(std::string("AccelModel: configuration ") +
                                   (config_.name ? config_.name : "(unnamed)") + " has n or queue_depth 0");
  }
  *result = RunResult();
  datapath_.Reset(args.base);
  Scheduler(config_, &datapath_, args, result).Run();
  const Counters& counters = datapath_.counters();
  result->bytes_read = counters.bytes_read;
  result->bytes_written = counters.bytes_written;
  result->macs = counters.macs;
  return Status::Ok();
}

}  // namespace fpga
}  // namespace loom
