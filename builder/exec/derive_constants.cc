#include "builder/exec/derive_constants.h"

#include <memory>
#include <string>
#include <vector>

#include "builder/exec/kernel_choice.h"

namespace loom {
namespace exec {

Status DeriveConstants(ir::Graph* graph, const KernelRegistry& registry, DerivedStats* stats) {
  *stats = DerivedStats();
  for (size_t i = 0; i < graph->nodes().size(); ++i) {
    if (graph->node(static_cast<int>(i)).dead || graph->node(static_cast<int>(i)).device != Device::kCpu) continue;
    const ir::Node& node = graph->node(static_cast<int>(i));
    PreparedNodeKernel prepared;
    RETURN_IF_ERROR(PrepareNodeKernel(*graph, node, registry, /*pack_constants=*/true, &prepared));  // as the engine
    const std::vector<DerivedConstant> derived = prepared.kernel->DerivedConstants();
    std::vector<ir::Node::Derived> stored;
    for (size_t k = 0; k < derived.size(); ++k) {
      const DerivedConstant& d = derived[k];
      const int value = graph->AddConstant(node.name + ":derived" + std::to_string(k), DType::kUInt8,
                                           {static_cast<int64_t>(d.bytes)}, ir::Buffer::CopyOf(d.data, d.bytes));
      stored.push_back({d.key, value});
      ++stats->constants;
      stats->bytes += d.bytes;
    }
    if (stored.empty()) continue;
    graph->node(static_cast<int>(i)).derived = std::move(stored);  // AddConstant may have moved the nodes
    ++stats->nodes;
  }
  return Status::Ok();
}

}  // namespace exec
}  // namespace loom
