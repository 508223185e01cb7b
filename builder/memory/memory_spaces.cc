#include "builder/memory/memory_spaces.h"

namespace loom {
namespace memory {

int AssignMemorySpaces(ir::Graph* graph) {
  int marked = 0;
  auto mark = [&](int id) {
    if (id < 0) return;
    ir::Value& v = graph->value(id);
    if (v.is_constant() || v.memory_space == MemorySpace::kDeviceVisible) return;
    v.memory_space = MemorySpace::kDeviceVisible;
    ++marked;
  };
  for (const ir::Node& n : graph->nodes()) {
    if (n.dead || n.device == Device::kCpu) continue;
    for (int id : n.inputs) mark(id);
    for (int id : n.outputs) mark(id);
  }
  return marked;
}

}  // namespace memory
}  // namespace loom
