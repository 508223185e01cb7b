#include "builder/builder.h"

#include <filesystem>
#include <unordered_set>

#include "builder/build_internal.h"
#include "builder/build_log.h"
#include "builder/exec/complete_shapes.h"
#include "builder/ir/graph.h"
#include "builder/memory/arena_plan.h"
#include "builder/onnx/frontend.h"
#include "builder/onnx/node_shape_inference.h"
#include "builder/passes/materialize_outputs.h"
#include "builder/passes/pipeline.h"
#include "builder/place/placer.h"
#include "builder/plan/atomic_file.h"
#include "builder/plan/plan_writer.h"

#ifndef LOOM_VERSION_STRING
#define LOOM_VERSION_STRING "0.0.0"
#endif

namespace loom {

namespace {

Status CheckGraphOutputs(const ir::Graph& graph) {
  if (graph.outputs().empty()) return Status::InvalidArgument("model has no graph outputs");
  std::unordered_set<int> seen;
  for (int out : graph.outputs())
    if (!seen.insert(out).second)
      return Status::Unsupported("graph output '" + graph.value(out).name + "' is listed twice, unsupported");
  return Status::Ok();
}

}  // namespace

Status BuildPlanWithRegistry(const std::string& onnx_path, const BuildOptions& options,
                             const KernelRegistry& registry, std::vector<uint8_t>* plan, BuildReport* report) {
  BuildReport local;
  if (report == nullptr) report = &local;
  *report = BuildReport();
  if (plan == nullptr) return Status::InvalidArgument("BuildPlan: no output buffer given");
  if (options.opt_level < 0)
    return Status::InvalidArgument("optimization level " + std::to_string(options.opt_level) + " must be >= 0");

  ir::Graph graph;
  onnx_import::ModelInfo info;
  BuildLog().info("loading {}", onnx_path);
  RETURN_IF_ERROR(onnx_import::LoadOnnxModel(onnx_path, options.input_shapes, registry, &graph, &info,
                                             &report->notes));
  report->source_nodes = info.source_nodes;
  report->opset = info.opset;
  RETURN_IF_ERROR(CheckGraphOutputs(graph));
  BuildLog().info("imported {} nodes, {} values", graph.nodes().size(), graph.values().size());

  RETURN_IF_ERROR(exec::CompleteShapes(&graph, registry, onnx_import::InferNodeShapesWithOnnx, &report->notes));

  passes::PassContext ctx;
  ctx.registry = &registry;
  ctx.notes = &report->notes;
  passes::PipelineOptions pipeline_options;
  pipeline_options.opt_level = options.opt_level;
  pipeline_options.disabled = options.disabled_passes;
  std::vector<std::unique_ptr<passes::Pass>> pipeline = passes::DefaultPipeline();
  RETURN_IF_ERROR(passes::RunPipeline(pipeline, pipeline_options, ctx, graph, &report->passes_applied));

  passes::MaterializeConstantOutputs(&graph, info.effective_opset > 0 ? info.effective_opset : 17);
  Status valid = graph.Validate();
  if (!valid.ok()) return Status::Internal("graph invalid before placement: " + valid.message());

  RETURN_IF_ERROR(place::PlaceNodes(&graph, registry));
  memory::ArenaPlan arena;
  RETURN_IF_ERROR(memory::PlanArena(graph, memory::PlannerKind::kGreedy, &arena));

  plan_writer::PlanInfo plan_info;
  plan_info.producer = std::string("loom ") + LOOM_VERSION_STRING;
  plan_info.model_hash = plan_writer::HashToHex(info.file_hash);
  plan_info.model_producer = info.producer;
  plan_writer::WrittenPlan written;
  RETURN_IF_ERROR(plan_writer::WritePlan(graph, arena, plan_info, &written));

  report->plan_nodes = static_cast<int>(graph.nodes().size());
  report->arena_bytes = arena.arena_bytes;
  report->constants_bytes = written.constants_bytes;
  report->plan_bytes = written.bytes.size();
  *plan = std::move(written.bytes);
  BuildLog().info("plan: {} nodes, arena {} bytes, constants {} bytes", report->plan_nodes, report->arena_bytes,
                  report->constants_bytes);
  return Status::Ok();
}

Status BuildPlan(const std::string& onnx_path, const BuildOptions& options, std::vector<uint8_t>* plan,
                 BuildReport* report) {
  return BuildPlanWithRegistry(onnx_path, options, KernelRegistry::Global(), plan, report);
}

Status BuildPlanFile(const std::string& onnx_path, const std::string& plan_path, const BuildOptions& options,
                     BuildReport* report) {
  return BuildPlanFileWithRegistry(onnx_path, plan_path, options, KernelRegistry::Global(), report);
}

Status BuildPlanFileWithRegistry(const std::string& onnx_path, const std::string& plan_path,
                                 const BuildOptions& options, const KernelRegistry& registry, BuildReport* report) {
  std::error_code ec;
  if (std::filesystem::equivalent(onnx_path, plan_path, ec))
    return Status::InvalidArgument("the plan '" + plan_path + "' would overwrite the model");
  std::vector<uint8_t> plan;
  RETURN_IF_ERROR(BuildPlanWithRegistry(onnx_path, options, registry, &plan, report));
  return plan_writer::WriteFileAtomically(plan_path, plan);
}

}  // namespace loom
