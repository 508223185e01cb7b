// Activation memory of a graph: liveness over the execution order, then a
// MemoryPlanner assigns arena offsets. Step k is node k; a graph input is live
// from step 0, a graph output until the last step; a value is live from its
// producer to its last consumer (inclusive, so a node's outputs never share
// memory with its inputs). Constants are not in the arena.
#pragma once

#include <cstdint>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"

namespace loom {
namespace memory {

enum class PlannerKind { kGreedy, kLinear };

struct ArenaPlan {
  std::vector<int64_t> offsets;  // per value id: arena offset, -1 if not in the arena
  size_t arena_bytes = 0;
  // The largest sum of live values' (64-byte rounded) sizes at one step: no
  // arena for this execution order and these lifetimes can be smaller.
  size_t lower_bound_bytes = 0;
};

// Plans every non-constant value used by the graph (graph inputs, outputs
// and node inputs/outputs).
Status PlanArena(const ir::Graph& graph, PlannerKind kind, ArenaPlan* plan);

}  // namespace memory
}  // namespace loom
