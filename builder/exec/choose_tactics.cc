#include "builder/exec/choose_tactics.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "builder/exec/kernel_choice.h"
#include "kernels/common/thread_pool.h"

namespace loom {
namespace exec {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

#if defined(__x86_64__)
// CLFLUSHOPT (CPUID.(EAX=7,ECX=0):EBX bit 23): flushes that do not wait for
// each other, several times faster than CLFLUSH over megabytes.
bool HasClflushopt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23)) != 0;
}

__attribute__((target("clflushopt"))) void FlushOpt(const uint8_t* p, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 64) _mm_clflushopt(const_cast<uint8_t*>(p + i));
}
#endif

// Writes the bytes back to memory and drops them from every cache level.
void FlushFromCaches(const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
  static const bool opt = HasClflushopt();
  if (opt) {
    FlushOpt(p, bytes);
  } else {
    for (size_t i = 0; i < bytes; i += 64) _mm_clflush(p + i);
  }
  _mm_mfence();
#elif defined(__aarch64__)
  for (size_t i = 0; i < bytes; i += 64) asm volatile("dc civac, %0" : : "r"(p + i) : "memory");
  asm volatile("dsb ish" : : : "memory");
#else
  (void)p;
  (void)bytes;
#endif
}

// What the timings of a node depend on: its kernel, attributes (but the
// tactic's) and tensor types; not the constants' values.
std::string Signature(const ir::Node& node, const KernelSetup& setup, const std::string& tactic_attribute) {
  std::string s = node.kernel_id;
  for (const Attribute& a : setup.attrs.all()) {
    if (a.name == tactic_attribute) continue;
    s += "|" + a.name + "=" + std::to_string(a.i) + "," + std::to_string(a.f) + "," + a.s;
    for (int64_t v : a.ints) s += "," + std::to_string(v);
    for (float v : a.floats) s += "," + std::to_string(v);
    for (const std::string& v : a.strings) s += "," + v;
  }
  for (const TensorInfo& t : setup.inputs)
    s += std::string("|") + (t.present ? DTypeName(t.dtype) : "-") + ShapeToString(t.shape) + (t.const_data ? "c" : "");
  for (const TensorInfo& t : setup.outputs) s += std::string("|") + DTypeName(t.dtype) + ShapeToString(t.shape);
  return s;
}

// One tactic, prepared, with its arguments.
struct Candidate {
  std::unique_ptr<Kernel> kernel;
  std::shared_ptr<ir::Buffer> scratch;
  double best_ms = std::numeric_limits<double>::infinity();
};

