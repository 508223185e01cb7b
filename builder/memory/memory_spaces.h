// Memory spaces of activations: a value that a node off the CPU reads or
// writes must live in memory the device reaches directly, so it becomes
// MemorySpace::kDeviceVisible (the plan records it; the engine then takes the
// context's arena from the device's allocator). Constants are not in the
// arena and keep kHost. Runs after kernel selection, before memory planning.
#pragma once

#include "builder/ir/graph.h"

namespace loom {
namespace memory {

// Returns the number of values marked device-visible.
int AssignMemorySpaces(ir::Graph* graph);

}  // namespace memory
}  // namespace loom
