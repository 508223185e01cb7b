#include "builder/place/placer.h"

#include <cstdio>
#include <limits>
#include <vector>

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
      return Status::InvalidArgument(node.Label() + ": output '" + v.name + "' has no static shape");
    if (DTypeSize(v.dtype) == 0)
      return Status::Unsupported(node.Label() + ": output '" + v.name + "' has dtype " + DTypeName(v.dtype) +
                                 ", unsupported");
  }
  return Status::Ok();
}

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ms < 0.01 ? "%.4f ms" : ms < 10 ? "%.2f ms" : "%.1f ms", ms);
  return buf;
}

struct Option {
  Device device = Device::kCpu;
  Status refusal;  // ok when a kernel of the device accepts the node
  double ms = 0;   // node plus boundaries, when feasible
};

// "fpga: predicted 1.90 ms vs cpu 41.0 ms"; "cpu: fpga cannot run it: ...".
std::string Reason(const Target& target, const std::vector<Option>& options, const Option& chosen) {
  std::string reason = std::string(DeviceName(chosen.device)) + ": ";
  if (options.size() == 1) return reason + "the only device of target '" + target.name() + "'";
  reason += "predicted " + Ms(chosen.ms);
  for (const Option& o : options) {
    if (o.device == chosen.device) continue;
    if (o.refusal.ok()) {
      reason += std::string(" vs ") + DeviceName(o.device) + " " + Ms(o.ms);
    } else {
      reason += std::string("; ") + DeviceName(o.device) + " cannot run it: " + o.refusal.message();
    }
  }
  return reason;
}

// Graph inputs are not produced by a node, so no kernel vouches for them.
Status CheckInputs(const ir::Graph& graph) {
  for (int id : graph.inputs()) {
    const ir::Value& v = graph.value(id);
    if (!v.shape_known || NumElements(v.shape) < 0 || DTypeSize(v.dtype) == 0 ||
        NumElements(v.shape) > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(DTypeSize(v.dtype))) {
      return Status::InvalidArgument("input '" + v.name + "' (" + DTypeName(v.dtype) + " " + ShapeToString(v.shape) +
                                     ") has no static size in bytes");
    }
  }
  return Status::Ok();
}

}  // namespace

Status PlaceNodes(ir::Graph* graph, const Target& target, const KernelRegistry& registry) {
  RETURN_IF_ERROR(CheckInputs(*graph));
  const CostModel& cost = target.cost_model();
  const ir::UseLists uses = graph->BuildUseLists();
  for (ir::Node& node : graph->nodes()) {
    if (node.dead) continue;
    RETURN_IF_ERROR(CheckStatic(*graph, node));
    std::vector<Option> options;
    const Option* best = nullptr;
    for (const TargetDevice& d : target.devices()) {
      Option o;
      o.device = d.device;
      exec::ChosenKernel chosen;
      o.refusal = exec::ChooseKernel(registry, exec::MakeKernelSetup(*graph, node, d.config.get()), d.device, &chosen);
      if (o.refusal.ok()) {
        o.ms = cost.NodeMs(*graph, node, d.device);
        for (int in : node.inputs) {
          const int producer = in < 0 ? -1 : uses.producer[static_cast<size_t>(in)];
          if (producer >= 0) o.ms += cost.BoundaryMs(*graph, in, graph->node(producer).device, d.device);
        }
      }
      options.push_back(std::move(o));
    }
    for (const Option& o : options)
      if (o.refusal.ok() && (best == nullptr || o.ms < best->ms)) best = &o;
    if (best == nullptr) {
      for (const Option& o : options)
        if (o.device == Device::kCpu) return o.refusal.WithContext(node.Label());
      return options.front().refusal.WithContext(node.Label());
    }
    node.device = best->device;
    node.predicted_ms = best->ms;
    node.placement_reason = Reason(target, options, *best);
    BuildLog().debug("placed {}: {}", node.Label(), node.placement_reason);
  }
  return Status::Ok();
}

}  // namespace place
}  // namespace loom
