#include "builder/ir/graph_dot.h"

#include <sstream>

namespace loom {
namespace ir {
namespace {

// A DOT double-quoted string: backslashes and quotes escaped, newlines as
// centred line breaks.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string ValueLabel(const Value& v) {
  std::string label = std::string(DTypeName(v.dtype)) + " " + (v.shape_known ? ShapeToString(v.shape) : "?");
  if (!v.quant.empty()) label += " q";
  return label;
}

const char* DeviceColor(Device d) { return d == Device::kCpu ? "#dbe8f7" : "#f7dcc4"; }

}  // namespace

std::string GraphToDot(const Graph& graph, const std::string& title) {
  std::ostringstream dot;
  dot << "digraph loom {\n"
      << "  label=" << Quote(title) << "; labelloc=t; fontname=\"Helvetica\";\n"
      << "  node [fontname=\"Helvetica\", fontsize=10]; edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (int id : graph.inputs())
    dot << "  v" << id << " [shape=ellipse, label=" << Quote(graph.value(id).name + "\n" + ValueLabel(graph.value(id)))
        << "];\n";
  const UseLists uses = graph.BuildUseLists();
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& n = graph.nodes()[i];
    if (n.dead) continue;
    std::string op = n.domain.empty() ? n.op : n.domain + "." + n.op;
    for (const std::string& f : n.fused) op += "+" + f;
    std::string label = op + "\n" + n.name;
    int constants = 0;
    for (int in : n.inputs)
      if (in >= 0 && graph.value(in).is_constant()) ++constants;
    if (constants > 0) label += "\n" + std::to_string(constants) + " constant" + (constants == 1 ? "" : "s");
    if (n.device != Device::kCpu || !n.placement_reason.empty())
      label += "\n[" + std::string(DeviceName(n.device)) + "]";
    dot << "  n" << i << " [shape=box, style=\"rounded,filled\", fillcolor=\"" << DeviceColor(n.device)
        << "\", label=" << Quote(label) << "];\n";
    for (int in : n.inputs) {
      if (in < 0 || graph.value(in).is_constant()) continue;
      const int producer = uses.producer[static_cast<size_t>(in)];
      if (producer >= 0)
        dot << "  n" << producer;
      else if (graph.IsGraphInput(in))
        dot << "  v" << in;
      else
        continue;
      dot << " -> n" << i << " [label=" << Quote(ValueLabel(graph.value(in))) << "];\n";
    }
  }
  for (int id : graph.outputs()) {
    dot << "  o" << id << " [shape=ellipse, label=" << Quote(graph.value(id).name + "\n" + ValueLabel(graph.value(id)))
        << "];\n";
    const int producer = uses.producer[static_cast<size_t>(id)];
    if (producer >= 0)
      dot << "  n" << producer << " -> o" << id << ";\n";
    else if (graph.IsGraphInput(id))
      dot << "  v" << id << " -> o" << id << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

}  // namespace ir
}  // namespace loom
