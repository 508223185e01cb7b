#include "builder/memory/arena_plan.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>

#include "builder/memory/memory_planner.h"
#include "kernels/common/kernel_checks.h"
#include "schemas/plan_format.h"

namespace loom {
namespace memory {
namespace {

// Ops whose output holds the data input's bytes unchanged (the CPU kernels
// skip the copy when output and input share memory).
bool IsView(const ir::Node& n) {
  static const char* const kOps[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
  return n.domain.empty() && std::any_of(std::begin(kOps), std::end(kOps), [&](const char* op) { return n.op == op; });
}

// Float elementwise ops whose CPU kernels compute each output element from
// the same element of a full-shape input, so the output may overwrite it.
bool IsInPlaceElementwise(const ir::Node& n) {
  static const char* const kOps[] = {"Relu", "Add", "Sub", "Mul", "Div", "Sigmoid", "Tanh", "Clip", "LeakyRelu"};
  return n.domain.empty() && n.fused.empty() &&
         std::any_of(std::begin(kOps), std::end(kOps), [&](const char* op) { return n.op == op; });
}

// For a Concat whose inputs can be elided (see the header: CPU, row-major,
// every output dim before the axis 1, output not a graph output): the byte
// offset of each input in the output. False for any other node.
bool ConcatSlices(const ir::Graph& graph, const ir::Node& n, std::vector<int64_t>* slices) {
  slices->clear();
  if (n.op != "Concat" || !n.domain.empty() || n.device != Device::kCpu || n.outputs.size() != 1 || n.inputs.empty())
    return false;
  const int out = n.outputs[0];
  if (out < 0 || graph.IsGraphOutput(out)) return false;
  const ir::Value& o = graph.value(out);
  if (o.is_constant() || !o.shape_known || o.layout != Layout::kRowMajor || o.shape.empty()) return false;
  int64_t axis = 0;
  if (!NormalizeAxis(n.attrs.GetInt("axis", 1), static_cast<int64_t>(o.shape.size()), &axis)) return false;
  for (int64_t d = 0; d < axis; ++d)
    if (o.shape[static_cast<size_t>(d)] != 1) return false;
  uint64_t offset = 0;
  for (int in : n.inputs) {
    if (in < 0) return false;
    const ir::Value& v = graph.value(in);
    if (v.dtype != o.dtype || !v.shape_known || v.layout != Layout::kRowMajor) return false;
    slices->push_back(static_cast<int64_t>(offset));
    offset += v.num_bytes();
  }
  return offset == o.num_bytes();
}

// ElementwiseChain (kernels/cpu/math/elementwise_chain.h) may write over its
// X only: it reads its other operands block by block after writing a block.
bool IsElementwiseChain(const ir::Node& n) { return n.domain == "loom" && n.op == "ElementwiseChain"; }

// Whether input `j` of node `n` may take the node's output buffer.
bool MayOverwriteInput(const ir::Node& n, size_t j) { return IsElementwiseChain(n) ? j == 0 : IsInPlaceElementwise(n); }

struct Liveness {
  std::vector<int> first, last;  // per value id: steps of first and last use, -1 when not in the arena
};

Liveness ComputeLiveness(const ir::Graph& graph) {
  const size_t num_values = graph.values().size();
  const int last_step = std::max(0, static_cast<int>(graph.nodes().size()) - 1);
  Liveness l;
  l.first.assign(num_values, -1);
  l.last.assign(num_values, -1);
  auto touch = [&](int id, int step) {
    if (id < 0 || graph.value(id).is_constant()) return;
    const size_t i = static_cast<size_t>(id);
    if (l.first[i] < 0 || step < l.first[i]) l.first[i] = step;
    l.last[i] = std::max(l.last[i], step);
  };
  for (int id : graph.inputs()) touch(id, 0);
  for (int step = 0; step < static_cast<int>(graph.nodes().size()); ++step) {
    const ir::Node& n = graph.node(step);
    for (int id : n.inputs) touch(id, step);
    for (int id : n.outputs) touch(id, step);
  }
  for (int id : graph.outputs()) touch(id, last_step);
  return l;
}

// Groups of values that share one buffer: views and in-place outputs join
// the group of the input whose memory they take (Assign). Graph inputs and
// outputs never share (the caller may bind them to its own memory). Then
// ElideConcatInputs moves whole groups into their slice of a Concat output:
// a buffer is a group of groups, each value at a byte offset in it.
class SharedBuffers {
 public:
  SharedBuffers(const ir::Graph& graph, const Liveness& live) : graph_(graph), live_(live) {
    root_.resize(graph.values().size());
    std::iota(root_.begin(), root_.end(), 0);
    members_.resize(graph.values().size());
    for (size_t i = 0; i < members_.size(); ++i) members_[i] = {static_cast<int>(i)};
    buffer_ = root_;
    offset_.assign(graph.values().size(), 0);
    buffer_members_ = members_;
  }

  void Assign() {
    for (int step = 0; step < static_cast<int>(graph_.nodes().size()); ++step) {
      const ir::Node& n = graph_.node(step);
      if (n.device != Device::kCpu || n.outputs.size() != 1 || n.inputs.empty()) continue;
      const int out = n.outputs[0];
      if (IsView(n)) {
        if (Compatible(n.inputs[0], out)) Join(n.inputs[0], out);
      } else if ((IsInPlaceElementwise(n) || IsElementwiseChain(n)) && graph_.value(out).dtype == DType::kFloat32) {
        // Of the inputs whose buffer may take the output, the one in use
        // longest: a residual stream then stays in one buffer instead of
        // alternating between two that overlap at each Add.
        int chosen = -1;
        for (size_t j = 0; j < n.inputs.size(); ++j) {
          const int in = n.inputs[j];
          if (!MayOverwriteInput(n, j) || !Compatible(in, out) || graph_.value(in).shape != graph_.value(out).shape ||
              !DiesAt(in, step))
            continue;
          bool read_elsewhere = false;  // another input of the node in the same buffer
          for (size_t k = 0; k < n.inputs.size(); ++k)
            if (k != j && n.inputs[k] >= 0 && Root(n.inputs[k]) == Root(in)) read_elsewhere = true;
          if (read_elsewhere) continue;
          if (chosen < 0 || FirstUse(in) < FirstUse(chosen)) chosen = in;
        }
        if (chosen >= 0) Join(chosen, out);
      }
    }
    buffer_ = root_;
    buffer_members_ = members_;
  }

  // After Assign: places the inputs of Concats that qualify (see the header)
  // in their slice of the output. Returns how many.
  int ElideConcatInputs() {
    int elided = 0;
    std::vector<int64_t> slices;
    for (int step = 0; step < static_cast<int>(graph_.nodes().size()); ++step) {
      const ir::Node& n = graph_.node(step);
      if (!ConcatSlices(graph_, n, &slices) || live_.first[static_cast<size_t>(n.outputs[0])] < 0) continue;
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        const int in = n.inputs[k], out = n.outputs[0];
        if (slices[k] % static_cast<int64_t>(kPlanAlignment) != 0 || !CanElide(n, step, in)) continue;
        if (LowerBound(Buffer(in), Buffer(out)) > LowerBound()) continue;
        MoveBuffer(in, out, slices[k]);
        ++elided;
      }
    }
    return elided;
  }

  // The share group (views, in place) of a value.
  int Root(int id) const { return root_[static_cast<size_t>(id)]; }
  // The value whose buffer holds id (after concat elision), and id's byte offset in it.
  int Buffer(int id) const { return buffer_[static_cast<size_t>(id)]; }
  int64_t OffsetInBuffer(int id) const { return offset_[static_cast<size_t>(id)]; }

 private:
  // `in`, an input of the Concat n at `step`, may be written into its slice
  // of n's output.
  bool CanElide(const ir::Node& n, int step, int in) const {
    const int out = n.outputs[0];
    if (std::count(n.inputs.begin(), n.inputs.end(), in) != 1) return false;
    const ir::Value& v = graph_.value(in);
    if (v.is_constant() || live_.first[static_cast<size_t>(in)] < 0) return false;
    // Not in another Concat's output already, and not holding this one's.
    const int from = Buffer(in);
    if (from != Root(in) || from == Buffer(out) || graph_.value(from).num_bytes() != v.num_bytes()) return false;
    for (int m : buffer_members_[static_cast<size_t>(from)]) {
      const ir::Value& mv = graph_.value(m);
      if (graph_.IsGraphInput(m) || graph_.IsGraphOutput(m)) return false;
      if (mv.layout != Layout::kRowMajor || mv.memory_space != graph_.value(out).memory_space) return false;
      if (live_.last[static_cast<size_t>(m)] > step) return false;  // read after the Concat
    }
    return true;
  }

  // The most bytes (64-byte rounded) of buffers live at one step, as the
  // planner counts them; with buffer `from` merged into buffer `to` if given.
  size_t LowerBound(int from = -1, int to = -1) const {
    const int steps = static_cast<int>(graph_.nodes().size()) + 1;
    std::vector<int64_t> live_bytes(static_cast<size_t>(steps) + 1, 0);  // a difference array over steps
    for (size_t b = 0; b < buffer_members_.size(); ++b) {
      if (static_cast<int>(b) == from || live_.first[b] < 0 || buffer_[b] != static_cast<int>(b)) continue;
      int first = steps, last = -1;
      for (int merged : {static_cast<int>(b), static_cast<int>(b) == to ? from : -1}) {
        if (merged < 0) continue;
        for (int m : buffer_members_[static_cast<size_t>(merged)]) {
          if (live_.first[static_cast<size_t>(m)] < 0) continue;
          first = std::min(first, live_.first[static_cast<size_t>(m)]);
          last = std::max(last, live_.last[static_cast<size_t>(m)]);
        }
      }
      const size_t bytes = graph_.value(static_cast<int>(b)).num_bytes();
      const int64_t rounded = static_cast<int64_t>((bytes + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment);
      live_bytes[static_cast<size_t>(first)] += rounded;
      live_bytes[static_cast<size_t>(last) + 1] -= rounded;
    }
    int64_t now = 0, most = 0;
    for (int64_t d : live_bytes) most = std::max(most, now += d);
    return static_cast<size_t>(most);
  }

  // Moves the buffer holding `in` to `slice` bytes into the place of `out`.
  void MoveBuffer(int in, int out, int64_t slice) {
    const size_t from = static_cast<size_t>(Buffer(in)), to = static_cast<size_t>(Buffer(out));
    const int64_t shift = OffsetInBuffer(out) + slice - OffsetInBuffer(in);
    for (int m : buffer_members_[from]) {
      buffer_[static_cast<size_t>(m)] = static_cast<int>(to);
      offset_[static_cast<size_t>(m)] += shift;
      buffer_members_[to].push_back(m);
    }
    buffer_members_[from].clear();
  }

  // Both in the arena, same bytes, same memory, neither a graph input or output.
  bool Compatible(int in, int out) const {
    if (in < 0 || out < 0 || Root(out) != out) return false;
    const ir::Value& a = graph_.value(in);
    const ir::Value& b = graph_.value(out);
    if (a.is_constant() || live_.first[static_cast<size_t>(in)] < 0) return false;
    if (a.layout != Layout::kRowMajor || b.layout != Layout::kRowMajor || a.memory_space != b.memory_space)
      return false;
    if (a.num_bytes() != b.num_bytes() || a.num_bytes() == 0) return false;
    for (int m : members_[static_cast<size_t>(Root(in))])
      if (graph_.IsGraphInput(m) || graph_.IsGraphOutput(m)) return false;
    return !graph_.IsGraphInput(out) && !graph_.IsGraphOutput(out);
  }

  // No value sharing in's buffer is read after `step`.
  bool DiesAt(int in, int step) const {
    for (int m : members_[static_cast<size_t>(Root(in))])
      if (live_.last[static_cast<size_t>(m)] > step) return false;
    return true;
  }

  // First step at which any value sharing id's buffer is used.
  int FirstUse(int id) const {
    int first = live_.first[static_cast<size_t>(id)];
    for (int m : members_[static_cast<size_t>(Root(id))]) first = std::min(first, live_.first[static_cast<size_t>(m)]);
    return first;
  }

  void Join(int in, int out) {
    const int r = Root(in);
    root_[static_cast<size_t>(out)] = r;
    members_[static_cast<size_t>(r)].push_back(out);
    members_[static_cast<size_t>(out)].clear();
  }

  const ir::Graph& graph_;
  const Liveness& live_;
  std::vector<int> root_;
  std::vector<std::vector<int>> members_;  // of each root
  std::vector<int> buffer_;                // per value: the value whose buffer holds it
  std::vector<int64_t> offset_;            // per value: its byte offset in that buffer
  std::vector<std::vector<int>> buffer_members_;  // of each buffer
};

}  // namespace

Status PlanArena(const ir::Graph& graph, PlannerKind kind, ArenaPlan* plan, ConcatElision elision) {
  const size_t num_values = graph.values().size();
  const Liveness live = ComputeLiveness(graph);
  SharedBuffers shared(graph, live);
  shared.Assign();
  const int elided = elision == ConcatElision::kOn ? shared.ElideConcatInputs() : 0;

  // One planner buffer per shared buffer, live from its first member's first use to its last member's last use.
  std::vector<int> buffer_first(num_values, -1), buffer_last(num_values, -1);
  for (size_t i = 0; i < num_values; ++i) {
    if (live.first[i] < 0) continue;
    const size_t b = static_cast<size_t>(shared.Buffer(static_cast<int>(i)));
    buffer_first[b] = buffer_first[b] < 0 ? live.first[i] : std::min(buffer_first[b], live.first[i]);
    buffer_last[b] = std::max(buffer_last[b], live.last[i]);
  }
  std::unique_ptr<MemoryPlanner> planner;
  if (kind == PlannerKind::kLinear) {
    planner = std::make_unique<LinearMemoryPlanner>();
  } else {
    planner = std::make_unique<GreedyMemoryPlanner>();
  }
  std::vector<int> planner_buffer(num_values, -1);
  for (size_t i = 0; i < num_values; ++i) {
    if (live.first[i] < 0) continue;
    const ir::Value& v = graph.values()[i];
    if (!v.shape_known || DTypeSize(v.dtype) == 0 || NumElements(v.shape) < 0)
      return Status::Internal("memory planning: tensor '" + v.name + "' has no static size");
    if (shared.Buffer(static_cast<int>(i)) != static_cast<int>(i)) continue;
    planner_buffer[i] = planner->num_buffers();
    RETURN_IF_ERROR(planner->AddBuffer(v.num_bytes(), buffer_first[i], buffer_last[i]));
  }
  RETURN_IF_ERROR(planner->Plan());
  plan->offsets.assign(num_values, -1);
  plan->shared_values = 0;
  for (size_t i = 0; i < num_values; ++i) {
    if (live.first[i] < 0) continue;
    const int b = shared.Buffer(static_cast<int>(i));
    plan->offsets[i] = static_cast<int64_t>(planner->GetOffset(planner_buffer[static_cast<size_t>(b)])) +
                       shared.OffsetInBuffer(static_cast<int>(i));
    if (b != static_cast<int>(i)) ++plan->shared_values;
  }
  plan->arena_bytes = planner->GetMaxMemory();
  plan->lower_bound_bytes = planner->GetLowerBound();
  plan->concat_inputs_elided = elided;
  return CheckArenaPlan(graph, *plan);
}

namespace {

// True when `in` may overlap `out` while both are live: `out` is the output
// of a Concat whose inputs can be elided, `in` one of its inputs (once), an
// arena value that is no graph input or output, in the same memory space,
// read last by that Concat and placed exactly at its slice.
bool IsElidedConcatInput(const ir::Graph& graph, const std::vector<int>& producer, const Liveness& live,
                         const ArenaPlan& plan, int in, int out) {
  const int step = producer[static_cast<size_t>(out)];
  std::vector<int64_t> slices;
  if (step < 0 || !ConcatSlices(graph, graph.node(step), &slices)) return false;
  const ir::Node& n = graph.node(step);
  const auto at = std::find(n.inputs.begin(), n.inputs.end(), in);
  if (at == n.inputs.end() || std::count(n.inputs.begin(), n.inputs.end(), in) != 1) return false;
  if (graph.IsGraphInput(in) || graph.IsGraphOutput(in) || live.last[static_cast<size_t>(in)] != step) return false;
  if (graph.value(in).memory_space != graph.value(out).memory_space) return false;
  const int64_t slice = slices[static_cast<size_t>(at - n.inputs.begin())];
  return plan.offsets[static_cast<size_t>(in)] == plan.offsets[static_cast<size_t>(out)] + slice;
}

}  // namespace

Status CheckArenaPlan(const ir::Graph& graph, const ArenaPlan& plan) {
  const Liveness live = ComputeLiveness(graph);
  SharedBuffers shared(graph, live);
  shared.Assign();
  std::vector<int> placed;
  for (size_t i = 0; i < graph.values().size(); ++i) {
    if (live.first[i] < 0) continue;
    const ir::Value& v = graph.values()[i];
    const int64_t offset = i < plan.offsets.size() ? plan.offsets[i] : -1;
    if (offset < 0 || offset % static_cast<int64_t>(kPlanAlignment) != 0 ||
        static_cast<uint64_t>(offset) + v.num_bytes() > plan.arena_bytes)
      return Status::Internal("memory plan: tensor '" + v.name + "' at offset " + std::to_string(offset) + " (" +
                              std::to_string(v.num_bytes()) + " bytes) is not an aligned place in the arena of " +
                              std::to_string(plan.arena_bytes) + " bytes");
    placed.push_back(static_cast<int>(i));
  }
  const std::vector<int> producer = graph.BuildUseLists().producer;
  for (size_t a = 0; a < placed.size(); ++a) {
    const int i = placed[a];
    for (size_t b = a + 1; b < placed.size(); ++b) {
      const int j = placed[b];
      const size_t ui = static_cast<size_t>(i), uj = static_cast<size_t>(j);
      if (live.first[ui] > live.last[uj] || live.first[uj] > live.last[ui]) continue;
      const uint64_t i0 = static_cast<uint64_t>(plan.offsets[ui]), j0 = static_cast<uint64_t>(plan.offsets[uj]);
      if (i0 >= j0 + graph.value(j).num_bytes() || j0 >= i0 + graph.value(i).num_bytes()) continue;
      if (shared.Root(i) == shared.Root(j) && i0 == j0) continue;  // a view or in place
      if (IsElidedConcatInput(graph, producer, live, plan, i, j) ||
          IsElidedConcatInput(graph, producer, live, plan, j, i))
        continue;
      return Status::Internal("memory plan: tensors '" + graph.value(i).name + "' and '" + graph.value(j).name +
                              "' are live at the same time and overlap");
    }
  }
  return Status::Ok();
}

}  // namespace memory
}  // namespace loom
