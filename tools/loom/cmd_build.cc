// `loom build MODEL.onnx [-o MODEL.plan] [--shape NAME=1x3x224x224 ...] [-O 0|1]
//              [--target cpu|fpga16|fpga32] [--clock-mhz F] [--timing-cache FILE]
//              [--disable-pass NAME ...] [--tactics measure|heuristic] [--tactic-threads N] [-v]
//              [--int8 --calib DIR [--calib-method minmax|percentile|entropy]
//               [--calib-percentile P] [--calib-cache FILE] [--keep-fp32 NODE,...]
//               [--int8-min-snr DB] [--report FILE.json]]`
// `loom build --list-passes [--target T]`
// Builds a plan with the builder library and prints a short summary; errors
// are one line on stderr ("loom: error: <message>") and exit code 1.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "builder/build_log.h"
#include "builder/builder.h"
#include "builder/place/target.h"
#include "tools/loom/int8_report.h"
#include "tools/loom/commands.h"

namespace loom {
namespace cli {

namespace {

struct BuildArgs {
  std::string model;
  std::string output;
  std::vector<std::string> shapes;
  int opt_level = kDefaultOptLevel;
  std::vector<std::string> disabled_passes;
  std::string dump_graph;
  std::string target = "cpu";
  double clock_mhz = 0;
  std::string timing_cache;
  bool list_passes = false;
  int verbose = 0;
  Int8Options int8;
  std::vector<std::string> keep_fp32;  // NODE[,NODE...], repeatable
  double min_snr_db = 0;
  bool min_snr_given = false;
  std::string report;
  bool fpga_launch_per_node = false;
  bool no_prepack = false;
  std::string tactics = "measure";
  int tactic_threads = 0;
};

// The int8 flags into options; they need --int8.
Status Int8FromArgs(const BuildArgs& args, CLI::App* cmd, Int8Options* out) {
  *out = args.int8;
  for (const std::string& list : args.keep_fp32) {
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = list.find(',', start);
      const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (name.empty()) return Status::InvalidArgument("--keep-fp32 '" + list + "': empty node name");
      out->keep_fp32.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (args.min_snr_given) out->min_snr_db = args.min_snr_db;
  if (!out->enabled) {
    for (const char* flag : {"--calib", "--calib-method", "--calib-percentile", "--calib-cache", "--keep-fp32",
                             "--int8-min-snr", "--report"})
      if (cmd->count(flag) > 0) return Status::InvalidArgument(std::string(flag) + " needs --int8");
  }
  if (cmd->count("--calib-percentile") > 0 && out->calib_method != "percentile")
    return Status::InvalidArgument("--calib-percentile needs --calib-method percentile");
  return Status::Ok();
}

// "NAME=1x3x224x224" (the name may itself contain '='; the last one splits).
Status ParseShapeArg(const std::string& arg, std::string* name, Shape* shape) {
  const size_t eq = arg.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return Status::InvalidArgument("--shape '" + arg + "': expected NAME=DIMS, e.g. input=1x3x224x224");
  *name = arg.substr(0, eq);
  const std::string dims = arg.substr(eq + 1);
  shape->clear();
  if (dims.empty() || dims == "scalar") return Status::Ok();
  size_t start = 0;
  while (true) {
    const size_t end = dims.find_first_of("x,", start);
    const std::string d = dims.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (d.empty() || d.size() > 18 || d.find_first_not_of("0123456789") != std::string::npos)
      return Status::InvalidArgument("--shape '" + arg + "': '" + d + "' is not a dim (expected e.g. 1x3x224x224)");
    shape->push_back(std::stoll(d));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return Status::Ok();
}

std::string HumanBytes(size_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%zu B", bytes);
  } else if (bytes < (size_t{1} << 20)) {
    std::snprintf(buf, sizeof(buf), "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return buf;
}

void PrintError(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "loom: error: %s\n", line.c_str());
}

void SetUpLogging(int verbose) {
  BuildLog().set_level(verbose >= 2 ? spdlog::level::debug : verbose == 1 ? spdlog::level::info : spdlog::level::warn);
}

void PrintSummary(const BuildArgs& args, const std::string& output, const BuildReport& r) {
  std::printf("model:    %s (opset %d)\n", args.model.c_str(), r.opset);
  std::printf("nodes:    %d ONNX -> %d plan\n", r.source_nodes, r.plan_nodes);
  std::string passes;
  for (const std::string& p : r.passes_applied) passes += (passes.empty() ? "" : "; ") + p;
  std::printf("passes:   %s\n", passes.empty() ? "none" : passes.c_str());
  std::string devices;
  for (const auto& [device, count] : r.nodes_by_device)
    devices += (devices.empty() ? "" : ", ") + std::to_string(count) + " on " + device;
  std::printf("target:   %s (%s)\n", r.target.c_str(), devices.empty() ? "no nodes" : devices.c_str());
  const double over_bound = r.arena_lower_bound_bytes > 0 ? static_cast<double>(r.arena_bytes) /
                                                               static_cast<double>(r.arena_lower_bound_bytes)
                                                         : 1.0;
  std::printf("memory:   arena %s / lower bound %s (%.3fx), constants %s\n", HumanBytes(r.arena_bytes).c_str(),
              HumanBytes(r.arena_lower_bound_bytes).c_str(), over_bound, HumanBytes(r.constants_bytes).c_str());
  std::printf("buffers:  %d values share a buffer (%d concat inputs elided)\n", r.shared_values,
              r.concat_inputs_elided);
  if (r.derived_nodes > 0)
    std::printf("prepack:  %s of packed weights for %d nodes (this CPU's kernels use them at load; --no-prepack)\n",
                HumanBytes(r.derived_bytes).c_str(), r.derived_nodes);
  if (r.tactic_nodes > 0) {
    std::printf("tactics:  %d nodes timed in %.2f s (%d with copies), %d run another way than the kernels' rules%s\n",
                r.tactic_nodes_timed, r.tactic_seconds, r.tactic_nodes, r.tactic_changes,
                args.verbose > 0 ? ":" : " (-v lists them)");
    if (args.verbose > 0)
      for (const std::string& t : r.tactics) std::printf("          %s\n", t.c_str());
  }
  for (const std::string& note : r.notes) std::printf("note:     %s\n", note.c_str());
  if (!r.graph_dumps.empty())
    std::printf("graphs:   %zu DOT files in %s (%d rendered to SVG)\n", r.graph_dumps.size(), args.dump_graph.c_str(),
                r.graph_svgs);
  std::printf("wrote:    %s (%s)\n", output.c_str(), HumanBytes(r.plan_bytes).c_str());
}

int ListPasses(const BuildOptions& options) {
  std::unique_ptr<place::Target> target;
  place::TargetOptions target_options;
  target_options.clock_mhz = options.clock_mhz;
  target_options.timing_cache = options.timing_cache;
  const Status s = place::MakeTarget(options.target, target_options, &target);
  if (!s.ok()) {
    PrintError(s.ToString());
    return 1;
  }
  for (const std::string& line : DescribeBuildPhases(options)) std::printf("%s\n", line.c_str());
  return 0;
}

int RunBuild(const BuildArgs& args, CLI::App* cmd) {
  SetUpLogging(args.verbose);
  BuildOptions options;
  options.target = args.target;
  options.fpga_launch_per_node = args.fpga_launch_per_node;
  options.prepack = !args.no_prepack;
  if (args.tactics != "measure" && args.tactics != "heuristic") {
    PrintError("--tactics '" + args.tactics + "': expected measure or heuristic");
    return 1;
  }
  options.measure_tactics = args.tactics == "measure";
  options.tactic_threads = args.tactic_threads;
  // 0 means "the configuration's clock" to the library; given, it is a mistake.
  if (cmd->count("--clock-mhz") > 0 && !(args.clock_mhz > 0)) {
    PrintError("--clock-mhz " + cmd->get_option("--clock-mhz")->as<std::string>() +
               ": expected more than 0 and at most 1000 MHz");
    return 1;
  }
  options.clock_mhz = args.clock_mhz;
  options.timing_cache = args.timing_cache;
  if (args.list_passes) return ListPasses(options);
  if (args.model.empty()) {
    PrintError("build: a model is required (loom build MODEL.onnx)");
    return 1;
  }
  if (args.opt_level < 0 || args.opt_level > kDefaultOptLevel) {
    PrintError("-O " + std::to_string(args.opt_level) + ": the optimization level must be 0, 1, 2 or 3");
    return 1;
  }
  options.opt_level = args.opt_level;
  options.dump_graph_dir = args.dump_graph;
  options.disabled_passes = args.disabled_passes;
  Status int8 = Int8FromArgs(args, cmd, &options.int8);
  if (!int8.ok()) {
    PrintError(int8.ToString());
    return 1;
  }
  for (const std::string& s : args.shapes) {
    std::string name;
    Shape shape;
    Status st = ParseShapeArg(s, &name, &shape);
    if (!st.ok()) {
      PrintError(st.ToString());
      return 1;
    }
    if (options.input_shapes.count(name)) {
      PrintError("--shape given twice for input '" + name + "'");
      return 1;
    }
    options.input_shapes[name] = shape;
  }
  std::string output = args.output;
  if (output.empty()) output = std::filesystem::path(args.model).replace_extension(".plan").string();
  BuildReport report;
  Status st;
  try {
    st = BuildPlanFile(args.model, output, options, &report);
  } catch (const std::exception& e) {
    st = Status::Internal(std::string("unexpected exception: ") + e.what());
  }
  if (!st.ok()) {
    PrintError(st.ToString());
    return 1;
  }
  PrintSummary(args, output, report);
  if (report.int8.enabled) PrintInt8Table(report.int8, stdout);
  if (!args.report.empty()) {
    st = WriteInt8Report(args.report, report.int8, args.model);
    if (!st.ok()) {
      PrintError(st.ToString());
      return 1;
    }
    std::printf("report:   %s\n", args.report.c_str());
  }
  return 0;
}

}  // namespace

void AddBuildCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BuildArgs>();
  CLI::App* cmd = app.add_subcommand("build", "Build a plan from an ONNX model");
  cmd->add_option("model", args->model, "ONNX model file");
  cmd->add_option("-o,--output", args->output, "Plan file to write (default: the model path with extension .plan)");
  cmd->add_option("--shape", args->shapes, "Static input shape NAME=1x3x224x224 (repeatable)")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("-O", args->opt_level,
                  "Optimization level: 0 (no optimization passes), 1 (clean-ups), 2 (+ standard fusions), "
                  "3 (+ pattern rewrites; default); -O2 or -O 2");
  cmd->add_option("--dump-graph", args->dump_graph,
                  "Write the graph as DOT after import and after each pass into DIR (and SVG when graphviz's dot "
                  "is installed)");
  cmd->add_option("--disable-pass", args->disabled_passes, "Skip an optimization pass by name (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--fpga-launch-per-node", args->fpga_launch_per_node,
                "One accelerator launch per FPGA node (profiles show each layer's counters)");
  cmd->add_flag("--no-prepack", args->no_prepack,
                "Leave packing and transforming weights to the engine at load (smaller plan, slower load); by "
                "default a cpu-target plan carries them, computed for this machine's CPU");
  cmd->add_option("--tactics", args->tactics,
                  "measure (default): time the ways a CPU kernel can run a node (Winograd or direct 3x3 "
                  "convolutions) on this machine and keep the fastest; heuristic: the kernels' own rules. "
                  "cpu target only");
  cmd->add_option("--tactic-threads", args->tactic_threads,
                  "Threads of the timed runs of --tactics measure (default: this machine's cores)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--target", args->target,
                  "What the plan is built for: cpu (default), fpga16 (PYNQ-Z2) or fpga32 (KV260)");
  cmd->add_option("--clock-mhz", args->clock_mhz,
                  "The accelerator's clock for its predictions, in MHz (default: the target's own)");
  cmd->add_option("--timing-cache", args->timing_cache,
                  "Measured CPU node times (loom bench --write-timing-cache) instead of the target's defaults");
  cmd->add_flag("--list-passes", args->list_passes, "Print the build's phases and passes, then exit");
  cmd->add_flag("-v,--verbose", args->verbose, "Log the build steps (-vv: debug)");
  cmd->add_flag("--int8", args->int8.enabled, "Quantize to int8 from calibration data (post-training quantization)");
  cmd->add_option("--calib", args->int8.calib_dir,
                  "Calibration samples: a folder of .npy files (one folder per input for several inputs)");
  cmd->add_option("--calib-method", args->int8.calib_method, "Range estimator: minmax, percentile or entropy (default)");
  cmd->add_option("--calib-percentile", args->int8.calib_percentile, "Percentile for --calib-method percentile (default 99.99)");
  cmd->add_option("--calib-cache", args->int8.calib_cache,
                  "Ranges file: read when it exists and matches the model, else written after calibrating");
  cmd->add_option("--keep-fp32", args->keep_fp32, "Nodes that stay float: NODE[,NODE...] (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--int8-min-snr", args->min_snr_db, "Keep float any layer whose int8 output SNR is below DB")
      ->each([args](const std::string&) { args->min_snr_given = true; });
  cmd->add_option("--report", args->report, "Write the int8 report (per-layer SNR, output agreement) as JSON");
  cmd->callback([args, exit_code, cmd] { *exit_code = RunBuild(*args, cmd); });
}

}  // namespace cli
}  // namespace loom
