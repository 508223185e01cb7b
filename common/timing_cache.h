// A timing cache: CPU times of plan nodes measured on a board, for the
// builder's placer. `loom bench PLAN --write-timing-cache FILE` writes one
// (the per-node median over the timed runs); `loom build --timing-cache FILE`
// prices CPU nodes with it instead of the target's built-in defaults.
//
// Nodes are keyed by a signature of what decides their time, computable on
// both sides of the plan: the builder from an IR node, the engine's tools
// from a NodeDesc (loom/engine.h), both with NodeSignature below:
//   "Conv+Relu(int8 1x64x56x56, int8 64x64x3x3, int32 64 -> int8 1x64x56x56)"
// (op, fused ops, then each input's and output's dtype and shape; "-" for an
// omitted input). Attributes are not part of it: a plan does not keep them
// in a form tools read, and the shapes already tell most layers apart.
//
// The file is JSON:
//   {"format": "loom timing cache", "version": 1, "cpu": "Cortex-A9", "threads": 1,
//    "nodes": [{"signature": "...", "ms": 0.412, "node": "conv1", "count": 2}, ...]}
// ("node" names one node measured with that signature, for people reading it;
// "count", optional when read, how many of the plan's nodes have it, so that
// ms x count sums to a run's time).
// Text only (standard library): the on-board CLI writes caches without the
// builder, and the callers read and write the files.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"

namespace loom {

struct TimingEntry {
  double ms = 0;     // measured milliseconds (the median of the runs)
  std::string node;  // a node it was measured on
  int count = 1;     // the plan's nodes with this signature
};

struct TimingCache {
  std::string cpu;                           // the CPU it was measured on ("Cortex-A9")
  int threads = 1;                           // threads per run when measured
  std::map<std::string, TimingEntry> nodes;  // by signature
};

// The signature of a node (see above). dtypes and shapes are index-aligned;
// DType::kUndefined marks an omitted input.
std::string NodeSignature(const std::string& op, const std::vector<std::string>& fused,
                          const std::vector<DType>& input_dtypes, const std::vector<Shape>& input_shapes,
                          const std::vector<DType>& output_dtypes, const std::vector<Shape>& output_shapes);

std::string SerializeTimingCache(const TimingCache& cache);
// InvalidArgument naming what is wrong ("nodes[3]: \"ms\" is -1, expected a
// time >= 0") for text that is not a timing cache of this version.
Status ParseTimingCache(std::string_view text, TimingCache* out);

}  // namespace loom
