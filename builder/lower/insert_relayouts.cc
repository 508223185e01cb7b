#include "builder/lower/insert_relayouts.h"

#include <map>
#include <string>
#include <vector>

#include "kernels/cpu/layout/padded_layout.h"
#include "kernels/fpga/runtime/fpga_runtime.h"

namespace loom {
namespace lower {
namespace {

bool IsFpga(const ir::Node& n) { return !n.dead && n.device == Device::kFpga; }

// A node to insert before position `before` of the node list.
struct Insertion {
  size_t before = 0;
  ir::Node node;
};

}  // namespace

Status InsertRelayouts(ir::Graph* graph, const place::Target& target, int* relayouts) {
  bool any = false;
  for (const ir::Node& n : graph->nodes()) any = any || IsFpga(n);
  if (!any) return Status::Ok();
  const auto* fpga = dynamic_cast<const fpga::FpgaDeviceConfig*>(target.ConfigFor(Device::kFpga));
  if (fpga == nullptr) return Status::Ok();  // another device's kernels take row-major tensors as they are
  const int64_t n = fpga->accel().n;

  const ir::UseLists uses = graph->BuildUseLists();
  std::vector<Insertion> insertions;
  std::map<int, int> padded_of;  // row-major value id -> its padded FPGA-side value
  const size_t node_count = graph->nodes().size();

  for (size_t i = 0; i < node_count; ++i) {
    ir::Node& node = graph->node(static_cast<int>(i));
    if (!IsFpga(node)) continue;
    node.attrs.SetInt(layout::kPadChannelsAttr, n);
    node.fallback_kernel_id = "cpu." + node.op + ".padded";
  }

  // Every activation an FPGA node reads or writes, once.
  const int value_count = static_cast<int>(graph->values().size());  // AddValue below appends
  for (int id = 0; id < value_count; ++id) {
    const ir::Value v = graph->value(id);
    if (v.is_constant()) continue;
    const int producer = uses.producer[static_cast<size_t>(id)];
    const bool fpga_producer = producer >= 0 && IsFpga(graph->node(producer));
    int first_cpu_consumer = -1;
    bool fpga_consumer = false;
    for (int c : uses.consumers[static_cast<size_t>(id)]) {
      const ir::Node& consumer = graph->node(c);
      if (consumer.dead) continue;
      if (IsFpga(consumer)) {
        fpga_consumer = true;
      } else if (first_cpu_consumer < 0 || c < first_cpu_consumer) {
        first_cpu_consumer = c;
      }
    }
    if (!fpga_producer && !fpga_consumer) continue;

    layout::PaddedShape shape;
    const Status s = layout::PaddedShapeOf(v.shape, n, &shape);
    if (!s.ok()) return Status::Internal("value '" + v.name + "' on the accelerator: " + s.message());
    ir::Value padded = v;
    padded.name = graph->UniqueValueName(v.name + ".nhwc" + std::to_string(n));
    padded.layout = Layout::kNhwcPadded;
    padded.padded_bytes = static_cast<size_t>(shape.PaddedElements()) * DTypeSize(v.dtype);
    const int p = graph->AddValue(std::move(padded));
    padded_of[id] = p;

    ir::Node relayout;
    relayout.op = "Relayout";
    relayout.domain = "loom";
    relayout.kernel_id = "cpu.Relayout";
    relayout.device = Device::kCpu;
    relayout.attrs.SetInt(layout::kPadChannelsAttr, n);
    if (fpga_producer) {
      // The FPGA writes p; the CPU side (if any) reads v through a Relayout.
      for (int& out : graph->node(producer).outputs)
        if (out == id) out = p;
      const bool cpu_side = first_cpu_consumer >= 0 || graph->IsGraphOutput(id);
      if (cpu_side) {
        relayout.name = graph->value(id).name + ".from_fpga";
        relayout.inputs = {p};
        relayout.outputs = {id};
        relayout.placement_reason =
            "cpu: hands '" + graph->value(id).name + "' from the accelerator's layout to the CPU";
        insertions.push_back(
            {first_cpu_consumer >= 0 ? static_cast<size_t>(first_cpu_consumer) : node_count, std::move(relayout)});
      }
    } else {
      // The CPU (or the caller) writes v; a Relayout right after it makes p.
      relayout.name = graph->value(id).name + ".to_fpga";
      relayout.inputs = {id};
      relayout.outputs = {p};
      relayout.placement_reason = "cpu: hands '" + graph->value(id).name + "' to the accelerator's layout";
      insertions.push_back({producer >= 0 ? static_cast<size_t>(producer) + 1 : 0, std::move(relayout)});
    }
  }

  // FPGA consumers read the padded values.
  for (size_t i = 0; i < node_count; ++i) {
    ir::Node& node = graph->node(static_cast<int>(i));
    if (!IsFpga(node)) continue;
    for (int& in : node.inputs) {
      auto it = padded_of.find(in);
      if (in >= 0 && it != padded_of.end()) in = it->second;
    }
  }

  // Rebuild the node list with the insertions in place (stable: insertions
  // at one position keep the order they were made in).
  std::vector<ir::Node> nodes;
  nodes.reserve(node_count + insertions.size());
  std::vector<std::vector<ir::Node*>> at(node_count + 1);
  for (Insertion& ins : insertions) at[ins.before].push_back(&ins.node);
  for (size_t i = 0; i <= node_count; ++i) {
    for (ir::Node* r : at[i]) nodes.push_back(std::move(*r));
    if (i < node_count) nodes.push_back(std::move(graph->node(static_cast<int>(i))));
  }
  graph->nodes() = std::move(nodes);
  if (relayouts != nullptr) *relayouts = static_cast<int>(insertions.size());
  const Status valid = graph->Validate();
  if (!valid.ok()) return Status::Internal("graph invalid after inserting relayouts: " + valid.message());
  return Status::Ok();
}

}  // namespace lower
}  // namespace loom
