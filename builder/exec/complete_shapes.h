// Settles the shapes ONNX shape inference left unknown. In execution order,
// a node with an unknown output shape asks its kernel's InferOutputShapes
// (which may read constant inputs, e.g. Reshape's target shape); when an input
// it needs is computable at build time (a Shape -> Gather -> Concat chain), the
// chain is folded into constants first, with the real kernels. Whatever is
// still unknown is an error naming the tensor, its producer and the op.
// `fallback` (the ONNX schema's inference for one node) is asked when the
// kernel cannot infer a node's shapes. An output whose dtype nothing declared
// (custom-domain ops without value_info) takes its first input's dtype, with
// a note; the kernel's Prepare later confirms or refuses it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace exec {

// Largest tensor folded into a constant at build time.
constexpr size_t kMaxFoldBytes = size_t{64} << 20;

using NodeShapeFallback = std::function<Status(const ir::Graph&, const ir::Node&, std::vector<Shape>*)>;

Status CompleteShapes(ir::Graph* graph, const KernelRegistry& registry, const NodeShapeFallback& fallback = {},
                      std::vector<std::string>* notes = nullptr);

}  // namespace exec
}  // namespace loom
