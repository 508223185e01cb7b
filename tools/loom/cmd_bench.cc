// `loom bench MODEL.plan [--threads N] [--iters K] [--warmup W] [--seed S] [--json]
//                        [--device D ...] [--allow-cpu-fallback] [--write-timing-cache FILE]`
// Binds seeded random inputs, runs W warm-up iterations, then times K runs
// with steady_clock and reports min / median / p90 / p99 / mean in ms, the
// plan's arena and constants sizes, and the fp32 GEMM path (LOOM_CPU_ISA).
// It also reports the start-up: the load (plan file to a context ready to
// run: reading, verifying, weight packing, arena allocation) and the first
// run (the first warm-up run, or the first timed run without warm-up).
// --write-timing-cache profiles the timed runs and writes each CPU node's
// median time by signature (common/timing_cache.h) for `loom build
// --timing-cache`; nodes placed on a device are left out (a plan with such
// nodes needs its device to run).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>

#include "common/timing_cache.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"
#include "tools/loom/cli_util.h"
#include "tools/loom/commands.h"
#include "tools/loom/device_options.h"
#include "tools/loom/host_cpu.h"
#include "tools/loom/json_writer.h"
#include "tools/tensor_io/file_util.h"

namespace loom {
namespace cli {
namespace {

struct BenchOptions {
  std::string plan;
  int threads = 1;
  int iters = 50;
  int warmup = 5;
  uint64_t seed = 0;
  bool json = false;
  DeviceOptions device;
  std::string timing_cache;  // --write-timing-cache
};

// Nearest-rank percentile of sorted samples, p in (0, 100].
double Percentile(const std::vector<double>& sorted, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

double Median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

// The median of each CPU node's profiled times (`samples[node][run]`),
// pooled over the nodes that share a signature.
TimingCache MakeTimingCache(const Engine& engine, const std::vector<std::vector<double>>& samples, int threads,
                            int* cpu_nodes) {
  TimingCache cache;
  cache.cpu = HostCpuName();
  cache.threads = threads;
  std::map<std::string, std::vector<double>> pooled;
  *cpu_nodes = 0;
  for (size_t i = 0; i < engine.nodes().size(); ++i) {
    const NodeDesc& n = engine.nodes()[i];
    if (n.device != "cpu") continue;
    ++*cpu_nodes;
    const std::string signature =
        NodeSignature(n.op, n.fused, n.input_dtypes, n.input_shapes, n.output_dtypes, n.output_shapes);
    std::vector<double>& all = pooled[signature];
    all.insert(all.end(), samples[i].begin(), samples[i].end());
    TimingEntry& entry = cache.nodes[signature];
    if (entry.node.empty()) {
      entry.node = n.name;
    } else {
      ++entry.count;
    }
  }
  for (auto& [signature, all] : pooled) cache.nodes[signature].ms = Median(all);
  return cache;
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

int Bench(const BenchOptions& o) {
  const auto load_start = std::chrono::steady_clock::now();
  std::shared_ptr<const Engine> engine;
  Status s = LoadEngineOn(o.plan, o.device, &engine);
  if (!s.ok()) return ReportError(s);
  std::unique_ptr<ExecutionContext> ctx;
  ContextOptions context_options;
  context_options.num_threads = o.threads;
  context_options.profile = !o.timing_cache.empty();
  s = engine->CreateContext(context_options, &ctx);
  if (!s.ok()) return ReportError(s);
  const double load_ms = MsSince(load_start);
  std::mt19937_64 rng(o.seed);
  std::vector<HostTensor> inputs;
  for (const TensorDesc& d : engine->inputs()) inputs.push_back(RandomTensor(d, &rng));
  for (size_t i = 0; i < inputs.size(); ++i) {
    s = ctx->SetInput(engine->inputs()[i].name, inputs[i].data.data(), inputs[i].data.size());
    if (!s.ok()) return ReportError(s);
  }
  double first_run_ms = -1;
  for (int i = 0; i < o.warmup; ++i) {
    const auto start = std::chrono::steady_clock::now();
    s = ctx->Run();
    if (!s.ok()) return ReportError(s);
    if (i == 0) first_run_ms = MsSince(start);
  }
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(o.iters));
  std::vector<std::vector<double>> node_ms(engine->nodes().size());  // with --write-timing-cache
  for (int i = 0; i < o.iters; ++i) {
    const auto start = std::chrono::steady_clock::now();
    s = ctx->Run();
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) return ReportError(s);
    ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    for (size_t n = 0; n < ctx->profile().size() && n < node_ms.size(); ++n) node_ms[n].push_back(ctx->profile()[n].ms);
  }
  if (first_run_ms < 0) first_run_ms = ms.front();
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  const double median = Median(ms);
  int cpu_nodes = 0;
  if (!o.timing_cache.empty()) {
    const std::string text = SerializeTimingCache(MakeTimingCache(*engine, node_ms, o.threads, &cpu_nodes));
    s = WriteWholeFile(o.timing_cache, text.data(), text.size());
    if (!s.ok()) return ReportError(s.WithContext("--write-timing-cache"));
  }
  if (o.json) {
    JsonWriter j;
    j.BeginObject()
        .Field("plan", o.plan)
        .IntField("threads", o.threads)
        .IntField("iters", o.iters)
        .IntField("warmup", o.warmup)
        .NumberField("min_ms", sorted.front())
        .NumberField("median_ms", median)
        .NumberField("p90_ms", Percentile(sorted, 90))
        .NumberField("p99_ms", Percentile(sorted, 99))
        .NumberField("mean_ms", mean)
        .NumberField("max_ms", sorted.back())
        .NumberField("load_ms", load_ms)
        .NumberField("first_run_ms", first_run_ms)
        .IntField("arena_bytes", static_cast<int64_t>(engine->info().arena_bytes))
        .IntField("constants_bytes", static_cast<int64_t>(engine->info().constants_bytes))
        .Field("fp32_gemm_isa", nn::ActiveGemmF32Isa().name);
    if (!o.timing_cache.empty()) j.Field("timing_cache", o.timing_cache).IntField("timing_cache_nodes", cpu_nodes);
    j.EndObject();
    std::fputs(j.str().c_str(), stdout);
  } else {
    std::printf("bench %s: %d thread%s, %d warm-up + %d timed runs\n", o.plan.c_str(), o.threads,
                o.threads == 1 ? "" : "s", o.warmup, o.iters);
    std::printf("  min %s  median %s  p90 %s  p99 %s  mean %s\n", FormatMs(sorted.front()).c_str(),
                FormatMs(median).c_str(), FormatMs(Percentile(sorted, 90)).c_str(),
                FormatMs(Percentile(sorted, 99)).c_str(), FormatMs(mean).c_str());
    std::printf("  load %s  first run %s (%.2fx the median)\n", FormatMs(load_ms).c_str(),
                FormatMs(first_run_ms).c_str(), first_run_ms / median);
    std::printf("  arena %s  constants %s\n", FormatBytes(engine->info().arena_bytes).c_str(),
                FormatBytes(engine->info().constants_bytes).c_str());
    const nn::GemmF32Isa& isa = nn::ActiveGemmF32Isa();
    std::printf("  fp32 gemm path %s (%dx%d tile; LOOM_CPU_ISA forces one)\n", isa.name, isa.mr, isa.nr);
    if (!o.timing_cache.empty()) {
      const size_t skipped = engine->nodes().size() - static_cast<size_t>(cpu_nodes);
      std::printf("  timing cache %s: %d CPU node%s", o.timing_cache.c_str(), cpu_nodes, cpu_nodes == 1 ? "" : "s");
      if (skipped > 0) std::printf(" (%zu on a device left out)", skipped);
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Time runs of a plan on random inputs");
  cmd->add_option("plan", o->plan, "Plan file")->required();
  cmd->add_option("--threads,-t", o->threads, "Threads used inside each run (default 1)")->check(CLI::Range(1, 256));
  cmd->add_option("--iters,-n", o->iters, "Timed runs (default 50)")->check(CLI::Range(1, 100000000));
  cmd->add_option("--warmup,-w", o->warmup, "Untimed warm-up runs (default 5)")->check(CLI::Range(0, 100000000));
  cmd->add_option("--seed", o->seed, "Random seed for the inputs (default 0)");
  cmd->add_flag("--json", o->json, "Machine-readable output");
  AddDeviceOptions(cmd, &o->device);
  cmd->add_option(
      "--write-timing-cache", o->timing_cache,
      "Profile the timed runs and write each CPU node's median time to FILE, for loom build --timing-cache");
  cmd->callback([o, exit_code] { *exit_code = Bench(*o); });
}

}  // namespace cli
}  // namespace loom
