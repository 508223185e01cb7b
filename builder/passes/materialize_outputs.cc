#include "builder/passes/materialize_outputs.h"

namespace loom {
namespace passes {

int MaterializeConstantOutputs(ir::Graph* graph, int opset) {
  int added = 0;
  for (size_t i = 0; i < graph->outputs().size(); ++i) {
    const int out = graph->outputs()[i];
    if (graph->IsGraphInput(out)) {
      // The output keeps the ONNX name; the engine sees two tensors.
      ir::Value copy = graph->value(out);
      const int dst = graph->AddValue(std::move(copy));
      ir::Node n;
      n.name = graph->value(out).name + ".copy";
      n.op = "Identity";
      n.opset = opset;
      n.inputs = {out};
      n.outputs = {dst};
      graph->AddNode(std::move(n));
      graph->outputs()[i] = dst;
      ++added;
      continue;
    }
    if (!graph->value(out).is_constant()) continue;
    ir::Value copy = graph->value(out);
    copy.name = graph->UniqueValueName(copy.name + ".constant");
    const int src = graph->AddValue(std::move(copy));
    graph->value(out).data.reset();
    // Other nodes keep reading the constant, not the copy.
    graph->ReplaceNodeInputUses(out, src);
    ir::Node n;
    n.name = graph->value(out).name + ".copy";
    n.op = "Identity";
    n.opset = opset;
    n.inputs = {src};
    n.outputs = {out};
    graph->AddNode(std::move(n));
    ++added;
  }
  return added;
}

}  // namespace passes
}  // namespace loom
