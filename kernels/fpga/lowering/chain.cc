#include "kernels/fpga/lowering/chain.h"

namespace loom {
namespace fpga {
namespace lowering {

namespace {

// Index of the last (or first) command of `queue` in [begin, end), or -1.
long FindInQueue(const std::vector<contract::Command>& commands, contract::Queue queue, bool last) {
  const long n = static_cast<long>(commands.size());
  for (long k = 0; k < n; ++k) {
    const long i = last ? n - 1 - k : k;
    if (contract::QueueOf(contract::OpcodeOf(commands[static_cast<size_t>(i)])) == queue) return i;
  }
  return -1;
}

void SetFlag(contract::Command* command, const contract::Field& field) {
  contract::SetBits(*command, field.lsb, 1, 1);
}

}  // namespace

Status AppendChained(const std::vector<contract::Command>& next, std::vector<contract::Command>* stream) {
  if (stream->empty() || next.empty()) {
    stream->insert(stream->end(), next.begin(), next.end());
    return Status::Ok();
  }
  const long last_store = FindInQueue(*stream, contract::Queue::kStore, /*last=*/true);
  const long first_load = FindInQueue(next, contract::Queue::kLoad, /*last=*/false);
  if (last_store < 0 || first_load < 0) {
    // Without stores before or loads after, nothing B reads depends on A.
    stream->insert(stream->end(), next.begin(), next.end());
    return Status::Ok();
  }
  contract::Command& store = (*stream)[static_cast<size_t>(last_store)];
  if (contract::DepsOf(store).push_prev)
    return Status::Internal("chaining: the last store already pushes a token to compute");
  if (contract::DepsOf(next[static_cast<size_t>(first_load)]).pop_next)
    return Status::Internal("chaining: the next program's first load already waits for compute");
  SetFlag(&store, contract::kPushPrevField);

  contract::Add barrier;
  barrier.rows = 1;
  barrier.a_multiplier = barrier.b_multiplier = 1u << 30;
  barrier.deps.pop_next = true;
  barrier.deps.push_prev = true;
  contract::Command encoded{};
  if (!contract::Encode(barrier, &encoded)) return Status::Internal("chaining: cannot encode the barrier");
  stream->push_back(encoded);

  const size_t base = stream->size();
  stream->insert(stream->end(), next.begin(), next.end());
  SetFlag(&(*stream)[base + static_cast<size_t>(first_load)], contract::kPopNextField);
  return Status::Ok();
}

}  // namespace lowering
}  // namespace fpga
}  // namespace loom
