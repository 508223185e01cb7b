// The build phase as a library: ONNX model in, plan out. `loom build` and the
// tests call this; nothing here is linked into the engine.
//
//   loom::BuildOptions options;
//   options.input_shapes["input"] = {1, 3, 224, 224};
//   loom::BuildReport report;
//   loom::Status s = loom::BuildPlanFile("model.onnx", "model.plan", options, &report);
//
// Errors name the node, the op and the reason; anything Loom cannot run is
// refused with a message containing "unsupported".
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"

namespace loom {

constexpr int kDefaultOptLevel = 3;  // the highest -O level

// `loom build --int8`: post-training quantization from calibration data
// (builder/quantize/README.md).
struct Int8Options {
  bool enabled = false;
  std::string calib_dir;                 // .npy samples (quantize/calibration_data.h)
  std::string calib_method = "entropy";  // minmax | percentile | entropy
  double calib_percentile = 99.99;
  std::string calib_cache;  // ranges file: read if present (and for this model), else written
  std::vector<std::string> keep_fp32;  // node names that stay float
  std::optional<double> min_snr_db;    // keep float any layer whose int8 SNR is lower
  bool progress = true;                // a progress bar on stdout while calibrating
};

struct BuildOptions {
  // Fixes symbolic (or overrides) input dims, like trtexec --shapes.
  std::map<std::string, Shape> input_shapes;
  // -O level (builder/passes/pipeline.h): 0 runs no optimization pass (only
  // what correctness needs), 1 clean-ups, 2 standard fusions, 3 (default)
  // pattern rewrites for speed.
  int opt_level = kDefaultOptLevel;
  // Pass names to skip (see builder/passes/pipeline.cc).
  std::vector<std::string> disabled_passes;
  // What the plan is built for (builder/place/target.h): "cpu", "fpga16",
  // "fpga32".
  std::string target = "cpu";
  // The accelerator's clock in MHz for predictions (0: the target's own).
  double clock_mhz = 0;
  // Measured CPU node times (`loom bench --write-timing-cache`); empty: the
  // target's built-in defaults.
  std::string timing_cache;
  Int8Options int8;
  // One accelerator launch per FPGA node instead of one per run of
  // consecutive FPGA nodes (`--fpga-launch-per-node`): slower (a launch and
  // an interrupt each), but `loom run --profile` then shows every layer's
  // own counters.
  bool fpga_launch_per_node = false;
  // Store the constants CPU kernels derive from weights (packed GEMM
  // operands, Winograd-transformed filters) in the plan, computed for this
  // machine's CPU, so that an engine on the same kind of CPU uses them in
  // place instead of computing them at load (exec/derive_constants.h).
  // Bigger plans, faster loads; only for the `cpu` target (a board's CPU
  // would not use them). `--no-prepack` turns it off.
  bool prepack = true;
  // Time the ways CPU kernels can run a node (Winograd tiles or the direct
  // path for 3x3 convolutions, ...) on this machine and keep the fastest
  // (exec/choose_tactics.h); false: the kernels' own rules decide
  // (`--tactics heuristic`). Only for the `cpu` target.
  bool measure_tactics = true;
  // Threads of those timed runs (`--tactic-threads`); 0: this machine's cores.
  int tactic_threads = 0;
  // `--dump-graph DIR`: the graph as DOT after import and after each stage
  // (builder/graph_dump.h); empty: none.
  std::string dump_graph_dir;
};

// What quantization did, per layer and per output (`--report`).
struct Int8LayerReport {
  std::string node;
  std::string op;
  std::string tensor;     // the float tensor its int8 output stands for
  std::string precision;  // "int8" or "fp32"
  std::string reason;     // why a layer stayed float
  // SNR of the dequantized int8 output against float on the calibration
  // data, in dB (NaN when not measured, +inf when equal).
  double snr_db = std::numeric_limits<double>::quiet_NaN();
};

struct Int8OutputReport {
  std::string name;
  double cosine = 0;        // mean over samples of int8 vs float cosine similarity
  double min_cosine = 0;    // the worst sample's
  double top1_agreement = 0;  // share of samples whose argmax agrees
};

struct Int8Report {
  bool enabled = false;
  std::string method;  // "entropy", "percentile 99.99", "minmax"
  bool ranges_from_cache = false;
  int64_t samples = 0;       // calibration samples used
  int int8_nodes = 0;        // nodes running int8 (before fusion)
  int tensors_calibrated = 0;
  double calibration_seconds = 0;
  std::vector<Int8LayerReport> layers;
  std::vector<Int8OutputReport> outputs;  // empty without calibration data
};

// What the build did, for `loom build`'s summary and for tests.
struct BuildReport {
  std::vector<std::string> notes;  // e.g. "input 'x': batch dim 'N' set to 1"
  int source_nodes = 0;            // ONNX nodes in the model
  int plan_nodes = 0;              // nodes in the plan after passes
  int opset = 0;                   // default-domain opset of the model as read
  size_t arena_bytes = 0;
  size_t arena_lower_bound_bytes = 0;  // the largest sum of live values at one step
  int shared_values = 0;               // values placed in another value's buffer (views, in place, concat elision)
  int concat_inputs_elided = 0;        // Concat inputs written straight into their slice of the output
  size_t constants_bytes = 0;          // derived constants included
  size_t plan_bytes = 0;
  // Derived constants stored (BuildOptions::prepack).
  int derived_nodes = 0;
  size_t derived_bytes = 0;
  // Tactics timed (BuildOptions::measure_tactics): nodes with a choice, how
  // many of them took another way than the kernel's own rule, and the wall
  // time spent.
  int tactic_nodes = 0;
  int tactic_nodes_timed = 0;
  int tactic_changes = 0;
  double tactic_seconds = 0;
  // One line per node with tactics (DescribeTactic in builder.cc):
  // "/layer4/layer4.0/conv2/Conv (ConvNchwc): loom.winograd = 0 (2: 1.706 ms, 0: 1.241 ms, 4: 3.739 ms; the rule: 2)".
  std::vector<std::string> tactics;
  std::vector<std::string> passes_applied;  // "fold_constants: 12 nodes", ...
  std::vector<std::string> graph_dumps;     // --dump-graph: the DOT files written, in order
  int graph_svgs = 0;                       // and how many were rendered to SVG
  std::string target;                       // the target's name
  std::map<std::string, int> nodes_by_device;  // "cpu" -> 12
  Int8Report int8;
};

// Builds a plan from an ONNX file into `plan` (the complete file bytes).
Status BuildPlan(const std::string& onnx_path, const BuildOptions& options, std::vector<uint8_t>* plan,
                 BuildReport* report);

// Same, writing the plan to `plan_path` (atomically: a temp file then rename,
// so a failed build never leaves a partial plan behind).
Status BuildPlanFile(const std::string& onnx_path, const std::string& plan_path, const BuildOptions& options,
                     BuildReport* report);

// The build's phases and each phase's passes, for `loom build --list-passes`:
// one line per phase or pass.
std::vector<std::string> DescribeBuildPhases(const BuildOptions& options);

}  // namespace loom
