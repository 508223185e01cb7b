#include "builder/quantize/quantizer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <filesystem>
#include <cstdio>

#include "builder/build_log.h"
#include "builder/passes/eliminate_dead_nodes.h"
#include "builder/passes/fold_qdq.h"
#include "builder/quantize/calibration.h"
#include "builder/quantize/calibration_cache.h"
#include "builder/quantize/calibration_data.h"
#include "builder/quantize/graph_runner.h"
#include "builder/quantize/insert_qdq.h"
#include "builder/quantize/op_roles.h"
#include "builder/quantize/progress.h"
#include "builder/quantize/quant_scheme.h"

namespace loom {
namespace quantize {

namespace {

int HostThreads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

Status ParseMethod(const Int8Options& o, CalibrationOptions* out, std::string* name) {
  if (o.calib_method == "minmax") {
    out->method = CalibrationMethod::kMinMax;
  } else if (o.calib_method == "entropy") {
    out->method = CalibrationMethod::kEntropy;
  } else if (o.calib_method == "percentile") {
    if (!(o.calib_percentile > 0 && o.calib_percentile <= 100))
      return Status::InvalidArgument("--calib-percentile " + std::to_string(o.calib_percentile) +
                                     " must be in (0, 100]");
    out->method = CalibrationMethod::kPercentile;
    out->percentile = o.calib_percentile;
  } else {
    return Status::InvalidArgument("--calib-method '" + o.calib_method + "' is not one of minmax, percentile, entropy");
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "percentile %.9g", o.calib_percentile);
  *name = out->method == CalibrationMethod::kPercentile ? std::string(buf) : o.calib_method;
  return Status::Ok();
}

Status CalibrationInputs(const ir::Graph& g, std::vector<CalibrationInput>* out) {
  for (int id : g.inputs()) {
    const ir::Value& v = g.value(id);
    if (v.dtype != DType::kFloat32)
      return Status::Unsupported("--int8: input '" + v.name + "' is " + DTypeName(v.dtype) +
                                 "; calibration takes float32 inputs only (unsupported)");
    out->push_back({v.name, v.dtype, v.shape});
  }
  return Status::Ok();
}

// Float activations nodes produce: what calibration measures.
std::vector<std::string> FloatActivations(const ir::Graph& g) {
  std::vector<std::string> names;
  for (const ir::Node& n : g.nodes())
    for (int id : n.outputs)
      if (id >= 0 && g.value(id).dtype == DType::kFloat32 && !g.value(id).is_constant())
        names.push_back(g.value(id).name);
  return names;
}

// Runs the float graph over the calibration set, feeding one range collector
// per graph input and float activation.
Status Calibrate(const ir::Graph& g, CalibrationData* data, const KernelRegistry& registry, bool progress,
                 std::map<std::string, RangeCollector>* collectors) {
  const std::vector<std::string> probes = FloatActivations(g);
  std::unique_ptr<GraphRunner> runner;
  RETURN_IF_ERROR(GraphRunner::Create(g, probes, registry, HostThreads(), &runner));
  ProgressBarOptions bar_options;
  bar_options.unit = "batches";
  std::unique_ptr<ProgressBar> bar;
  if (progress) bar = std::make_unique<ProgressBar>("calibrating", data->num_batches(), stdout, bar_options);
  std::vector<HostTensor> batch;
  for (int64_t b = 0; b < data->num_batches(); ++b) {
    RETURN_IF_ERROR(data->ReadBatch(b, &batch));
    for (const HostTensor& t : batch) (*collectors)[t.name].Add(t.as<float>(), t.num_elements());
    RETURN_IF_ERROR(runner->Run(batch));
    for (const std::string& name : probes) {
      size_t count = 0;
      const float* values = runner->Float(name, &count);
      if (values) (*collectors)[name].Add(values, count);
    }
    if (bar) bar->Step();
  }
  return Status::Ok();
}

// Int8 parameters per tensor: each tensor's own range, then a Relu/Clip's
// range for its producer's output (when it is the only reader), then
// value-moving ops carry their input's parameters forward.
std::map<std::string, QuantParams> AssignParams(const ir::Graph& g, const std::map<std::string, ActivationRange>& ranges,
                                                const std::set<std::string>& keep) {
  std::map<std::string, QuantParams> params;
  for (const auto& [name, range] : ranges) params[name] = ActivationParams(range);
  const ir::UseLists uses = g.BuildUseLists();
  auto name_of = [&](int id) { return g.value(id).name; };
  for (const ir::Node& n : g.nodes()) {
    if (n.dead || OutputRuleOf(n) != OutputRule::kActivation || keep.count(n.name) || n.inputs.empty()) continue;
    const int x = n.inputs[0], y = n.outputs[0];
    if (x < 0 || y < 0 || g.IsGraphOutput(x) || uses.consumers[static_cast<size_t>(x)].size() != 1) continue;
    const int p = uses.producer[static_cast<size_t>(x)];
    if (p < 0 || keep.count(g.node(p).name) || !params.count(name_of(y))) continue;
    params[name_of(x)] = params[name_of(y)];
  }
  for (const ir::Node& n : g.nodes()) {
    if (n.dead || OutputRuleOf(n) != OutputRule::kSameAsInput || n.inputs.empty() || n.inputs[0] < 0) continue;
    auto in = params.find(name_of(n.inputs[0]));
    if (in != params.end() && n.outputs[0] >= 0) params[name_of(n.outputs[0])] = in->second;
  }
  return params;
}

// Nodes that stay float because their producer-side partner does: a Relu/Clip
// kept float keeps the node whose output range it set.
std::set<std::string> WithPartners(const ir::Graph& g, std::set<std::string> keep) {
  const ir::UseLists uses = g.BuildUseLists();
  for (const ir::Node& n : g.nodes()) {
    if (n.dead || !keep.count(n.name) || OutputRuleOf(n) != OutputRule::kActivation || n.inputs.empty()) continue;
    const int x = n.inputs[0];
    if (x < 0 || uses.consumers[static_cast<size_t>(x)].size() != 1) continue;
    const int p = uses.producer[static_cast<size_t>(x)];
    if (p >= 0) keep.insert(g.node(p).name);
  }
  return keep;
}

struct Int8Graph {
  ir::Graph graph;
  std::vector<passes::FoldedNode> folded;
  std::map<std::string, std::string> tensor_of;  // folded node -> float tensor name in the float graph
};

Status MakeInt8Graph(const ir::Graph& fp32, const std::map<std::string, QuantParams>& params,
                     const std::set<std::string>& keep, const KernelRegistry& registry, Int8Graph* out) {
  *out = Int8Graph();
  out->graph = fp32;
  QdqWriter writer(params, keep);
  RETURN_IF_ERROR(writer.Insert(&out->graph));
  RETURN_IF_ERROR(passes::FoldQdq(&out->graph, registry, &out->folded));
  writer.RemoveUnfolded(&out->graph);
  out->graph.Compact();
  passes::PassContext ctx;
  ctx.registry = &registry;
  int changes = 0;
  RETURN_IF_ERROR(passes::MakeEliminateDeadNodes()->Run(out->graph, ctx, &changes));
  out->graph.Compact();
  Status valid = out->graph.Validate();
  if (!valid.ok()) return Status::Internal("int8 graph invalid: " + valid.message());
  for (const passes::FoldedNode& f : out->folded) out->tensor_of[f.node] = writer.SourceName(f.float_output);
  return Status::Ok();
}

// The folded nodes whose SNR is reported: all but those whose int8 output
// only a folded Relu/Clip reads (that activation's entry covers both).
std::vector<passes::FoldedNode> ReportedLayers(const Int8Graph& q) {
  const ir::UseLists uses = q.graph.BuildUseLists();
  std::set<std::string> folded_names;
  for (const passes::FoldedNode& f : q.folded) folded_names.insert(f.node);
  std::vector<passes::FoldedNode> layers;
  for (const passes::FoldedNode& f : q.folded) {
    const std::vector<int>& readers = uses.consumers[static_cast<size_t>(f.int8_output)];
    const bool covered = readers.size() == 1 && !q.graph.IsGraphOutput(f.int8_output) &&
                         OutputRuleOf(q.graph.node(readers[0])) == OutputRule::kActivation &&
                         folded_names.count(q.graph.node(readers[0]).name);
    if (!covered) layers.push_back(f);
  }
  return layers;
}

std::string ProbeName(const std::string& node) { return "loom.snr/" + node; }

// Adds a DequantizeLinear of every reported layer's int8 output as a graph output.
void AddDequantizedProbes(ir::Graph* g, const std::vector<passes::FoldedNode>& layers) {
  for (const passes::FoldedNode& f : layers) {
    const ir::Value v = g->value(f.int8_output);
    const float scale = v.quant.scale[0];
    const int8_t zp = static_cast<int8_t>(v.quant.zero_point[0]);
    const int s = g->AddConstant(g->UniqueValueName(ProbeName(f.node) + "/scale"), DType::kFloat32, {},
                                 ir::Buffer::CopyOf(&scale, sizeof(scale)));
    const int z = g->AddConstant(g->UniqueValueName(ProbeName(f.node) + "/zero_point"), DType::kInt8, {},
                                 ir::Buffer::CopyOf(&zp, 1));
    ir::Value out = v;
    out.name = g->UniqueValueName(ProbeName(f.node));
    out.dtype = DType::kFloat32;
    out.quant = QuantParams();
    const int out_id = g->AddValue(out);
    ir::Node dq;
    dq.name = ProbeName(f.node);
    dq.op = "DequantizeLinear";
    dq.opset = 13;
    dq.inputs = {f.int8_output, s, z};
    dq.outputs = {out_id};
    g->AddNode(std::move(dq));
    g->outputs().push_back(out_id);
  }
}

struct SnrSums {
  double signal = 0, noise = 0;
};

struct OutputSums {
  double cosine_sum = 0, min_cosine = 1;
  int64_t samples = 0, top1_agree = 0;
};

double Snr(const SnrSums& s) {
  if (s.noise == 0) return std::numeric_limits<double>::infinity();
  if (s.signal == 0) return -std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(s.signal / s.noise);
}

void CompareOutput(const float* ref, const float* q, size_t count, int64_t batch, OutputSums* sums) {
  const size_t per = batch > 0 ? count / static_cast<size_t>(batch) : count;
  for (int64_t b = 0; b < batch && per > 0; ++b) {
    const float* r = ref + b * per;
    const float* x = q + b * per;
    double dot = 0, rr = 0, xx = 0;
    for (size_t i = 0; i < per; ++i) {
      dot += static_cast<double>(r[i]) * x[i];
      rr += static_cast<double>(r[i]) * r[i];
      xx += static_cast<double>(x[i]) * x[i];
    }
    const double cosine = rr == 0 && xx == 0 ? 1.0 : (rr == 0 || xx == 0) ? 0.0 : dot / std::sqrt(rr * xx);
    sums->cosine_sum += cosine;
    sums->min_cosine = std::min(sums->min_cosine, cosine);
    sums->top1_agree += std::max_element(r, r + per) - r == std::max_element(x, x + per) - x;
    ++sums->samples;
  }
}

// Float and int8 side by side over the calibration set.
Status Evaluate(const ir::Graph& fp32, const Int8Graph& q, CalibrationData* data, const KernelRegistry& registry,
                bool progress, std::map<std::string, double>* snr, std::vector<Int8OutputReport>* outputs) {
  const std::vector<passes::FoldedNode> layers = ReportedLayers(q);
  std::vector<std::string> fp32_probes;
  for (const passes::FoldedNode& f : layers) fp32_probes.push_back(q.tensor_of.at(f.node));
  std::unique_ptr<GraphRunner> ref, run;
  RETURN_IF_ERROR(GraphRunner::Create(fp32, fp32_probes, registry, HostThreads(), &ref));
  ir::Graph probed = q.graph;
  AddDequantizedProbes(&probed, layers);
  RETURN_IF_ERROR(GraphRunner::Create(probed, {}, registry, HostThreads(), &run));

  std::vector<SnrSums> layer_sums(layers.size());
  std::vector<OutputSums> output_sums(fp32.outputs().size());
  ProgressBarOptions bar_options;
  bar_options.unit = "batches";
  std::unique_ptr<ProgressBar> bar;
  if (progress) bar = std::make_unique<ProgressBar>("comparing int8 with fp32", data->num_batches(), stdout, bar_options);
  std::vector<HostTensor> batch;
  for (int64_t b = 0; b < data->num_batches(); ++b) {
    RETURN_IF_ERROR(data->ReadBatch(b, &batch));
    RETURN_IF_ERROR(ref->Run(batch));
    RETURN_IF_ERROR(run->Run(batch));
    for (size_t l = 0; l < layers.size(); ++l) {
      size_t n_ref = 0, n_q = 0;
      const float* r = ref->Float(q.tensor_of.at(layers[l].node), &n_ref);
      const float* x = run->Float(ProbeName(layers[l].node), &n_q);
      if (!r || !x || n_ref != n_q) continue;
      for (size_t i = 0; i < n_ref; ++i) {
        layer_sums[l].signal += static_cast<double>(r[i]) * r[i];
        layer_sums[l].noise += (static_cast<double>(r[i]) - x[i]) * (static_cast<double>(r[i]) - x[i]);
      }
    }
    for (size_t o = 0; o < fp32.outputs().size(); ++o) {
      const ir::Value& v = fp32.value(fp32.outputs()[o]);
      size_t n_ref = 0, n_q = 0;
      const float* r = ref->Float(v.name, &n_ref);
      const float* x = run->Float(v.name, &n_q);
      if (r && x && n_ref == n_q) CompareOutput(r, x, n_ref, v.shape.empty() ? 1 : v.shape[0], &output_sums[o]);
    }
    if (bar) bar->Step();
  }
  for (size_t l = 0; l < layers.size(); ++l) (*snr)[layers[l].node] = Snr(layer_sums[l]);
  outputs->clear();
  for (size_t o = 0; o < fp32.outputs().size(); ++o) {
    const OutputSums& s = output_sums[o];
    if (s.samples == 0) continue;
    Int8OutputReport r;
    r.name = fp32.value(fp32.outputs()[o]).name;
    r.cosine = s.cosine_sum / static_cast<double>(s.samples);
    r.min_cosine = s.min_cosine;
    r.top1_agreement = static_cast<double>(s.top1_agree) / static_cast<double>(s.samples);
    outputs->push_back(r);
  }
  return Status::Ok();
}

// The layer table: every folded node, and every node kept float on request.
void FillLayers(const ir::Graph& fp32, const Int8Graph& q, const std::map<std::string, double>& snr,
                const std::map<std::string, std::string>& kept, Int8Report* report) {
  report->layers.clear();
  std::map<std::string, const passes::FoldedNode*> folded;
  for (const passes::FoldedNode& f : q.folded) folded[f.node] = &f;
  for (const ir::Node& n : fp32.nodes()) {
    Int8LayerReport layer;
    layer.node = n.name;
    layer.op = n.op;
    layer.tensor = n.outputs.empty() || n.outputs[0] < 0 ? "" : fp32.value(n.outputs[0]).name;
    auto f = folded.find(n.name);
    auto k = kept.find(n.name);
    if (f != folded.end()) {
      layer.precision = "int8";
      auto s = snr.find(n.name);
      if (s != snr.end()) layer.snr_db = s->second;
      else layer.reason = "SNR measured at the Relu/Clip that follows";
    } else if (k != kept.end()) {
      layer.precision = "fp32";
      layer.reason = k->second;
    } else {
      continue;
    }
    report->layers.push_back(layer);
  }
  report->int8_nodes = static_cast<int>(q.folded.size());
}

}  // namespace

Status QuantizeInt8(ir::Graph* graph, const Int8Options& options, const std::string& model_hash,
                    const KernelRegistry& registry, Int8Report* report, std::vector<std::string>* notes) {
  *report = Int8Report();
  report->enabled = true;
  CalibrationOptions calib;
  RETURN_IF_ERROR(ParseMethod(options, &calib, &report->method));
  std::vector<CalibrationInput> inputs;
  RETURN_IF_ERROR(CalibrationInputs(*graph, &inputs));

  // 1. Ranges: from the cache, or measured.
  std::map<std::string, ActivationRange> ranges;
  std::error_code ec;
  const bool have_cache = !options.calib_cache.empty() && std::filesystem::exists(options.calib_cache, ec);
  if (have_cache) {
    CalibrationCache cache;
    RETURN_IF_ERROR(ReadCalibrationCache(options.calib_cache, &cache));
    RETURN_IF_ERROR(CheckCacheMatches(options.calib_cache, cache, model_hash, report->method));
    ranges = cache.ranges;
    report->ranges_from_cache = true;
    notes->push_back("int8: ranges of " + std::to_string(ranges.size()) + " tensors read from " + options.calib_cache);
  } else if (options.calib_dir.empty()) {
    return Status::InvalidArgument(
        "--int8 needs calibration data: pass --calib DIR (or --calib-cache FILE written by an earlier build)");
  }
  std::unique_ptr<CalibrationData> data;
  if (!options.calib_dir.empty()) {
    data = std::make_unique<CalibrationData>();
    Status s = CalibrationData::Open(options.calib_dir, inputs, data.get());
    if (!s.ok()) return s.WithContext("--calib " + options.calib_dir);
    for (const std::string& n : data->notes()) notes->push_back("calibration: " + n);
    report->samples = data->num_samples();
  }
  if (!have_cache) {
    const auto start = std::chrono::steady_clock::now();
    std::map<std::string, RangeCollector> collectors;
    RETURN_IF_ERROR(Calibrate(*graph, data.get(), registry, options.progress, &collectors));
    for (const auto& [name, collector] : collectors) {
      ActivationRange range;
      Status s = collector.Range(calib, &range);
      if (!s.ok()) return s.WithContext("calibration of tensor '" + name + "'");
      ranges[name] = range;
    }
    report->calibration_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!options.calib_cache.empty()) {
      CalibrationCache cache{model_hash, report->method, ranges};
      RETURN_IF_ERROR(WriteCalibrationCache(options.calib_cache, cache));
      notes->push_back("int8: calibration cache written to " + options.calib_cache);
    }
  }
  report->tensors_calibrated = static_cast<int>(ranges.size());

