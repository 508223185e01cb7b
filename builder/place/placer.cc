#include "builder/place/placer.h"

#include "builder/build_log.h"
#include "builder/exec/kernel_choice.h"

namespace loom {
namespace place {

namespace {

Status CheckStatic(const ir::Graph& graph, const ir::Node& node) {
  for (int id : node.outputs) {
    if (id < 0) continue;
    const ir::Value& v = graph.value(id);
    if (!v.shape_known || NumElements(v.shape) < 0)
      return Status::InvalidArgument("node " + node.Label() + ": output '" + v.name + "' has no static shape");
    if (DTypeSize(v.dtype) == 0)
      return Status::Unsupported("node " + node.Label() + ": output '" + v.name + "' has dtype " +
                                 DTypeName(v.dtype) + ", unsupported");
  }
  return Status::Ok();
}

}  // namespace

Status PlaceNodes(ir::Graph* graph, const KernelRegistry& registry) {
  for (ir::Node& node : graph->nodes()) {
    if (node.dead) continue;
    RETURN_IF_ERROR(CheckStatic(*graph, node));
    exec::ChosenKernel chosen;
    RETURN_IF_ERROR(exec::ChooseKernel(registry, exec::MakeKernelSetup(*graph, node), Device::kCpu, &chosen));
    node.device = Device::kCpu;
    node.kernel_id = chosen.def->id;
    node.placement_reason = "cpu: no accelerator configured";
    BuildLog().debug("placed {} on cpu with {}", node.Label(), node.kernel_id);
  }
  return Status::Ok();
}

}  // namespace place
}  // namespace loom
