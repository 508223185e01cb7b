#include "builder/builder.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
#include <unordered_set>

#include "builder/build_internal.h"
#include "builder/build_log.h"
#include "builder/exec/choose_tactics.h"
#include "builder/exec/complete_shapes.h"
#include "builder/exec/derive_constants.h"
#include "builder/graph_dump.h"
#include "builder/ir/graph.h"
#include "builder/lower/insert_relayouts.h"
#include "builder/lower/lower_fpga.h"
#include "builder/memory/arena_plan.h"
#include "builder/memory/memory_spaces.h"
#include "builder/onnx/frontend.h"
#include "builder/onnx/node_shape_inference.h"
#include "builder/passes/materialize_outputs.h"
#include "builder/passes/pipeline.h"
#include "builder/place/boundaries.h"
#include "builder/place/kernel_selection.h"
#include "builder/place/placer.h"
#include "builder/plan/atomic_file.h"
#include "builder/plan/plan_writer.h"
#include "builder/quantize/quantizer.h"
#include "kernels/fpga/kernels/fpga_kernels.h"

#ifndef LOOM_VERSION_STRING
#define LOOM_VERSION_STRING "0.0.0"
#endif

namespace loom {

static_assert(kDefaultOptLevel == passes::kMaxOptLevel, "loom build -O3 is the pipeline's top level");

namespace {

Status CheckGraphOutputs(const ir::Graph& graph) {
  if (graph.outputs().empty()) return Status::InvalidArgument("model has no graph outputs");
  std::unordered_set<int> seen;
  for (int out : graph.outputs())
    if (!seen.insert(out).second)
      return Status::Unsupported("graph output '" + graph.value(out).name + "' is listed twice, unsupported");
  return Status::Ok();
}

// The configuration id of the accelerator the plan's off-CPU nodes were
// prepared for; empty when every node runs on the CPU.
std::string AcceleratorFingerprint(const ir::Graph& graph, const place::Target& target) {
  for (const ir::Node& n : graph.nodes()) {
    if (n.dead || n.device == Device::kCpu) continue;
    const DeviceConfig* config = target.ConfigFor(n.device);
    if (config != nullptr) return config->fingerprint();
  }
  return std::string();
}

place::TargetOptions TargetOptionsOf(const BuildOptions& options) {
  place::TargetOptions t;
  t.clock_mhz = options.clock_mhz;
  t.timing_cache = options.timing_cache;
  return t;
}

// "conv2 (ConvNchwc): loom.winograd = 0 (2: 1.520 ms, 0: 1.062 ms, 4: 3.510 ms; the rule: 2)", with
// "; as an earlier node of the same shapes" for a copy.
std::string DescribeTactic(const exec::TacticChoice& c) {
  std::string line = c.node + ": " + c.attribute + " = " + std::to_string(c.value) + " (";
  for (size_t k = 0; k < c.values.size(); ++k) {
    char ms[32];
    std::snprintf(ms, sizeof(ms), "%.3f ms", c.ms[k]);
    line += (k ? ", " : "") + std::to_string(c.values[k]) + ": " + ms;
  }
  line += "; the rule: " + std::to_string(c.default_value);
  return line + (c.copy ? "; as an earlier node of the same shapes)" : ")");
}

// One build: the phases of pipeline.h, in order, each a method.
class Build {
 public:
  Build(const KernelRegistry& registry, const place::Target& target, const BuildOptions& options, BuildReport* report)
      : registry_(registry), target_(target), options_(options), report_(report), pipeline_(passes::DefaultPipeline()) {
    ctx_.registry = &registry_;
    ctx_.target = &target_;
    ctx_.notes = &report_->notes;
    pipeline_options_.opt_level = options_.opt_level;
    pipeline_options_.disabled = options_.disabled_passes;
    pipeline_options_.after_pass = [this](passes::Phase phase, const std::string& pass, const ir::Graph& graph) {
      return dumper_.Dump(std::string(passes::PhaseName(phase)) + "-" + pass, graph);
    };
  }

