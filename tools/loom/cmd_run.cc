// `loom run MODEL.plan [--input NAME=FILE ...] [--input-pb DIR] [--random]
//                      [--seed S] [--output DIR] [--threads N]
//                      [--device D ...] [--allow-cpu-fallback] [--profile] [--trace FILE.json]`
// Binds inputs from .npy (or TensorProto .pb) files, ONNX test-data folders or
// seeded random data, runs the plan once on the CPU and the given device
// (device_options.h), and writes one .npy per output or prints a short
// summary of each; --profile and --trace report the run (run_profile.h).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include "tools/loom/cli_util.h"
#include "tools/loom/commands.h"
#include "tools/loom/device_options.h"
#include "tools/loom/run_profile.h"

namespace loom {
namespace cli {
namespace {

struct RunOptions {
  std::string plan;
  std::vector<std::string> inputs;
  std::string input_pb;
  bool random = false;
  uint64_t seed = 0;
  std::string output_dir;
  int threads = 1;
  DeviceOptions device;
  bool profile = false;
  std::string trace;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string InputNames(const Engine& engine) {
  std::string s;
  for (const TensorDesc& d : engine.inputs()) s += (s.empty() ? "'" : ", '") + d.name + "'";
  return s.empty() ? "none" : s;
}

// The tensor given for input `desc` must match the plan's dtype and shape.
// uint16 data may feed a bfloat16 input: ONNX test data up to 1.12 stores
// bfloat16 tensors as their uint16 bit patterns.
Status CheckInput(const TensorDesc& desc, const HostTensor& t, const std::string& source) {
  const bool bfloat16_bits = desc.dtype == DType::kBFloat16 && t.dtype == DType::kUInt16;
  if ((t.dtype != desc.dtype && !bfloat16_bits) || t.shape != desc.shape) {
    return Status::InvalidArgument("input '" + desc.name + "': expected " + Describe(desc.dtype, desc.shape) +
                                   ", got " + Describe(t.dtype, t.shape) + " from '" + source + "'");
  }
  return Status::Ok();
}

int FindInput(const Engine& engine, const std::string& name) {
  for (size_t i = 0; i < engine.inputs().size(); ++i)
    if (engine.inputs()[i].name == name) return static_cast<int>(i);
  return -1;
}

// Fills given[i] for every input named by --input-pb and --input.
Status GatherInputs(const Engine& engine, const RunOptions& o, std::vector<HostTensor>* given,
                    std::vector<bool>* bound) {
  const size_t n = engine.inputs().size();
  given->assign(n, HostTensor());
  bound->assign(n, false);
  if (!o.input_pb.empty()) {
    size_t files = 0;
    for (size_t k = 0;; ++k) {
      const std::string path = o.input_pb + "/input_" + std::to_string(k) + ".pb";
      if (!FileExists(path)) break;
      HostTensor t;
      RETURN_IF_ERROR(ReadTensorProto(path, &t));
      int index = FindInput(engine, t.name);  // by name, else by position
      if (index < 0) index = k < n ? static_cast<int>(k) : -1;
      if (index < 0) {
        return Status::InvalidArgument("'" + path + "': the plan has only " + std::to_string(n) + " inputs (" +
                                       InputNames(engine) + ")");
      }
      RETURN_IF_ERROR(CheckInput(engine.inputs()[index], t, path));
      (*given)[index] = std::move(t);
      (*bound)[index] = true;
      ++files;
    }
    if (files == 0 && n > 0) return Status::NotFound("no input_0.pb in '" + o.input_pb + "'");
  }
  for (const std::string& spec : o.inputs) {
    const size_t eq = spec.find('=');
    std::string name, path;
    if (eq == std::string::npos) {
      if (n != 1) {
        return Status::InvalidArgument("--input '" + spec + "': use NAME=FILE (the plan has " + std::to_string(n) +
                                       " inputs: " + InputNames(engine) + ")");
      }
      name = engine.inputs()[0].name;
      path = spec;
    } else {
      name = spec.substr(0, eq);
      path = spec.substr(eq + 1);
    }
    const int index = FindInput(engine, name);
    if (index < 0) return Status::NotFound("no graph input named '" + name + "' (inputs: " + InputNames(engine) + ")");
    HostTensor t;
    RETURN_IF_ERROR(EndsWith(path, ".pb") ? ReadTensorProto(path, &t) : ReadNpy(path, &t));
    RETURN_IF_ERROR(CheckInput(engine.inputs()[index], t, path));
    (*given)[index] = std::move(t);
    (*bound)[index] = true;
  }
  std::mt19937_64 rng(o.seed);
  for (size_t i = 0; i < n; ++i) {
    if ((*bound)[i]) continue;
    const TensorDesc& d = engine.inputs()[i];
    if (!o.random) {
      return Status::InvalidArgument("input '" + d.name + "' (" + Describe(d.dtype, d.shape) +
                                     ") is not given; use --input " + d.name + "=FILE.npy, --input-pb DIR or --random");
    }
    (*given)[i] = RandomTensor(d, &rng);
    (*bound)[i] = true;
  }
  return Status::Ok();
}

// A file name for output `name`: letters, digits, '.', '-', '_' kept, other
// characters replaced by '_'; unique among `used`.
std::string OutputFileName(const std::string& name, size_t index, std::set<std::string>* used) {
  std::string base;
  for (const char c : name) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    base += keep ? c : '_';
  }
  if (base.empty() || base == "." || base == "..") base = "output_" + std::to_string(index);
  std::string file = base;
  for (int k = 1; !used->insert(file).second; ++k) file = base + "_" + std::to_string(k);
  return file + ".npy";
}

Status MakeDirectory(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument("--output '" + dir + "' is not a directory");
    return Status::Ok();
  }
  if (mkdir(dir.c_str(), 0755) != 0)
    return Status::IoError("cannot create directory '" + dir + "': " + std::strerror(errno));
  return Status::Ok();
}

Status WriteOutputs(const Engine& engine, const ExecutionContext& ctx, const std::string& dir) {
  RETURN_IF_ERROR(MakeDirectory(dir));
  std::set<std::string> used;
  for (size_t i = 0; i < engine.outputs().size(); ++i) {
    const TensorDesc& d = engine.outputs()[i];
    const auto* data = static_cast<const uint8_t*>(ctx.OutputData(d.name));
    HostTensor t;
    t.dtype = d.dtype;
    t.shape = d.shape;
    if (d.dtype == DType::kBFloat16) {  // numpy has no bfloat16: widen to float32
      t.dtype = DType::kFloat32;
      t.data.resize(d.size_bytes * 2);
      for (size_t k = 0; k < d.size_bytes / 2; ++k)
        t.as<float>()[k] = static_cast<float>(ElementAsDouble(d.dtype, data, k));
    } else {
      t.data.assign(data, data + d.size_bytes);
    }
    const std::string path = dir + "/" + OutputFileName(d.name, i, &used);
    RETURN_IF_ERROR(WriteNpy(path, t));
    std::printf("wrote %s (%s)\n", path.c_str(), Describe(d.dtype, d.shape).c_str());
  }
  return Status::Ok();
}

void PrintSummary(const Engine& engine, const ExecutionContext& ctx) {
  for (const TensorDesc& d : engine.outputs()) {
    const void* data = ctx.OutputData(d.name);
    const size_t n = static_cast<size_t>(NumElements(d.shape));
    std::printf("%s: %s", d.name.c_str(), Describe(d.dtype, d.shape).c_str());
    if (n == 0) {
      std::printf("  (empty)\n");
      continue;
    }
    double lo = ElementAsDouble(d.dtype, data, 0), hi = lo, sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const double v = ElementAsDouble(d.dtype, data, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    std::printf("  min %.6g  max %.6g  mean %.6g\n  first:", lo, hi, sum / static_cast<double>(n));
    const size_t shown = std::min<size_t>(n, 8);
    for (size_t i = 0; i < shown; ++i) std::printf(" %.6g", ElementAsDouble(d.dtype, data, i));
    std::printf("%s\n", n > shown ? " ..." : "");
  }
}

int RunPlan(const RunOptions& o) {
  std::shared_ptr<const Engine> engine;
  Status s = LoadEngineOn(o.plan, o.device, &engine);
  if (!s.ok()) return ReportError(s);
  std::unique_ptr<ExecutionContext> ctx;
  ContextOptions context;
  context.num_threads = o.threads;
  context.profile = o.profile || !o.trace.empty();
  s = engine->CreateContext(context, &ctx);
  if (!s.ok()) return ReportError(s);
  std::vector<HostTensor> given;
  std::vector<bool> bound;
  s = GatherInputs(*engine, o, &given, &bound);
  if (!s.ok()) return ReportError(s);
  for (size_t i = 0; i < given.size(); ++i) {
    s = ctx->SetInput(engine->inputs()[i].name, given[i].data.data(), given[i].data.size());
    if (!s.ok()) return ReportError(s);
  }
  const auto start = std::chrono::steady_clock::now();
  s = ctx->Run();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return ReportError(s);
  std::printf("ran %s in %s (%d thread%s, device %s)\n", o.plan.c_str(), FormatMs(ms).c_str(), o.threads,
              o.threads == 1 ? "" : "s", o.device.device.c_str());
  if (!o.trace.empty()) {
    s = WriteTrace(*engine, *ctx, o.trace);
    if (!s.ok()) return ReportError(s);
  }
  if (!o.output_dir.empty()) {
    s = WriteOutputs(*engine, *ctx, o.output_dir);
    if (!s.ok()) return ReportError(s);
  } else {
    PrintSummary(*engine, *ctx);
  }
  if (o.profile) PrintProfile(*engine, *ctx, o.device.device == "fpga-model" || o.device.device == "fpga-rtl");
  return 0;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a plan once on given or random inputs");
  cmd->add_option("plan", o->plan, "Plan file (from `loom build`)")->required();
  cmd->add_option("--input,-i", o->inputs, "NAME=FILE.npy (or .pb) for a graph input; repeatable");
  cmd->add_option("--input-pb", o->input_pb, "Folder with input_0.pb, input_1.pb, ... (ONNX test data)");
  cmd->add_flag("--random", o->random, "Fill inputs not given otherwise with seeded random data");
  cmd->add_option("--seed", o->seed, "Random seed (default 0)");
  cmd->add_option("--output,-o", o->output_dir, "Write <output name>.npy files into this folder");
  cmd->add_option("--threads,-t", o->threads, "Threads used inside the run (default 1)")->check(CLI::Range(1, 256));
  AddDeviceOptions(cmd, &o->device);
  cmd->add_flag("--profile", o->profile, "Print per-node times and the accelerator's counters");
  cmd->add_option("--trace", o->trace, "Write a Chrome/Perfetto trace of the run (FILE.json)");
  cmd->callback([o, exit_code] { *exit_code = RunPlan(*o); });
}

}  // namespace cli
}  // namespace loom
