// `loom build MODEL.onnx [-o MODEL.plan] [--shape NAME=1x3x224x224 ...] [-O 0|1]
//              [--target cpu] [--disable-pass NAME ...] [-v]`
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
#include "tools/loom/commands.h"

namespace loom {
namespace cli {

namespace {

struct BuildArgs {
  std::string model;
  std::string output;
  std::vector<std::string> shapes;
  int opt_level = 1;
  std::vector<std::string> disabled_passes;
  std::string target = "cpu";
  bool list_passes = false;
  int verbose = 0;
};

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
  std::printf("memory:   arena %s, constants %s\n", HumanBytes(r.arena_bytes).c_str(),
              HumanBytes(r.constants_bytes).c_str());
  for (const std::string& note : r.notes) std::printf("note:     %s\n", note.c_str());
  std::printf("wrote:    %s (%s)\n", output.c_str(), HumanBytes(r.plan_bytes).c_str());
}

int ListPasses(const BuildOptions& options) {
  std::unique_ptr<place::Target> target;
  const Status s = place::MakeTarget(options.target, &target);
  if (!s.ok()) {
    PrintError("--target: " + s.ToString());
    return 1;
  }
  for (const std::string& line : DescribeBuildPhases(options)) std::printf("%s\n", line.c_str());
  return 0;
}

int RunBuild(const BuildArgs& args) {
  SetUpLogging(args.verbose);
  BuildOptions options;
  options.target = args.target;
  if (args.list_passes) return ListPasses(options);
  if (args.model.empty()) {
    PrintError("build: a model is required (loom build MODEL.onnx)");
    return 1;
  }
  if (args.opt_level < 0 || args.opt_level > 1) {
    PrintError("-O " + std::to_string(args.opt_level) + ": the optimization level must be 0 or 1");
    return 1;
  }
  options.opt_level = args.opt_level;
  options.disabled_passes = args.disabled_passes;
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
  cmd->add_option("-O", args->opt_level, "Optimization level: 0 (no optimization passes) or 1 (default)");
  cmd->add_option("--disable-pass", args->disabled_passes, "Skip an optimization pass by name (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--target", args->target, "What the plan is built for: cpu (default)");
  cmd->add_flag("--list-passes", args->list_passes, "Print the build's phases and passes, then exit");
  cmd->add_flag("-v,--verbose", args->verbose, "Log the build steps (-vv: debug)");
  cmd->callback([args, exit_code] { *exit_code = RunBuild(*args); });
}

}  // namespace cli
}  // namespace loom
