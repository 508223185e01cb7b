#include "builder/place/placer.h"

#include <cctype>
#include <cstdio>
#include <limits>
#include <vector>

#include "builder/build_log.h"
#include "builder/exec/kernel_choice.h"
#include "builder/place/min_cut.h"

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
  double ms = 0;   // the node's own predicted time, when feasible
};

// What the accelerator would run, for reasons: "3x3 conv", "gemm".
std::string Summary(const ir::Graph& graph, const ir::Node& node) {
  std::string op;
  for (char c : node.op) op += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Shape window;
  if (node.op == "Conv" && node.inputs.size() > 1 && node.inputs[1] >= 0) {
    const Shape& w = graph.value(node.inputs[1]).shape;
    if (w.size() > 2) window.assign(w.begin() + 2, w.end());
  } else if (node.op == "MaxPool" || node.op == "AveragePool") {
    window = node.attrs.GetInts("kernel_shape", {});
  }
  return window.empty() ? op : ShapeToString(window) + " " + op;
}

// Why a device refused: "depthwise conv (group 32) not supported by fpga16";
// a reason that explains itself ("kernel 17x17, the accelerator supports at
// most 15x15") goes after "not supported by fpga16: ".
std::string Refusal(const Target& target, const Option& o) {
  const DeviceConfig* config = target.ConfigFor(o.device);
  const std::string device = config != nullptr ? config->name() : DeviceName(o.device);
  std::string what = o.refusal.message();
  const std::string prefix = "unsupported ";
  if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
  if (o.refusal.code() != StatusCode::kUnsupported || what.find("unsupported") != std::string::npos)
    return device + " cannot run it: " + o.refusal.message();
  if (what.find_first_of(",;:") != std::string::npos) return "not supported by " + device + ": " + what;
  return what + " not supported by " + device;
}

// The reason for `chosen`:
//   "fpga: 3x3 conv, predicted 1.90 ms vs cpu 41.0 ms"
//   "cpu: predicted 0.20 ms vs fpga 0.31 ms"
//   "cpu: depthwise conv (group 32) not supported by fpga16"
std::string Reason(const Target& target, const ir::Graph& graph, const ir::Node& node,
                   const std::vector<Option>& options, const Option& chosen) {
  std::string reason = std::string(DeviceName(chosen.device)) + ": ";
  if (options.size() == 1) return reason + "the only device of target '" + target.name() + "'";
  std::string compared, refused;
  for (const Option& o : options) {
    if (o.device == chosen.device) continue;
    if (o.refusal.ok()) {
      compared += std::string(" vs ") + DeviceName(o.device) + " " + Ms(o.ms);
    } else {
      refused += (refused.empty() ? "" : "; ") + Refusal(target, o);
    }
  }
  if (compared.empty()) return reason + refused;
  if (chosen.device != Device::kCpu) reason += Summary(graph, node) + ", ";
  reason += "predicted " + Ms(chosen.ms) + compared;
  return refused.empty() ? reason : reason + "; " + refused;
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

// The two devices of a two-device target: which one is the cut's source
// side (the CPU when the target has it).
struct Sides {
  Device source = Device::kCpu;
  Device sink = Device::kFpga;
};

int64_t Nanoseconds(double ms) {
  const double ns = ms * 1e6;
  return ns >= static_cast<double>(MinCut::kInfinite) ? MinCut::kInfinite : static_cast<int64_t>(ns + 0.5);
}

// Chooses each node's device so that the predicted total (node times plus
// boundaries) is smallest over the whole graph: a minimum cut (min_cut.h).
// A value crossing devices pays its boundary once however many consumers it
// has (an extra cut node per value and direction), graph inputs come from
// the CPU's memory and graph outputs go back to it.
void PlaceByCut(const ir::Graph& graph, const CostModel& cost, const ir::UseLists& uses, const Sides& sides,
                const std::vector<int>& live, const std::vector<std::vector<Option>>& options,
                std::vector<Device>* chosen) {
  std::vector<int> index(graph.nodes().size(), -1);
  for (size_t i = 0; i < live.size(); ++i) index[static_cast<size_t>(live[i])] = static_cast<int>(i);
  // Nodes, then two helper nodes per value.
  const int values = static_cast<int>(graph.values().size());
  MinCut cut(static_cast<int>(live.size()) + 2 * values);
  for (size_t i = 0; i < live.size(); ++i) {
    for (const Option& o : options[i]) {
      const int64_t ns = o.refusal.ok() ? Nanoseconds(o.ms) : MinCut::kInfinite;
      if (o.device == sides.source) cut.AddEdge(static_cast<int>(i), cut.sink(), ns);  // cut when on the source side
      if (o.device == sides.sink) cut.AddEdge(cut.source(), static_cast<int>(i), ns);
    }
  }
  std::vector<bool> graph_input(static_cast<size_t>(values), false), graph_output(static_cast<size_t>(values), false);
  for (int id : graph.inputs()) graph_input[static_cast<size_t>(id)] = true;
  for (int id : graph.outputs()) graph_output[static_cast<size_t>(id)] = true;
  for (int v = 0; v < values; ++v) {
    const int producer = uses.producer[static_cast<size_t>(v)];
    const int from = producer >= 0 ? index[static_cast<size_t>(producer)] : (graph_input[v] ? cut.source() : -1);
    if (from < 0 && producer >= 0) continue;  // produced by a dead node
    const int64_t to_sink = Nanoseconds(cost.BoundaryMs(graph, v, sides.source, sides.sink));
    const int64_t to_source = Nanoseconds(cost.BoundaryMs(graph, v, sides.sink, sides.source));
    const int up = static_cast<int>(live.size()) + 2 * v, down = up + 1;
    bool consumed = false;
    for (int consumer : uses.consumers[static_cast<size_t>(v)]) {
      const int c = index[static_cast<size_t>(consumer)];
      if (c < 0 || from < 0) continue;
      consumed = true;
      cut.AddEdge(up, c, MinCut::kInfinite);                              // a consumer on the sink side puts `up` there
      if (from != cut.source()) cut.AddEdge(c, down, MinCut::kInfinite);  // one on the source side, `down`
    }
    if (consumed) {
      cut.AddEdge(from, up, to_sink);                                // source -> sink crossing, once
      if (from != cut.source()) cut.AddEdge(down, from, to_source);  // sink -> source crossing, once
    }
    if (graph_output[static_cast<size_t>(v)] && producer >= 0 && from >= 0) {
      cut.AddEdge(cut.source(), from, to_source);  // the result goes back to the CPU's memory
    }
  }
  cut.Solve();
  chosen->resize(live.size());
  for (size_t i = 0; i < live.size(); ++i)
    (*chosen)[i] = cut.OnSourceSide(static_cast<int>(i)) ? sides.source : sides.sink;
}

// The feasible device with the lowest node time (ties: the target's order).
Device Cheapest(const std::vector<Option>& options) {
  const Option* best = nullptr;
  for (const Option& o : options)
    if (o.refusal.ok() && (best == nullptr || o.ms < best->ms)) best = &o;
  return best->device;
}

}  // namespace

