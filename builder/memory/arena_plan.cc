#include "builder/memory/arena_plan.h"

#include <algorithm>
#include <memory>

#include "builder/memory/memory_planner.h"

namespace loom {
namespace memory {

Status PlanArena(const ir::Graph& graph, PlannerKind kind, ArenaPlan* plan) {
  const size_t num_values = graph.values().size();
  const int last_step = std::max(0, static_cast<int>(graph.nodes().size()) - 1);
  std::vector<int> first(num_values, -1), last(num_values, -1);
  auto touch = [&](int id, int step) {
    if (id < 0 || graph.value(id).is_constant()) return;
    const size_t i = static_cast<size_t>(id);
    if (first[i] < 0 || step < first[i]) first[i] = step;
    last[i] = std::max(last[i], step);
  };
  for (int id : graph.inputs()) touch(id, 0);
  for (int step = 0; step < static_cast<int>(graph.nodes().size()); ++step) {
    const ir::Node& n = graph.node(step);
    for (int id : n.inputs) touch(id, step);
    for (int id : n.outputs) touch(id, step);
  }
  for (int id : graph.outputs()) touch(id, last_step);

  std::unique_ptr<MemoryPlanner> planner;
  if (kind == PlannerKind::kLinear) {
    planner = std::make_unique<LinearMemoryPlanner>();
  } else {
    planner = std::make_unique<GreedyMemoryPlanner>();
  }
  std::vector<int> buffer_value;
  for (size_t i = 0; i < num_values; ++i) {
    if (first[i] < 0) continue;
    const ir::Value& v = graph.values()[i];
    if (!v.shape_known || DTypeSize(v.dtype) == 0 || NumElements(v.shape) < 0)
      return Status::Internal("memory planning: tensor '" + v.name + "' has no static size");
    RETURN_IF_ERROR(planner->AddBuffer(v.num_bytes(), first[i], last[i]));
    buffer_value.push_back(static_cast<int>(i));
  }
  RETURN_IF_ERROR(planner->Plan());
  plan->offsets.assign(num_values, -1);
  for (size_t b = 0; b < buffer_value.size(); ++b)
    plan->offsets[static_cast<size_t>(buffer_value[b])] = static_cast<int64_t>(planner->GetOffset(static_cast<int>(b)));
  plan->arena_bytes = planner->GetMaxMemory();
  plan->lower_bound_bytes = planner->GetLowerBound();
  return Status::Ok();
}

}  // namespace memory
}  // namespace loom
