#include "builder/place/boundaries.h"

#include <set>
#include <utility>

namespace loom {
namespace place {

std::vector<Boundary> ListBoundaries(const ir::Graph& graph, const CostModel& cost) {
  const ir::UseLists uses = graph.BuildUseLists();
  auto device_of = [&](int value) {
    const int producer = uses.producer[static_cast<size_t>(value)];
    return producer >= 0 ? graph.node(producer).device : Device::kCpu;
  };
  std::vector<Boundary> out;
  std::set<std::pair<int, Device>> seen;  // (value, receiving device)
  auto hand_over = [&](int value, Device to) {
    const Device from = device_of(value);
    if (from == to || !seen.insert({value, to}).second) return;
    out.push_back({value, from, to, cost.BoundaryMs(graph, value, from, to)});
  };
  for (const ir::Node& node : graph.nodes()) {
    if (node.dead) continue;
    for (int in : node.inputs)
      if (in >= 0 && !graph.value(in).is_constant()) hand_over(in, node.device);
  }
  for (int out_id : graph.outputs()) hand_over(out_id, Device::kCpu);
  return out;
}

}  // namespace place
}  // namespace loom