Status PlaceNodes(ir::Graph* graph, const Target& target, const KernelRegistry& registry) {
  RETURN_IF_ERROR(CheckInputs(*graph));
  const CostModel& cost = target.cost_model();
  const ir::UseLists uses = graph->BuildUseLists();
  std::vector<int> live;
  std::vector<std::vector<Option>> options;
  for (size_t n = 0; n < graph->nodes().size(); ++n) {
    ir::Node& node = graph->node(static_cast<int>(n));
    if (node.dead) continue;
    RETURN_IF_ERROR(CheckStatic(*graph, node));
    std::vector<Option> node_options;
    bool feasible = false;
    for (const TargetDevice& d : target.devices()) {
      Option o;
      o.device = d.device;
      exec::ChosenKernel chosen;
      const KernelSetup setup = exec::MakeKernelSetup(*graph, node, d.config.get());
      o.refusal = exec::ChooseKernel(registry, setup, d.device, &chosen);
      std::vector<const KernelDef*> candidates;
      if (!o.refusal.ok() && d.device != Device::kCpu &&
          !exec::FindCandidates(registry, setup, d.device, &candidates).ok())
        o.refusal = Status::Unsupported(node.op);  // no kernel for the op: "cpu: Relu not supported by fpga16"
      if (o.refusal.ok()) {
        o.ms = cost.NodeMs(*graph, node, d.device);
        feasible = true;
      }
      node_options.push_back(std::move(o));
    }
    if (!feasible) {
      for (const Option& o : node_options)
        if (o.device == Device::kCpu) return o.refusal.WithContext(node.Label());
      return node_options.front().refusal.WithContext(node.Label());
    }
    live.push_back(static_cast<int>(n));
    options.push_back(std::move(node_options));
  }

  std::vector<Device> chosen(live.size());
  if (target.devices().size() == 2) {
    Sides sides;
    sides.source = target.devices()[0].device == Device::kCpu ? Device::kCpu : target.devices()[1].device;
    sides.sink = sides.source == target.devices()[0].device ? target.devices()[1].device : target.devices()[0].device;
    PlaceByCut(*graph, cost, uses, sides, live, options, &chosen);
  } else {
    for (size_t i = 0; i < live.size(); ++i) chosen[i] = Cheapest(options[i]);
  }

  for (size_t i = 0; i < live.size(); ++i) {
    ir::Node& node = graph->node(live[i]);
    node.device = chosen[i];
  }
  // Predicted times and reasons, once every device is known.
  for (size_t i = 0; i < live.size(); ++i) {
    ir::Node& node = graph->node(live[i]);
    const Option* mine = nullptr;
    for (const Option& o : options[i])
      if (o.device == node.device) mine = &o;
    node.predicted_ms = mine->ms;
    node.placement_reason = Reason(target, *graph, node, options[i], *mine);
    if (node.device != Cheapest(options[i])) {
      node.placement_reason += " (placed with its neighbours: the whole graph is faster with fewer " +
                               std::string(DeviceName(Device::kCpu)) + "<->" + DeviceName(Device::kFpga) +
                               " boundaries)";
    }
    BuildLog().debug("placed {}: {}", node.Label(), node.placement_reason);
  }
  return Status::Ok();
}

}  // namespace place
}  // namespace loom
