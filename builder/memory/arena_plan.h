// Activation memory of a graph: liveness over the execution order, then a
// MemoryPlanner assigns arena offsets. Step k is node k; a graph input is live
// from step 0, a graph output until the last step; a value is live from its
// producer to its last consumer (inclusive, so a node's outputs never share
// memory with its inputs, with two exceptions). Constants are not in the arena.
//
// Shared buffers (CPU nodes, row-major, same bytes, never graph inputs or
// outputs):
//   views     the output of Reshape, Flatten, Squeeze, Unsqueeze and Identity
//             is its data input's buffer (the kernels skip the copy);
//   in place  a float32 elementwise node (Relu, Add, Sub, Mul, Div, Sigmoid,
//             Tanh, Clip, LeakyRelu) writes its output over a full-shape
//             input that nothing reads afterwards; loom.ElementwiseChain
//             over its X (input 0) only.
// A group of values sharing a buffer is planned as one buffer, live from its
// first use to its last, so the lower bound counts it once.
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
  int shared_values = 0;  // values placed in another value's buffer (views, in place)
};

// Plans every non-constant value used by the graph (graph inputs, outputs
// and node inputs/outputs).
// Checks the result (CheckArenaPlan) before returning.
Status PlanArena(const ir::Graph& graph, PlannerKind kind, ArenaPlan* plan);

// The overlap checker: every arena value has an aligned place inside the
// arena, and no two values live at one step overlap unless they share a
// buffer by the rules above. Internal error naming the two tensors otherwise.
Status CheckArenaPlan(const ir::Graph& graph, const ArenaPlan& plan);

}  // namespace memory
}  // namespace loom