  Status Run(const std::string& onnx_path, std::vector<uint8_t>* plan) {
    RETURN_IF_ERROR(pipeline_.CheckOptions(pipeline_options_));
    RETURN_IF_ERROR(dumper_.Open(options_.dump_graph_dir));
    RETURN_IF_ERROR(Import(onnx_path));
    RETURN_IF_ERROR(dumper_.Dump("import", graph_));
    RETURN_IF_ERROR(pipeline_.Run(passes::Phase::kGraph, pipeline_options_, ctx_, graph_, &report_->passes_applied));
    if (options_.int8.enabled) {
      RETURN_IF_ERROR(quantize::QuantizeInt8(&graph_, options_.int8, plan_writer::HashToHex(info_.file_hash), registry_,
                                             &report_->int8, &report_->notes));
      RETURN_IF_ERROR(dumper_.Dump("quantize", graph_));
    }
    RETURN_IF_ERROR(Place());
    RETURN_IF_ERROR(dumper_.Dump("placement", graph_));
    RETURN_IF_ERROR(
        pipeline_.Run(passes::Phase::kPostPlacement, pipeline_options_, ctx_, graph_, &report_->passes_applied));
    RETURN_IF_ERROR(place::SelectKernels(&graph_, target_, registry_));
    RETURN_IF_ERROR(lower::InsertRelayouts(&graph_, target_, &relayouts_));
    RETURN_IF_ERROR(ChooseTactics());
    RETURN_IF_ERROR(Prepack());
    RETURN_IF_ERROR(dumper_.Dump("final", graph_));
    report_->graph_dumps = dumper_.files();
    RETURN_IF_ERROR(dumper_.RenderSvg(&report_->graph_svgs));
    return PlanMemoryAndWrite(plan);
  }

 private:
  // ONNX load, checks, shape inference, import into the IR, shapes ONNX left open.
  Status Import(const std::string& onnx_path) {
    BuildLog().info("loading {}", onnx_path);
    RETURN_IF_ERROR(onnx_import::LoadOnnxModel(onnx_path, options_.input_shapes, registry_, &graph_, &info_,
                                               &report_->notes));
    report_->source_nodes = info_.source_nodes;
    report_->opset = info_.opset;
    RETURN_IF_ERROR(CheckGraphOutputs(graph_));
    BuildLog().info("imported {} nodes, {} values", graph_.nodes().size(), graph_.values().size());
    return exec::CompleteShapes(&graph_, registry_, onnx_import::InferNodeShapesWithOnnx, &report_->notes);
  }

  Status Place() {
    passes::MaterializeConstantOutputs(&graph_, info_.effective_opset > 0 ? info_.effective_opset : 17);
    RETURN_IF_ERROR(
        pipeline_.Run(passes::Phase::kPrePlacement, pipeline_options_, ctx_, graph_, &report_->passes_applied));
    Status valid = graph_.Validate();
    if (!valid.ok()) return Status::Internal("graph invalid before placement: " + valid.message());
    return place::PlaceNodes(&graph_, target_, registry_);
  }

  bool CpuOnlyTarget() const {
    for (const place::TargetDevice& d : target_.devices())
      if (d.device != Device::kCpu) return false;
    return true;
  }

  // Timed tactics for a plan that runs on this kind of CPU only.
  Status ChooseTactics() {
    if (!options_.measure_tactics || !CpuOnlyTarget()) return Status::Ok();
    exec::TacticOptions tactic_options;
    tactic_options.threads = options_.tactic_threads > 0
                                 ? options_.tactic_threads
                                 : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    exec::TacticStats stats;
    RETURN_IF_ERROR(exec::ChooseTactics(&graph_, registry_, tactic_options, &stats));
    report_->tactic_nodes = static_cast<int>(stats.choices.size());
    report_->tactic_nodes_timed = stats.timed;
    report_->tactic_seconds = stats.seconds;
    for (const exec::TacticChoice& c : stats.choices) {
      if (c.value != c.default_value) ++report_->tactic_changes;
      report_->tactics.push_back(DescribeTactic(c));
      BuildLog().info("tactic: {}", report_->tactics.back());
    }
    BuildLog().info("tactics: {} nodes timed in {:.2f} s ({} with copies), {} differ from the kernels' rules",
                    stats.timed, stats.seconds, stats.choices.size(), report_->tactic_changes);
    return Status::Ok();
  }

