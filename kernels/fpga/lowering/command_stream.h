// CommandStream: builds a command stream from commands listed in the order
// they should run, each with the on-chip buffer regions it reads and writes,
// and derives the dependency tokens (hw/README.md, Commands) from those
// regions instead of asking every lowering to place them by hand.
//
// Token derivation (Finish). The units run their queues in order, and the
// k-th token a unit pops from a FIFO is the k-th its neighbour pushed, so a
// token from command p means "p and everything before it in p's queue are
// done". For each command c, in stream order:
//   - it needs, per other unit, the latest command there that it depends on:
//     the last writer of every region it reads (read after write) and the
//     last writer and the readers since of every region it writes (write
//     after read, write after write);
//   - per neighbour, c pops one token if that latest producer p is later than
//     what c's queue has already waited for (an earlier pop covers it, since
//     units are in order); then p pushes one token toward c's unit.
// Pops on one FIFO then name strictly increasing producers, so each pushed
// token is popped exactly once and in FIFO order: the stream is balanced.
// An initially free region has no writer or reader, so its first use takes
// no token. A dependency between load and store (no FIFO between them) is an
// Internal error: the lowering must route it through compute.
//
// Because every dependency points backward in the stream, running the stream
// one command at a time in stream order is a legal execution; then no
// interleaving of the units can deadlock as long as, in that order, no FIFO
// ever holds more than queue_depth tokens (CheckTokenBalance checks both).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/status.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {
namespace lowering {

enum class Sram : uint8_t { kInput, kWeight, kAccumulator };

// A part of an on-chip buffer; two regions conflict iff both fields are equal
// (a lowering names buffer halves 0 and 1, or any ids that do not overlap).
struct SramRegion {
  Sram buffer;
  uint32_t id;
};

// DMA bytes the commands move, counted as the DMA_*_BYTES registers do
// (without the command fetch), and the array's issued MACs.
struct StreamTraffic {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t array_macs = 0;  // N² · Σ CONV oh · ow · cb_count · kh · kw
};

class CommandStream {
 public:
  // label prefixes error messages ("conv1 (Conv)").
  CommandStream(const contract::AccelConfig& config, std::string label);

  // Appends op (contract::LoadAct, Conv, ...; its deps are ignored). Fails,
  // naming the field, when a field does not fit its width.
  template <typename Op>
  Status Append(const Op& op, std::initializer_list<SramRegion> reads, std::initializer_list<SramRegion> writes) {
    contract::Command command{};
    if (!contract::Encode(op, &command)) return FieldError(op);
    Add(command, reads, writes);
    Count(op);
    return Status::Ok();
  }

  // Sets the dependency flags and returns the commands.
  Status Finish(std::vector<contract::Command>* out);

  const StreamTraffic& traffic() const { return traffic_; }

 private:
  struct Entry {
    contract::Command command;
    contract::Queue queue;
    std::vector<SramRegion> reads, writes;
  };

  template <typename Op>
  Status FieldError(const Op& op) const {
    std::string field = "?";
    Op::ForEachField(op, [&](const contract::Field& f, auto value) {
      if (field == "?" && !contract::detail::Fits(value, f)) field = f.name + (" = " + std::to_string(value));
    });
    return Unencodable(contract::OpcodeName(Op::kOpcode), field);
  }
  Status Unencodable(const char* opcode, const std::string& field) const;

  void Add(const contract::Command& command, std::initializer_list<SramRegion> reads,
           std::initializer_list<SramRegion> writes);
  void Count(const contract::LoadAct& op);
  void Count(const contract::LoadWgt& op);
  void Count(const contract::LoadParam& op);
  void Count(const contract::Conv& op);
  void Count(const contract::Add&) {}
  void Count(const contract::Maxpool&) {}
  void Count(const contract::Store& op);

  uint32_t n_;
  std::string label_;
  std::vector<Entry> entries_;
  StreamTraffic traffic_;
};

// Ok when, running the commands one at a time in stream order, every pop
// finds a token an earlier command pushed, no FIFO ever holds more than
// fifo_depth tokens (0: no limit; pass the configuration's queue_depth), no
// command uses a neighbour its unit lacks, and every FIFO ends empty. Such a
// stream finishes under every interleaving of the units (see above).
// Otherwise the message names the command and the FIFO.
Status CheckTokenBalance(const std::vector<contract::Command>& commands, uint32_t fifo_depth = 0);

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
