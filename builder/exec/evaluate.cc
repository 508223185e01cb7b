#include "builder/exec/evaluate.h"

#include <algorithm>

#include "builder/exec/kernel_choice.h"

namespace loom {
namespace exec {

Status EvaluateNode(const ir::Graph& graph, const ir::Node& node, const KernelRegistry& registry,
                    size_t max_output_bytes, std::vector<EvaluatedOutput>* outputs) {
  KernelSetup setup = MakeKernelSetup(graph, node);
  setup.pack_constants = true;  // the kernel runs here
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] < 0) continue;
    if (!graph.value(node.inputs[i]).is_constant())
      return setup.Invalid("input " + std::to_string(i) + " is not constant");
  }
  bool shapes_known = true;
  for (int out : node.outputs) shapes_known = shapes_known && (out < 0 || graph.value(out).shape_known);
  if (!shapes_known) {
    for (TensorInfo& t : setup.outputs) t.shape.clear();
    std::vector<Shape> shapes;
    RETURN_IF_ERROR(InferOutputShapes(registry, setup, &shapes));
    for (size_t i = 0; i < shapes.size(); ++i) setup.outputs[i].shape = shapes[i];
  }
  for (const TensorInfo& t : setup.outputs) {
    if (!t.present) continue;
    if (t.num_elements() < 0) return setup.Invalid("output shape " + ShapeToString(t.shape) + " is invalid");
    if (DTypeSize(t.dtype) == 0) return setup.Unsupported("output dtype " + std::string(DTypeName(t.dtype)));
    if (static_cast<double>(t.num_elements()) * static_cast<double>(DTypeSize(t.dtype)) >
        static_cast<double>(max_output_bytes))
      return setup.Unsupported("folding: output of " + std::to_string(t.num_bytes()) + " bytes is too large");
  }

  ChosenKernel chosen;
  RETURN_IF_ERROR(ChooseKernel(registry, setup, Device::kCpu, &chosen));
  std::vector<const void*> in_ptrs;
  for (const TensorInfo& t : setup.inputs) in_ptrs.push_back(t.present ? t.const_data : nullptr);
  std::vector<std::shared_ptr<ir::Buffer>> out_buffers;
  std::vector<void*> out_ptrs;
  for (const TensorInfo& t : setup.outputs) {
    // Omitted outputs still get scratch storage: kernels may write them.
    out_buffers.push_back(ir::Buffer::Allocate(t.present ? t.num_bytes() : 0));
    out_ptrs.push_back(t.present ? out_buffers.back()->mutable_data() : nullptr);
  }
  std::shared_ptr<ir::Buffer> scratch = ir::Buffer::Allocate(chosen.kernel->ScratchBytes(1));
  KernelArgs args;
  args.inputs = in_ptrs.data();
  args.outputs = out_ptrs.data();
  args.num_inputs = in_ptrs.size();
  args.num_outputs = out_ptrs.size();
  args.scratch = scratch->mutable_data();
  args.pool = nullptr;
  RETURN_IF_ERROR(chosen.kernel->Run(args));

  outputs->clear();
  for (size_t i = 0; i < setup.outputs.size(); ++i) {
    EvaluatedOutput o;
    o.shape = setup.outputs[i].shape;
    if (setup.outputs[i].present) o.data = out_buffers[i];
    outputs->push_back(std::move(o));
  }
  return Status::Ok();
}

bool IsDeterministic(const ir::Node& node) {
  static const char* const kRandomOps[] = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                           "RandomUniformLike", "Multinomial", "Bernoulli"};
  if (!node.domain.empty()) return true;
  for (const char* op : kRandomOps)
    if (node.op == op) return false;
  return true;
}

void ReplaceWithConstants(ir::Graph* graph, int node_index, std::vector<EvaluatedOutput> outputs) {
  ir::Node& node = graph->node(node_index);
  for (size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i) {
    if (node.outputs[i] < 0) continue;
    ir::Value& v = graph->value(node.outputs[i]);
    v.shape = std::move(outputs[i].shape);
    v.shape_known = true;
    v.data = std::move(outputs[i].data);
  }
  node.dead = true;
}

bool EvaluateShapeOp(const ir::Graph& graph, const ir::Node& node, std::vector<EvaluatedOutput>* outputs) {
  if (!node.domain.empty() || (node.op != "Shape" && node.op != "Size")) return false;
  if (node.inputs.size() != 1 || node.inputs[0] < 0 || node.outputs.size() != 1 || node.outputs[0] < 0) return false;
  const ir::Value& in = graph.value(node.inputs[0]);
  if (!in.shape_known) return false;
  std::vector<int64_t> result;
  Shape out_shape;
  if (node.op == "Size") {
    result.push_back(NumElements(in.shape));
  } else {
    const int64_t rank = static_cast<int64_t>(in.shape.size());
    int64_t start = node.attrs.GetInt("start", 0);
    int64_t end = node.attrs.GetInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    for (int64_t i = start; i < end; ++i) result.push_back(in.shape[static_cast<size_t>(i)]);
    out_shape = {static_cast<int64_t>(result.size())};
  }
  if (graph.value(node.outputs[0]).dtype != DType::kInt64) return false;
  EvaluatedOutput o;
  o.shape = out_shape;
  o.data = ir::Buffer::CopyOf(result.data(), result.size() * sizeof(int64_t));
  outputs->assign(1, std::move(o));
  return true;
}

}  // namespace exec
}  // namespace loom