  // Derived constants for a plan that runs on this kind of CPU only.
  Status Prepack() {
    if (!options_.prepack || !CpuOnlyTarget()) return Status::Ok();
    exec::DerivedStats stats;
    RETURN_IF_ERROR(exec::DeriveConstants(&graph_, registry_, &stats));
    report_->derived_nodes = stats.nodes;
    report_->derived_bytes = stats.bytes;
    BuildLog().info("prepack: {} derived constants of {} nodes, {} bytes", stats.constants, stats.nodes, stats.bytes);
    return Status::Ok();
  }

  Status PlanMemoryAndWrite(std::vector<uint8_t>* plan) {
    memory::AssignMemorySpaces(&graph_);
    memory::ArenaPlan arena;
    RETURN_IF_ERROR(memory::PlanArena(graph_, memory::PlannerKind::kGreedy, &arena));
    BuildLog().info("memory plan: arena {} bytes (lower bound {}), {} values share a buffer, {} concat inputs elided",
                    arena.arena_bytes, arena.lower_bound_bytes, arena.shared_values, arena.concat_inputs_elided);
    lower::LoweringStats lowered;
    RETURN_IF_ERROR(lower::LowerFpgaNodes(&graph_, arena, target_, options_.fpga_launch_per_node, &lowered));
    if (lowered.launches > 0) {
      BuildLog().info("lowered {} FPGA nodes into {} launches: {} commands, {} bytes of constants; {} relayouts",
                      lowered.fpga_nodes, lowered.launches, lowered.commands, lowered.constant_bytes,
                      relayouts_);
    }
    plan_writer::PlanInfo plan_info;
    plan_info.producer = std::string("loom ") + LOOM_VERSION_STRING;
    plan_info.model_hash = plan_writer::HashToHex(info_.file_hash);
    plan_info.model_producer = info_.producer;
    plan_info.accelerator_fingerprint = AcceleratorFingerprint(graph_, target_);
    plan_info.target = target_.name();
    for (const place::TargetDevice& d : target_.devices())
      if (d.device != Device::kCpu) plan_info.clock_mhz = d.config->clock_mhz();
    for (const place::Boundary& b : place::ListBoundaries(graph_, target_.cost_model()))
      plan_info.boundaries.push_back({b.value, b.from, b.to, b.ms});
    plan_writer::WrittenPlan written;
    RETURN_IF_ERROR(plan_writer::WritePlan(graph_, arena, plan_info, &written));

    report_->target = target_.name();
    for (const ir::Node& n : graph_.nodes()) ++report_->nodes_by_device[DeviceName(n.device)];
    report_->plan_nodes = static_cast<int>(graph_.nodes().size());
    report_->arena_bytes = arena.arena_bytes;
    report_->arena_lower_bound_bytes = arena.lower_bound_bytes;
    report_->shared_values = arena.shared_values;
    report_->concat_inputs_elided = arena.concat_inputs_elided;
    report_->constants_bytes = written.constants_bytes;
    report_->plan_bytes = written.bytes.size();
    *plan = std::move(written.bytes);
    BuildLog().info("plan: {} nodes, arena {} bytes, constants {} bytes", report_->plan_nodes, report_->arena_bytes,
                    report_->constants_bytes);
    return Status::Ok();
  }