// Times the node's tactics (tactics.values) and returns the index of the
// fastest in *best, filling *ms.
Status TimeTactics(const KernelDef& def, const KernelSetup& base, const KernelTactics& tactics, ThreadPool* pool,
                   const TacticOptions& options, std::vector<double>* ms, size_t* best) {
  // Inputs: the constants, random floats (zeros of other types) for the rest.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<std::shared_ptr<ir::Buffer>> buffers;
  std::vector<const void*> in_ptrs;
  for (const TensorInfo& t : base.inputs) {
    if (!t.present || t.const_data) {
      in_ptrs.push_back(t.present ? t.const_data : nullptr);
      continue;
    }
    buffers.push_back(ir::Buffer::Allocate(t.num_bytes()));
    if (t.dtype == DType::kFloat32) {
      float* p = reinterpret_cast<float*>(buffers.back()->mutable_data());
      for (int64_t i = 0; i < t.num_elements(); ++i) p[i] = dist(rng);
    }
    in_ptrs.push_back(buffers.back()->data());
  }
  std::vector<void*> out_ptrs;
  for (const TensorInfo& t : base.outputs) {
    buffers.push_back(ir::Buffer::Allocate(t.present ? t.num_bytes() : 0));
    out_ptrs.push_back(t.present ? buffers.back()->mutable_data() : nullptr);
  }
  // As in a network, a node's input was just written (in the cache) and its
  // weights were read a whole run ago, through the other nodes' (in memory):
  // before each timed run, every thread writes a buffer larger than its
  // core's caches, the constants the tactic reads (the node's and those it
  // derived) are flushed from every cache, and the inputs that are not
  // constant are read.
  const int threads = pool ? pool->NumThreads() : 1;
  std::vector<std::shared_ptr<ir::Buffer>> evict(threads);
  for (auto& b : evict) b = ir::Buffer::Allocate(options.evict_bytes);
  auto prepare_caches = [&](const Kernel& kernel) {
    auto touch = [&](int64_t thread, int) {
      uint8_t* p = evict[thread]->mutable_data();
      for (size_t i = 0; i < options.evict_bytes; i += 64) p[i] += 1;
    };
    if (pool) {
      pool->Run(threads, touch);
    } else {
      touch(0, 0);
    }
    for (const TensorInfo& t : base.inputs)
      if (t.present && t.const_data) FlushFromCaches(t.const_data, t.num_bytes());
    for (const DerivedConstant& d : kernel.DerivedConstants()) FlushFromCaches(d.data, d.bytes);
    volatile uint8_t sink = 0;
    for (size_t k = 0; k < base.inputs.size(); ++k) {
      const TensorInfo& t = base.inputs[k];
      if (!t.present || t.const_data) continue;
      const uint8_t* p = static_cast<const uint8_t*>(in_ptrs[k]);
      for (size_t i = 0; i < t.num_bytes(); i += 64) sink = sink + p[i];
    }
  };
  std::vector<Candidate> candidates(tactics.values.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    KernelSetup setup = base;
    setup.attrs.SetInt(tactics.attribute, tactics.values[k]);
    candidates[k].kernel = def.create();
    Status s = candidates[k].kernel->Prepare(setup);
    if (!s.ok())
      return Status::Internal("tactic " + tactics.attribute + " = " + std::to_string(tactics.values[k]) +
                              " offered but refused: " + s.message());
    candidates[k].scratch = ir::Buffer::Allocate(candidates[k].kernel->ScratchBytes(threads));
  }
  auto run = [&](Candidate& c) -> Status {
    KernelArgs args;
    args.inputs = in_ptrs.data();
    args.outputs = out_ptrs.data();
    args.num_inputs = in_ptrs.size();
    args.num_outputs = out_ptrs.size();
    args.scratch = c.scratch->mutable_data();
    args.pool = pool;
    prepare_caches(*c.kernel);
    const Clock::time_point t0 = Clock::now();
    RETURN_IF_ERROR(c.kernel->Run(args));
    c.best_ms = std::min(c.best_ms, MsSince(t0));
    return Status::Ok();
  };
  const Clock::time_point start = Clock::now();
  for (Candidate& c : candidates) RETURN_IF_ERROR(run(c));  // warm-up: first touches of scratch and outputs
  for (Candidate& c : candidates) c.best_ms = std::numeric_limits<double>::infinity();
  for (int round = 0; round < options.max_rounds; ++round) {
    if (round >= options.min_rounds && MsSince(start) > options.budget_ms) break;
    for (Candidate& c : candidates) RETURN_IF_ERROR(run(c));
  }
  ms->clear();
  *best = 0;
  for (size_t k = 0; k < candidates.size(); ++k) {
    ms->push_back(candidates[k].best_ms);
    if (candidates[k].best_ms < candidates[*best].best_ms) *best = k;
  }
  // Within the timing's noise of the kernel's own choice: keep that.
  if (candidates[0].best_ms <= candidates[*best].best_ms * (1 + options.keep_default_within)) *best = 0;
  return Status::Ok();
}

}  // namespace

Status ChooseTactics(ir::Graph* graph, const KernelRegistry& registry, const TacticOptions& options,
                     TacticStats* stats) {
  *stats = TacticStats();
  const Clock::time_point start = Clock::now();
  std::unique_ptr<StaticThreadPool> pool;
  if (options.threads > 1) pool = std::make_unique<StaticThreadPool>(options.threads);
  std::map<std::string, size_t> timed;  // signature -> its choice in stats->choices
  for (size_t i = 0; i < graph->nodes().size(); ++i) {
    ir::Node& node = graph->node(static_cast<int>(i));
    if (node.dead || node.device != Device::kCpu) continue;
    PreparedNodeKernel prepared;  // only asked for its tactics
    RETURN_IF_ERROR(PrepareNodeKernel(*graph, node, registry, /*pack_constants=*/false, &prepared));
    const KernelTactics tactics = prepared.kernel->Tactics();
    KernelSetup& setup = prepared.setup;
    if (tactics.values.size() < 2 || setup.attrs.Has(tactics.attribute)) continue;
    prepared.kernel.reset();

    TacticChoice choice;
    choice.node = node.Label();
    choice.attribute = tactics.attribute;
    choice.default_value = tactics.values[0];
    choice.values = tactics.values;
    const std::string signature = tactics.timing_key.empty() ? Signature(node, setup, tactics.attribute)
                                                             : node.kernel_id + "|" + tactics.timing_key;
    auto it = timed.find(signature);
    if (it != timed.end()) {
      const TacticChoice& first = stats->choices[it->second];
      choice.value = first.value;
      choice.ms = first.ms;
      choice.copy = true;
    } else {
      setup.pack_constants = true;  // as the engine prepares it
      size_t best = 0;
      const Status s = TimeTactics(*prepared.def, setup, tactics, pool.get(), options, &choice.ms, &best);
      if (!s.ok()) return s.WithContext(node.Label());
      choice.value = tactics.values[best];
      timed.emplace(signature, stats->choices.size());
      ++stats->timed;
    }
    node.attrs.SetInt(tactics.attribute, choice.value);
    stats->choices.push_back(std::move(choice));
  }
  stats->seconds = MsSince(start) / 1000;
  return Status::Ok();
}

}  // namespace exec
}  // namespace loom
