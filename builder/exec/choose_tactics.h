// Tactic choice at build time. A CPU kernel that can run its node more than
// one way (Kernel::Tactics: a 3x3 convolution directly or through Winograd
// F(2x2) or F(4x4), ...) offers the ways as values of one attribute; the
// builder times each on this machine, with the node's own shapes and
// constants and random inputs, and writes the fastest into the node, which
// the engine's kernel then takes. Which way wins depends on the machine
// (vector width, FMA units, cache sizes): rules measured on one CPU pick
// the slower way on another. Like derived constants, this is done only for
// plans meant to run on the build machine's kind of CPU (the `cpu` target);
// elsewhere the kernels' own rules decide.
//
// The tactics of a node run in turn, one run each per round, so that a
// change in the machine's speed during the timing falls on all of them; a
// tactic's time is its fastest run. Each run starts as in a network: its
// input just written (in the cache), its weights and the constants it
// derived from them flushed from every cache level. Nodes whose
// kernels give the same timing key (else the same kernel, attributes and
// shapes) are timed once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace exec {

struct TacticOptions {
  int threads = 1;        // threads of the timed runs
  int min_rounds = 3;     // rounds of one run per tactic, at least
  int max_rounds = 9;     // and at most
  double budget_ms = 60;  // no round starts after this much timing of one node
  // Another tactic replaces the kernel's own choice only when faster by more
  // than this fraction.
  double keep_default_within = 0.02;
  // Bytes each thread writes before a timed run to push the last run's
  // scratch and output out of its core's caches.
  size_t evict_bytes = size_t{8} << 20;
};

struct TacticChoice {
  std::string node;             // the node's label
  std::string attribute;        // KernelTactics::attribute
  int64_t value = 0;            // the chosen one
  int64_t default_value = 0;    // the kernel's own choice (KernelTactics::values[0])
  std::vector<int64_t> values;  // the tactics timed
  std::vector<double> ms;       // their fastest runs, in values' order
  bool copy = false;            // same signature as an earlier node: its choice, not timed again
};

struct TacticStats {
  std::vector<TacticChoice> choices;  // per node with tactics, in graph order
  int timed = 0;                      // nodes timed (choices without copies)
  double seconds = 0;                 // wall time of the whole step
};

// Needs every node's kernel_id (place::SelectKernels). Errors name the node.
Status ChooseTactics(ir::Graph* graph, const KernelRegistry& registry, const TacticOptions& options,
                     TacticStats* stats);

}  // namespace exec
}  // namespace loom
