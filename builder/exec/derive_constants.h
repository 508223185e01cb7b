// Derived constants at build time (kernels/common/kernel.h): every CPU node
// whose kernel derives constants from the node's constant inputs (packed GEMM
// weights, Winograd-transformed filters) gets them computed here, by the
// kernel the plan names, prepared as the engine will prepare it, and stored
// as UINT8 constants of the node (ir::Node::derived) for the plan writer.
//
// The kernels' keys name this machine's instruction-set path (and the
// blocking it implies): an engine on a CPU that takes the same path uses the
// bytes in place and skips that work at load; any other engine derives its
// own, as without them. So the builder does this only for plans meant to run
// on the build machine's kind of CPU (the `cpu` target).
#pragma once

#include <cstddef>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace exec {

struct DerivedStats {
  int nodes = 0;      // nodes that got derived constants
  int constants = 0;  // derived constants stored
  size_t bytes = 0;   // their bytes
};

// Needs every node's kernel_id (place::SelectKernels). Errors name the node.
Status DeriveConstants(ir::Graph* graph, const KernelRegistry& registry, DerivedStats* stats);

}  // namespace exec
}  // namespace loom
