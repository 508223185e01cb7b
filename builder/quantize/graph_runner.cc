#include "builder/quantize/graph_runner.h"

#include <set>

#include "builder/memory/arena_plan.h"
#include "builder/passes/materialize_outputs.h"
#include "builder/place/kernel_selection.h"
#include "builder/place/placer.h"
#include "builder/place/target.h"
#include "builder/plan/plan_writer.h"

namespace loom {
namespace quantize {

Status GraphRunner::Create(ir::Graph graph, const std::vector<std::string>& probes, const KernelRegistry& registry,
                           int num_threads, std::unique_ptr<GraphRunner>* out) {
  std::set<std::string> wanted(probes.begin(), probes.end());
  std::set<int> outputs(graph.outputs().begin(), graph.outputs().end());
  for (const ir::Node& n : graph.nodes())
    for (int id : n.outputs)
      if (id >= 0 && wanted.count(graph.value(id).name) && !outputs.count(id)) {
        graph.outputs().push_back(id);
        outputs.insert(id);
      }
  passes::MaterializeConstantOutputs(&graph, 17);
  std::unique_ptr<place::Target> target;
  RETURN_IF_ERROR(place::MakeTarget("cpu", &target));
  RETURN_IF_ERROR(place::PlaceNodes(&graph, *target, registry));
  RETURN_IF_ERROR(place::SelectKernels(&graph, *target, registry));
  memory::ArenaPlan arena;
  RETURN_IF_ERROR(memory::PlanArena(graph, memory::PlannerKind::kGreedy, &arena));
  plan_writer::WrittenPlan written;
  RETURN_IF_ERROR(plan_writer::WritePlan(graph, arena, plan_writer::PlanInfo(), &written));

  auto runner = std::unique_ptr<GraphRunner>(new GraphRunner());
  RETURN_IF_ERROR(Engine::LoadFromBuffer(written.bytes.data(), written.bytes.size(), registry, &runner->engine_));
  ContextOptions options;
  options.num_threads = num_threads;
  RETURN_IF_ERROR(runner->engine_->CreateContext(options, &runner->context_));
  *out = std::move(runner);
  return Status::Ok();
}

Status GraphRunner::Run(const std::vector<HostTensor>& inputs) {
  const std::vector<TensorDesc>& descs = engine_->inputs();
  if (inputs.size() != descs.size())
    return Status::Internal("graph runner: " + std::to_string(inputs.size()) + " inputs for " +
                            std::to_string(descs.size()));
  for (size_t i = 0; i < descs.size(); ++i)
    RETURN_IF_ERROR(context_->SetInput(descs[i].name, inputs[i].data.data(), inputs[i].data.size()));
  return context_->Run();
}

const float* GraphRunner::Float(const std::string& name, size_t* count) const {
  const TensorDesc* desc = engine_->FindOutput(name);
  *count = 0;
  if (desc == nullptr || desc->dtype != DType::kFloat32) return nullptr;
  *count = desc->size_bytes / sizeof(float);
  return static_cast<const float*>(context_->OutputData(name));
}

}  // namespace quantize
}  // namespace loom
