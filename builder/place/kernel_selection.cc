#include "builder/place/kernel_selection.h"

#include "builder/build_log.h"
#include "builder/exec/kernel_choice.h"

namespace loom {
namespace place {

Status SelectKernels(ir::Graph* graph, const Target& target, const KernelRegistry& registry) {
  for (ir::Node& node : graph->nodes()) {
    if (node.dead) continue;
    const DeviceConfig* config = target.ConfigFor(node.device);
    if (config == nullptr) {
      return Status::Internal(node.Label() + ": placed on " + DeviceName(node.device) + ", which target '" +
                              target.name() + "' lacks");
    }
    exec::ChosenKernel chosen;
    const Status s = exec::ChooseKernel(registry, exec::MakeKernelSetup(*graph, node, config), node.device, &chosen);
    if (!s.ok()) return s.WithContext(node.Label());
    node.kernel_id = chosen.def->id;
    BuildLog().debug("{} runs {}", node.Label(), node.kernel_id);
  }
  return Status::Ok();
}

}  // namespace place
}  // namespace loom
