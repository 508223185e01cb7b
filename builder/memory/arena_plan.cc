#include "builder/memory/arena_plan.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>

#include "builder/memory/memory_planner.h"
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
// the group of the input whose memory they take. Graph inputs and outputs
// never share (the caller may bind them to its own memory).
class SharedBuffers {
 public:
  SharedBuffers(const ir::Graph& graph, const Liveness& live) : graph_(graph), live_(live) {
    root_.resize(graph.values().size());
    std::iota(root_.begin(), root_.end(), 0);
    members_.resize(graph.values().size());
    for (size_t i = 0; i < members_.size(); ++i) members_[i] = {static_cast<int>(i)};
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
  }

  int Root(int id) const { return root_[static_cast<size_t>(id)]; }

 private:
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
};

}  // namespace

Status PlanArena(const ir::Graph& graph, PlannerKind kind, ArenaPlan* plan) {
  const size_t num_values = graph.values().size();
  const Liveness live = ComputeLiveness(graph);
  SharedBuffers shared(graph, live);
  shared.Assign();

  // One buffer per group, live from its first member's first use to its last member's last use.
  std::vector<int> group_first(num_values, -1), group_last(num_values, -1);
  for (size_t i = 0; i < num_values; ++i) {
    if (live.first[i] < 0) continue;
    const size_t r = static_cast<size_t>(shared.Root(static_cast<int>(i)));
    group_first[r] = group_first[r] < 0 ? live.first[i] : std::min(group_first[r], live.first[i]);
    group_last[r] = std::max(group_last[r], live.last[i]);
  }
  std::unique_ptr<MemoryPlanner> planner;
  if (kind == PlannerKind::kLinear) {
    planner = std::make_unique<LinearMemoryPlanner>();
  } else {
    planner = std::make_unique<GreedyMemoryPlanner>();
  }
  std::vector<int> buffer_of(num_values, -1);
  for (size_t i = 0; i < num_values; ++i) {
    if (live.first[i] < 0) continue;
    const ir::Value& v = graph.values()[i];
    if (!v.shape_known || DTypeSize(v.dtype) == 0 || NumElements(v.shape) < 0)
      return Status::Internal("memory planning: tensor '" + v.name + "' has no static size");
    if (shared.Root(static_cast<int>(i)) != static_cast<int>(i)) continue;
    buffer_of[i] = planner->num_buffers();
    RETURN_IF_ERROR(planner->AddBuffer(v.num_bytes(), group_first[i], group_last[i]));
  }
  RETURN_IF_ERROR(planner->Plan());
  plan->offsets.assign(num_values, -1);
  for (size_t i = 0; i < num_values; ++i) {
    if (live.first[i] < 0) continue;
    const int buffer = buffer_of[static_cast<size_t>(shared.Root(static_cast<int>(i)))];
    plan->offsets[i] = static_cast<int64_t>(planner->GetOffset(buffer));
  }
  plan->arena_bytes = planner->GetMaxMemory();
  plan->lower_bound_bytes = planner->GetLowerBound();
  plan->shared_values = 0;
  for (size_t i = 0; i < num_values; ++i)
    if (live.first[i] >= 0 && shared.Root(static_cast<int>(i)) != static_cast<int>(i)) ++plan->shared_values;
  return CheckArenaPlan(graph, *plan);
}

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
  for (size_t a = 0; a < placed.size(); ++a) {
    const size_t i = static_cast<size_t>(placed[a]);
    for (size_t b = a + 1; b < placed.size(); ++b) {
      const size_t j = static_cast<size_t>(placed[b]);
      if (shared.Root(static_cast<int>(i)) == shared.Root(static_cast<int>(j))) continue;
      if (live.first[i] > live.last[j] || live.first[j] > live.last[i]) continue;
      const uint64_t i0 = static_cast<uint64_t>(plan.offsets[i]), j0 = static_cast<uint64_t>(plan.offsets[j]);
      if (i0 < j0 + graph.values()[j].num_bytes() && j0 < i0 + graph.values()[i].num_bytes())
        return Status::Internal("memory plan: tensors '" + graph.values()[i].name + "' and '" + graph.values()[j].name +
                                "' are live at the same time and overlap");
    }
  }
  return Status::Ok();
}

}  // namespace memory
}  // namespace loom
