#include "builder/exec/complete_shapes.h"

#include <unordered_set>
#include <vector>

#include "builder/exec/evaluate.h"
#include "builder/exec/kernel_choice.h"

namespace loom {
namespace exec {

namespace {

class ShapeCompleter {
 public:
  ShapeCompleter(ir::Graph* graph, const KernelRegistry& registry, const NodeShapeFallback& fallback,
                 std::vector<std::string>* notes)
      : graph_(graph),
        registry_(registry),
        fallback_(fallback),
        notes_(notes),
        producer_(graph->BuildUseLists().producer) {}

  Status Run() {
    for (int i = 0; i < static_cast<int>(graph_->nodes().size()); ++i) {
      if (graph_->node(i).dead || OutputsKnown(graph_->node(i))) continue;
      RETURN_IF_ERROR(Complete(i));
    }
    graph_->Compact();
    return Status::Ok();
  }

 private:
  bool OutputsKnown(const ir::Node& n) const {
    for (int out : n.outputs)
      if (out >= 0 && (!graph_->value(out).shape_known || graph_->value(out).dtype == DType::kUndefined))
        return false;
    return true;
  }

  Status Complete(int index) {
    const ir::Node& node = graph_->node(index);
    std::vector<EvaluatedOutput> shape_op;
    if (EvaluateShapeOp(*graph_, node, &shape_op)) {
      ReplaceWithConstants(graph_, index, std::move(shape_op));
      return Status::Ok();
    }
    const std::string label = node.Label();
    KernelSetup setup = MakeKernelSetup(*graph_, node);
    std::vector<const KernelDef*> candidates;
    Status s = FindCandidates(registry_, setup, Device::kCpu, &candidates);
    if (!s.ok()) return s.WithContext(label);
    RETURN_IF_ERROR(DefaultDtypes(node));
    s = TryInfer(index);
    if (s.ok()) return s;
    // Make the inputs constant where they can be computed now, then retry.
    for (int in : graph_->node(index).inputs)
      if (in >= 0) TryMakeConstant(in);
    if (TryInfer(index).ok()) return Status::Ok();
    if (TryFold(index)) return Status::Ok();
    for (int out : graph_->node(index).outputs)
      if (out >= 0 && !graph_->value(out).shape_known)
        return Status(s.code() == StatusCode::kUnsupported ? s.code() : StatusCode::kInvalidArgument,
                      label + ": cannot infer the shape of output '" + graph_->value(out).name + "': " + s.ToString());
    return s.WithContext(label);
  }

  Status DefaultDtypes(const ir::Node& node) {
    DType first = DType::kUndefined;
    for (int in : node.inputs)
      if (in >= 0 && first == DType::kUndefined) first = graph_->value(in).dtype;
    for (int out : node.outputs) {
      if (out < 0 || graph_->value(out).dtype != DType::kUndefined) continue;
      ir::Value& v = graph_->value(out);
      if (first == DType::kUndefined)
        return Status::InvalidArgument(node.Label() + ": output '" + v.name + "' has an unknown dtype");
      v.dtype = first;
      if (notes_)
        notes_->push_back(node.Label() + ": output '" + v.name + "': dtype not declared, assumed " + DTypeName(first) +
                          " like the node's first input");
    }
    return Status::Ok();
  }

  Status TryInfer(int index) {
    const ir::Node& node = graph_->node(index);
    KernelSetup setup = MakeKernelSetup(*graph_, node);
    for (TensorInfo& t : setup.outputs) t.shape.clear();
    std::vector<Shape> shapes;
    Status s = InferOutputShapes(registry_, setup, &shapes);
    if (!s.ok() && (!fallback_ || !fallback_(*graph_, node, &shapes).ok())) return s;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] < 0) continue;
      ir::Value& v = graph_->value(node.outputs[i]);
      v.shape = shapes[i];
      v.shape_known = true;
    }
    return Status::Ok();
  }

  // Folds node `index` if all its inputs are (or can be made) constant.
  bool TryFold(int index) {
    if (failed_.count(index)) return false;
    const ir::Node& node = graph_->node(index);
    std::vector<EvaluatedOutput> outputs;
    if (EvaluateShapeOp(*graph_, node, &outputs)) {
      ReplaceWithConstants(graph_, index, std::move(outputs));
      return true;
    }
    bool ok = IsDeterministic(node);
    for (size_t i = 0; ok && i < node.inputs.size(); ++i)
      if (node.inputs[i] >= 0) ok = TryMakeConstant(node.inputs[i]);
    if (ok) ok = EvaluateNode(*graph_, graph_->node(index), registry_, kMaxFoldBytes, &outputs).ok();
    if (!ok) {
      failed_.insert(index);
      return false;
    }
    ReplaceWithConstants(graph_, index, std::move(outputs));
    return true;
  }

  bool TryMakeConstant(int value_id) {
    if (graph_->value(value_id).is_constant()) return true;
    const int p = producer_[static_cast<size_t>(value_id)];
    if (p < 0 || graph_->node(p).dead) return false;
    return TryFold(p);
  }

  ir::Graph* graph_;
  const KernelRegistry& registry_;
  const NodeShapeFallback& fallback_;
  std::vector<std::string>* notes_;
  std::vector<int> producer_;
  std::unordered_set<int> failed_;
};

}  // namespace

Status CompleteShapes(ir::Graph* graph, const KernelRegistry& registry, const NodeShapeFallback& fallback,
                      std::vector<std::string>* notes) {
  return ShapeCompleter(graph, registry, fallback, notes).Run();
}

}  // namespace exec
}  // namespace loom