  const KernelRegistry& registry_;
  const place::Target& target_;
  const BuildOptions& options_;
  BuildReport* report_;
  passes::Pipeline pipeline_;
  passes::PipelineOptions pipeline_options_;
  passes::PassContext ctx_;
  ir::Graph graph_;
  onnx_import::ModelInfo info_;
  int relayouts_ = 0;
  GraphDumper dumper_;
};

}  // namespace

Status BuildPlanIn(const BuildEnvironment& env, const std::string& onnx_path, const BuildOptions& options,
                   std::vector<uint8_t>* plan, BuildReport* report) {
  BuildReport local;
  if (report == nullptr) report = &local;
  *report = BuildReport();
  if (plan == nullptr) return Status::InvalidArgument("BuildPlan: no output buffer given");
  if (options.opt_level < 0 || options.opt_level > kDefaultOptLevel)
    return Status::InvalidArgument("optimization level " + std::to_string(options.opt_level) + " must be 0 to " +
                                   std::to_string(kDefaultOptLevel));
  std::unique_ptr<place::Target> named;
  const place::Target* target = env.target;
  if (target == nullptr) {
    RETURN_IF_ERROR(place::MakeTarget(options.target, TargetOptionsOf(options), &named));
    target = named.get();
  }
  return Build(*env.registry, *target, options, report).Run(onnx_path, plan);
}

Status BuildPlanWithRegistry(const std::string& onnx_path, const BuildOptions& options,
                             const KernelRegistry& registry, std::vector<uint8_t>* plan, BuildReport* report) {
  BuildEnvironment env;
  env.registry = &registry;
  return BuildPlanIn(env, onnx_path, options, plan, report);
}

Status BuildPlan(const std::string& onnx_path, const BuildOptions& options, std::vector<uint8_t>* plan,
                 BuildReport* report) {
  return BuildPlanWithRegistry(onnx_path, options, fpga::FpgaKernelRegistry(), plan, report);
}

Status BuildPlanFile(const std::string& onnx_path, const std::string& plan_path, const BuildOptions& options,
                     BuildReport* report) {
  return BuildPlanFileWithRegistry(onnx_path, plan_path, options, fpga::FpgaKernelRegistry(), report);
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

std::vector<std::string> DescribeBuildPhases(const BuildOptions& options) {
  const passes::Pipeline pipeline = passes::DefaultPipeline();
  std::vector<std::string> lines;
  auto passes_of = [&](passes::Phase phase) {
    for (const passes::PipelineEntry& e : pipeline.entries()) {
      if (e.phase != phase) continue;
      std::string line = std::string("    ") + e.pass->name();
      line.resize(std::max<size_t>(line.size() + 1, 30), ' ');
      line += e.what;
      if (e.pass->min_opt_level() > 0) line += " (-O" + std::to_string(e.pass->min_opt_level()) + ")";
      lines.push_back(line);
    }
  };
  std::unique_ptr<place::Target> target;
  const Status s = place::MakeTarget(options.target, TargetOptionsOf(options), &target);
  lines.push_back("1. import: load, check and shape-infer the ONNX model; import it into Loom's graph IR");
  lines.push_back("2. graph passes (target-independent):");
  passes_of(passes::Phase::kGraph);
  lines.push_back("   quantize (--int8): calibrate, pick int8 parameters, write them as QDQ and fold it into int8 nodes");
  lines.push_back("   pre-placement passes (the nodes as the placer will price them):");
  passes_of(passes::Phase::kPrePlacement);
  lines.push_back("3. placement for target '" + options.target + "'" +
                  (s.ok() ? ": " + target->description() + "; cost model: " + target->cost_model().name()
                          : ": " + s.message()));
  lines.push_back("4. post-placement passes (device-specific):");
  passes_of(passes::Phase::kPostPlacement);
  lines.push_back("5. kernel selection: the first kernel of each node's device that accepts it");
  lines.push_back("6. layouts: FPGA activations in padded NHWC, a CPU Relayout at each CPU<->FPGA boundary");
  lines.push_back(
      "7. cpu target only: tactics (--tactics measure) time each way a CPU kernel can run a node "
      "(Winograd tiles or direct 3x3 convolutions) on this machine and keep the fastest; prepack stores "
      "the weights as this CPU's kernels read them (--no-prepack)");
  lines.push_back(
      "8. memory planning: device-visible memory for what off-CPU nodes touch; one arena, greedy by size "
      "with best fit, 64-byte aligned");
  lines.push_back(
      "9. lowering: each run of consecutive FPGA nodes becomes one launch (command stream, pre-tiled "
      "weights and packed parameters as constants)");
  lines.push_back("10. plan writing: header, metadata flatbuffer, 64-byte aligned constants");
  return lines;
}

}  // namespace loom
