#include "builder/onnx/model_checks.h"

#include <exception>
#include <queue>
#include <unordered_map>
#include <vector>

#include "common/node_label.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"

namespace loom {
namespace onnx_import {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string ImportedNodeName(const onnx::NodeProto& n, int index) {
  if (!n.name().empty()) return n.name();
  if (n.output_size() > 0 && !n.output(0).empty()) return n.output(0);
  return n.op_type() + "_" + std::to_string(index);
}

std::string OneLine(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

namespace {

// The label (common/node_label.h) of node `index` under its imported name.
std::string Label(const onnx::GraphProto& graph, int index) {
  const onnx::NodeProto& n = graph.node(index);
  return NodeLabel(ImportedNodeName(n, index), n.op_type(), static_cast<size_t>(index));
}

}  // namespace

Status SortNodesTopologically(onnx::GraphProto* graph) {
  const int n = graph->node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const std::string& out : graph->node(i).output())
      if (!out.empty()) producer.emplace(out, i);
  std::vector<int> pending(static_cast<size_t>(n), 0);
  std::vector<std::vector<int>> dependents(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : graph->node(i).input()) {
      auto it = producer.find(in);
      if (in.empty() || it == producer.end()) continue;
      ++pending[static_cast<size_t>(i)];
      dependents[static_cast<size_t>(it->second)].push_back(i);
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[static_cast<size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(static_cast<size_t>(n));
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int d : dependents[static_cast<size_t>(i)])
      if (--pending[static_cast<size_t>(d)] == 0) ready.push(d);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (pending[static_cast<size_t>(i)] > 0)
        return Status::InvalidArgument("graph has a cycle through " + Label(*graph, i));
  }
  bool sorted = true;
  for (int i = 0; i < n; ++i) sorted = sorted && order[static_cast<size_t>(i)] == i;
  if (sorted) return Status::Ok();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> reordered;
  for (int i : order) reordered.Add()->Swap(graph->mutable_node(i));
  graph->mutable_node()->Swap(&reordered);
  return Status::Ok();
}

Status RunOnnxChecker(const onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("ONNX checker: " + OneLine(e.what()));
  } catch (...) {
    return Status::InvalidArgument("ONNX checker: model refused");
  }
  return Status::Ok();
}

Status CheckDomains(const onnx::ModelProto& model, const KernelRegistry& registry) {
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const onnx::NodeProto& n = model.graph().node(i);
    if (IsDefaultDomain(n.domain())) {
      // Named here rather than left to the checker, whose message would not
      // say that the op is unsupported.
      if (!onnx::OpSchemaRegistry::Schema(n.op_type(), "") && registry.FindByOp(n.op_type(), "").empty())
        return Status::Unsupported(Label(model.graph(), i) + ": unsupported op '" + n.op_type() +
                                   "' (not an ONNX operator)");
      continue;
    }
    if (registry.FindByOp(n.op_type(), n.domain()).empty())
      return Status::Unsupported(Label(model.graph(), i) + ": unsupported op '" + n.op_type() + "' in domain '" +
                                 n.domain() + "'");
  }
  return Status::Ok();
}

Status CheckDivisorAttributes(const onnx::ModelProto& model) {
  static const char* const kDivisors[] = {"strides", "dilations", "kernel_shape", "blocksize", "group"};
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const onnx::NodeProto& n = model.graph().node(i);
    if (!IsDefaultDomain(n.domain())) continue;
    for (const onnx::AttributeProto& a : n.attribute()) {
      bool divisor = false;
      for (const char* name : kDivisors) divisor = divisor || a.name() == name;
      if (!divisor) continue;
      bool ok = a.i() >= 1 || a.type() != onnx::AttributeProto::INT;
      for (int64_t v : a.ints()) ok = ok && v >= 1;
      if (!ok)
        return Status::InvalidArgument(Label(model.graph(), i) + ": attribute '" + a.name() + "' has a value below 1");
    }
  }
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace loom
