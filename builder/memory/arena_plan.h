// Activation memory of a graph: liveness over the execution order, then a
// MemoryPlanner assigns arena offsets. Step k is node k; a graph input is live
// from step 0, a graph output until the last step; a value is live from its
// producer to its last consumer (inclusive, so a node's outputs never share
// memory with its inputs, with the exceptions below). Constants are not in
// the arena.
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
//
// Concat elision: an input of a Concat whose producer can write it straight
// into its slice of the output is placed there (output offset + the slice's
// byte offset), and the Concat kernels skip an input that already sits at its
// place. The input's whole group (views, in place) moves with it, and the
// output's group is then one buffer from the first use of any member to the
// last. Conditions, each for a reason:
//   - the Concat runs on the CPU (the CPU kernels are the ones that skip) and
//     every output dim before `axis` is 1 (negative axis normalised), so each
//     input is one contiguous byte range of the output; output and inputs are
//     row-major (the byte ranges are those of the ONNX shapes);
//   - the output is not a graph output: the caller may bind a graph output to
//     its own memory (ExecutionContext::SetOutput);
//   - the input is an arena value, not a graph input or output (those may be
//     caller memory), in the output's memory space;
//   - it appears once among the Concat's inputs (it has one slice), is not
//     already inside another Concat's output, and its group does not already
//     hold the output (another input of the same group took the place);
//   - the Concat is the last reader of every value of the input's group: after
//     it the slice belongs to the output, which may be overwritten in place
//     while a later reader of the input would still expect the old bytes;
//   - the slice's byte offset is a multiple of kPlanAlignment (64), like every
//     arena offset; an unaligned input is simply copied;
//   - the move does not raise the lower bound: the output's whole buffer is
//     then taken from the input's first use on, which can cost more than the
//     input's own buffer saved (a DenseNet block's input, made long before
//     the block's last Concat). A declined input is copied as before.
// Concats are taken in execution order, so a Concat output that is itself an
// input of a later Concat moves there with its own elided inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"

namespace loom {
namespace memory {

enum class PlannerKind { kGreedy, kLinear };
enum class ConcatElision { kOn, kOff };

struct ArenaPlan {
  std::vector<int64_t> offsets;  // per value id: arena offset, -1 if not in the arena
  size_t arena_bytes = 0;
  // The largest sum of live values' (64-byte rounded) sizes at one step: no
  // arena for this execution order and these lifetimes can be smaller.
  size_t lower_bound_bytes = 0;
  int shared_values = 0;         // values placed in another value's buffer (views, in place, concat elision)
  int concat_inputs_elided = 0;  // Concat inputs placed in their slice of the output
};

// Plans every non-constant value used by the graph (graph inputs, outputs
// and node inputs/outputs). ConcatElision::kOff plans without concat elision
// (for comparison).
// Checks the result (CheckArenaPlan) before returning.
Status PlanArena(const ir::Graph& graph, PlannerKind kind, ArenaPlan* plan, ConcatElision elision = ConcatElision::kOn);

// The overlap checker: every arena value has an aligned place inside the
// arena, and two values live at one step overlap only when they share a
// buffer by the rules above: a view or in-place group at one offset, or an
// elided Concat input exactly at its slice of that Concat's output. Internal
// error naming the two tensors otherwise.
Status CheckArenaPlan(const ir::Graph& graph, const ArenaPlan& plan);

}  // namespace memory
}  // namespace loom
