#include "kernels/fpga/lowering/command_stream.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace loom {
namespace fpga {
namespace lowering {
namespace {

using contract::Queue;

constexpr int kUnits = 3;  // indexed by contract::Queue: load, compute, store
constexpr const char* kUnitNames[kUnits] = {"load", "compute", "store"};

int UnitOf(Queue q) { return static_cast<int>(q); }

// The four token FIFOs, by producer and consumer unit.
enum Fifo { kLoadToCompute, kComputeToLoad, kComputeToStore, kStoreToCompute, kFifoCount };
constexpr const char* kFifoNames[kFifoCount] = {"load->compute", "compute->load", "compute->store", "store->compute"};

// The FIFO from unit `from` to unit `to`; -1 if they are not neighbours.
int FifoBetween(int from, int to) {
  if (from == 0 && to == 1) return kLoadToCompute;
  if (from == 1 && to == 0) return kComputeToLoad;
  if (from == 1 && to == 2) return kComputeToStore;
  if (from == 2 && to == 1) return kStoreToCompute;
  return -1;
}

// Sets the pop or push flag of `command` toward unit `other` (a neighbour).
void SetFlag(contract::Command& command, int self, int other, bool push) {
  const bool prev = other < self;
  const contract::Field& field = push ? (prev ? contract::kPushPrevField : contract::kPushNextField)
                                      : (prev ? contract::kPopPrevField : contract::kPopNextField);
  contract::SetBits(command, field.lsb, field.width, 1);
}

std::string Describe(size_t index, const contract::Command& command) {
  return "command " + std::to_string(index) + " (" + contract::OpcodeName(contract::OpcodeOf(command)) + ")";
}

}  // namespace

CommandStream::CommandStream(const contract::AccelConfig& config, std::string label)
    : n_(config.n), label_(std::move(label)) {}

Status CommandStream::Unencodable(const char* opcode, const std::string& field) const {
  return Status::Unsupported(label_ + ": " + opcode + " field " + field + " does not fit the command format");
}

void CommandStream::Add(const contract::Command& command, std::initializer_list<SramRegion> reads,
                        std::initializer_list<SramRegion> writes) {
  entries_.push_back({command, contract::QueueOf(contract::OpcodeOf(command)), reads, writes});
}

void CommandStream::Count(const contract::LoadAct& op) { traffic_.read_bytes += uint64_t{op.y_size} * op.x_size * op.cb * n_; }
void CommandStream::Count(const contract::LoadWgt& op) { traffic_.read_bytes += uint64_t{op.rows} * n_; }
void CommandStream::Count(const contract::LoadParam& op) {
  traffic_.read_bytes += uint64_t{op.count} * contract::kParamRecordBytes;
}
void CommandStream::Count(const contract::Conv& op) {
  traffic_.array_macs += uint64_t{op.oh} * op.ow * op.cb_count * op.kh * op.kw * n_ * n_;
}
void CommandStream::Count(const contract::Store& op) {
  traffic_.write_bytes += uint64_t{op.oh} * op.ow * n_ * (op.out_int32 ? 4 : 1);
}

Status CommandStream::Finish(std::vector<contract::Command>* out) {
  struct RegionUse {
    int writer = -1;                   // entry index of the last writer
    std::array<int, kUnits> readers{-1, -1, -1};  // last reader per unit since that write
  };
  std::map<std::pair<int, uint32_t>, RegionUse> uses;
  auto use_of = [&](const SramRegion& r) -> RegionUse& { return uses[{static_cast<int>(r.buffer), r.id}]; };

  // covered[c][p]: the latest unit-p command unit c has already waited for.
  std::array<std::array<int, kUnits>, kUnits> covered;
  for (auto& row : covered) row.fill(-1);

  for (size_t e = 0; e < entries_.size(); ++e) {
    Entry& entry = entries_[e];
    const int self = UnitOf(entry.queue);
    std::array<int, kUnits> needs{-1, -1, -1};
    auto need = [&](int producer) {
      if (producer < 0) return;
      const int unit = UnitOf(entries_[producer].queue);
      if (unit != self) needs[unit] = std::max(needs[unit], producer);
    };
    for (const SramRegion& r : entry.reads) need(use_of(r).writer);
    for (const SramRegion& r : entry.writes) {
      const RegionUse& use = use_of(r);
      need(use.writer);
      for (int reader : use.readers) need(reader);
    }
    for (const SramRegion& r : entry.reads) {
      RegionUse& use = use_of(r);
      use.readers[self] = std::max(use.readers[self], static_cast<int>(e));
    }
    for (const SramRegion& r : entry.writes) use_of(r) = RegionUse{static_cast<int>(e), {-1, -1, -1}};

    for (int unit = 0; unit < kUnits; ++unit) {
      const int producer = needs[unit];
      if (producer <= covered[self][unit]) continue;
      if (FifoBetween(unit, self) < 0) {
        return Status::Internal(label_ + ": " + Describe(e, entry.command) + " depends on " +
                                Describe(producer, entries_[producer].command) + ", but the " + kUnitNames[unit] +
                                " and " + kUnitNames[self] + " units share no token FIFO");
      }
      SetFlag(entry.command, self, unit, /*push=*/false);
      SetFlag(entries_[producer].command, unit, self, /*push=*/true);
      covered[self][unit] = producer;
    }
  }
  out->clear();
  out->reserve(entries_.size());
  for (const Entry& entry : entries_) out->push_back(entry.command);
  return Status::Ok();
}

Status CheckTokenBalance(const std::vector<contract::Command>& commands, uint32_t fifo_depth) {
  std::array<uint64_t, kFifoCount> tokens{};
  for (size_t i = 0; i < commands.size(); ++i) {
    const contract::Command& command = commands[i];
    const uint64_t code = contract::GetBits(command, contract::kOpcodeField.lsb, contract::kOpcodeField.width);
    if (!contract::IsValidOpcode(static_cast<uint32_t>(code)))
      return Status::InvalidArgument("command " + std::to_string(i) + ": opcode " + std::to_string(code) + " is invalid");
    const int self = UnitOf(contract::QueueOf(contract::OpcodeOf(command)));
    const contract::Deps deps = contract::DepsOf(command);
    // Per side: (neighbour unit, pop, push); a neighbour of -1 or 3 does not exist.
    const std::array<std::array<int, 3>, 2> sides = {{{self - 1, deps.pop_prev, deps.push_prev},
                                                      {self + 1, deps.pop_next, deps.push_next}}};
    for (const auto& [other, pop, push] : sides) {
      if ((pop || push) && (other < 0 || other >= kUnits)) {
        return Status::InvalidArgument(Describe(i, command) + ": token flag toward a neighbour the " +
                                       kUnitNames[self] + " unit does not have");
      }
    }
    for (const auto& [other, pop, push] : sides) {
      if (!pop) continue;
      const int fifo = FifoBetween(other, self);
      if (tokens[fifo] == 0) {
        return Status::InvalidArgument(Describe(i, command) + " pops a " + kFifoNames[fifo] +
                                       " token that no earlier command pushed");
      }
      --tokens[fifo];
    }
    for (const auto& [other, pop, push] : sides) {
      if (!push) continue;
      const int fifo = FifoBetween(self, other);
      if (++tokens[fifo] > fifo_depth && fifo_depth != 0) {
        return Status::InvalidArgument(Describe(i, command) + " pushes a " + std::to_string(tokens[fifo]) + "th " +
                                       kFifoNames[fifo] + " token; the FIFO holds " + std::to_string(fifo_depth));
      }
    }
  }
  for (int fifo = 0; fifo < kFifoCount; ++fifo) {
    if (tokens[fifo] != 0) {
      return Status::InvalidArgument(std::to_string(tokens[fifo]) + " " + kFifoNames[fifo] +
                                     " token(s) pushed but never popped");
    }
  }
  return Status::Ok();
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