  // 2-3. Parameters, QDQ, folding.
  std::map<std::string, std::string> kept;  // node -> reason
  for (const std::string& name : options.keep_fp32) {
    const bool known = std::any_of(graph->nodes().begin(), graph->nodes().end(),
                                   [&](const ir::Node& n) { return n.name == name; });
    if (!known) return Status::InvalidArgument("--keep-fp32: no node named '" + name + "' in the model");
    kept[name] = "--keep-fp32";
  }
  auto keep_set = [&] {
    std::set<std::string> keep;
    for (const auto& [name, reason] : kept) keep.insert(name);
    return WithPartners(*graph, keep);
  };
  Int8Graph q;
  std::map<std::string, double> snr;
  for (int round = 0; round < 2; ++round) {
    const std::set<std::string> keep = keep_set();
    RETURN_IF_ERROR(MakeInt8Graph(*graph, AssignParams(*graph, ranges, keep), keep, registry, &q));
    if (!data) break;
    snr.clear();
    RETURN_IF_ERROR(Evaluate(*graph, q, data.get(), registry, options.progress, &snr, &report->outputs));
    if (!options.min_snr_db || round == 1) break;
    bool changed = false;
    for (const auto& [node, db] : snr) {
      if (!(db < *options.min_snr_db)) continue;
      char reason[96];
      std::snprintf(reason, sizeof(reason), "int8 SNR %.1f dB < --int8-min-snr %.1f dB", db, *options.min_snr_db);
      kept[node] = reason;
      changed = true;
    }
    if (!changed) break;
  }
  FillLayers(*graph, q, snr, kept, report);
  BuildLog().info("int8: {} nodes folded to int8, {} kept float on request", q.folded.size(), kept.size());
  *graph = std::move(q.graph);
  return Status::Ok();
}

}  // namespace quantize
}  // namespace loom
