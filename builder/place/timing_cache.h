// The builder's side of a timing cache (common/timing_cache.h): reading the
// file, the signature of an IR node (the same string `loom bench` computes
// from the plan's NodeDesc), and a CPU cost model that takes each node's
// time from the cache and falls back to another model for nodes it lacks.
#pragma once

#include <memory>
#include <string>

#include "builder/ir/graph.h"
#include "builder/place/cost_model.h"
#include "common/status.h"
#include "common/timing_cache.h"

namespace loom {
namespace place {

// Reads and parses `path`; one error naming the file and the problem
// ("timing cache 'FILE': line 3, column 9: expected ',' or '}'").
Status ReadTimingCacheFile(const std::string& path, TimingCache* out);

// NodeSignature of `node`: its op, fused ops, and its inputs' and outputs'
// dtypes and shapes.
std::string NodeSignatureOf(const ir::Graph& graph, const ir::Node& node);

// CPU times from `cache` (read from `path`, for the name), else `fallback`'s;
// boundaries are `fallback`'s. A node the cache lacks is looked up once more
// without fused ops: activations fuse after placement (fuse_activation), so
// the placer sees the Conv of a plan's "Conv+Relu", whose measured time
// then stands for it (the Relu's own share included).
std::unique_ptr<CostModel> MakeTimingCacheCostModel(TimingCache cache, const std::string& path,
                                                    std::shared_ptr<const CostModel> fallback);

}  // namespace place
}  // namespace loom
