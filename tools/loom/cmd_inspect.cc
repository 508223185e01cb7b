// `loom inspect MODEL.plan [--json] [--explain] [--tensors]`
// Shows what a plan holds: format version, producer, build target and clock,
// memory sizes, graph inputs and outputs (dtype, shape, layout, memory
// space), and one row per node (name, op, fused ops, kernel, device, input ->
// output shapes); --explain adds each node's predicted time and placement
// reason, then every CPU<->device boundary with its predicted cost;
// --tensors lists every tensor with its dtype and quantization (always in
// --json: "tensors", with "scale" and "zero_point" for quantized ones). A
// plan with int8 tensors lists them too. Plans with nodes on a device load
// with CPU fallback, so any plan can be inspected without its device; the
// engine's notes about that are shown with the plan ("notes" in --json).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "common/logging.h"
#include "tools/loom/cli_util.h"
#include "tools/loom/commands.h"
#include "tools/loom/json_writer.h"

namespace loom {
namespace cli {
namespace {

struct InspectOptions {
  std::string plan;
  bool json = false;
  bool explain = false;
  bool tensors = false;
};

// "scale 0.0235 zp -128", or per channel "scale[64] 0.0012..0.0310 zp 0 axis 0"; "-" for float.
std::string QuantText(const QuantParams& q) {
  if (q.empty()) return "-";
  char buf[160];
  if (!q.per_channel()) {
    std::snprintf(buf, sizeof(buf), "scale %.6g zp %lld", q.scale[0],
                  static_cast<long long>(q.zero_point.empty() ? 0 : q.zero_point[0]));
    return buf;
  }
  const auto [lo, hi] = std::minmax_element(q.scale.begin(), q.scale.end());
  const auto [zlo, zhi] = std::minmax_element(q.zero_point.begin(), q.zero_point.end());
  std::string zp = q.zero_point.empty() ? "0"
                   : *zlo == *zhi      ? std::to_string(*zlo)
                                       : std::to_string(*zlo) + ".." + std::to_string(*zhi);
  std::snprintf(buf, sizeof(buf), "scale[%zu] %.4g..%.4g zp %s axis %d", q.scale.size(), *lo, *hi, zp.c_str(), q.axis);
  return buf;
}

void WriteQuant(JsonWriter* j, const QuantParams& q) {
  if (q.empty()) return;
  j->Key("scale").BeginArray(true);
  for (float s : q.scale) j->Number(s);
  j->EndArray().Key("zero_point").BeginArray(true);
  for (int64_t z : q.zero_point) j->Int(z);
  j->EndArray().IntField("axis", q.axis);
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

std::string Shapes(const std::vector<Shape>& shapes, const std::vector<std::string>& names) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < shapes.size(); ++i) parts.push_back(names[i].empty() ? "-" : ShapeToString(shapes[i]));
  return Join(parts, ", ");
}

std::string Version(const PlanInfo& info) {
  return std::to_string(info.format_major) + "." + std::to_string(info.format_minor);
}

void WriteTensorList(JsonWriter* j, const std::vector<TensorDesc>& list) {
  j->BeginArray();
  for (const TensorDesc& d : list) {
    j->BeginObject().Field("name", d.name).Field("dtype", DTypeName(d.dtype)).Key("shape").BeginArray(true);
    for (int64_t dim : d.shape) j->Int(dim);
    j->EndArray().Key("size_bytes").UInt(d.size_bytes);
    j->Field("layout", LayoutName(d.layout)).Field("memory_space", MemorySpaceName(d.memory_space));
    WriteQuant(j, d.quant);
    j->EndObject();
  }
  j->EndArray();
}

void WriteShapes(JsonWriter* j, const std::vector<Shape>& shapes) {
  j->BeginArray(true);
  for (const Shape& s : shapes) {
    j->BeginArray();
    for (int64_t dim : s) j->Int(dim);
    j->EndArray();
  }
  j->EndArray();
}

void PrintJson(const std::string& path, const Engine& engine) {
  const PlanInfo& info = engine.info();
  JsonWriter j;
  j.BeginObject();
  j.Field("plan", path);
  j.Field("format_version", Version(info));
  j.Field("producer", info.producer);
  j.Field("model_hash", info.model_hash);
  j.Field("model_producer", info.model_producer);
  j.Field("accelerator_fingerprint", info.accelerator_fingerprint);
  j.Field("target", info.target);
  j.NumberField("clock_mhz", info.clock_mhz);
  j.Key("notes").BeginArray();
  for (const std::string& note : engine.notes()) j.String(note);
  j.EndArray();
  j.Key("arena_bytes").UInt(info.arena_bytes);
  j.Key("arena_lower_bound_bytes").UInt(info.arena_lower_bound_bytes);
  j.Key("constants_bytes").UInt(info.constants_bytes);
  j.Key("file_bytes").UInt(info.file_bytes);
  j.Key("inputs");
  WriteTensorList(&j, engine.inputs());
  j.Key("outputs");
  WriteTensorList(&j, engine.outputs());
  j.Key("tensors").BeginArray();
  for (const TensorDesc& d : engine.tensors()) {
    j.BeginObject().Field("name", d.name).Field("dtype", DTypeName(d.dtype)).Key("shape").BeginArray(true);
    for (int64_t dim : d.shape) j.Int(dim);
    j.EndArray().Key("constant").Bool(d.constant);
    WriteQuant(&j, d.quant);
    j.EndObject();
  }
  j.EndArray();
  j.Key("nodes").BeginArray();
  for (const NodeDesc& n : engine.nodes()) {
    j.BeginObject().Field("name", n.name).Field("op", n.op).Key("fused").BeginArray(true);
    for (const std::string& f : n.fused) j.String(f);
    j.EndArray().Field("kernel", n.kernel).Field("device", n.device).Key("inputs").BeginArray(true);
    for (const std::string& s : n.inputs) j.String(s);
    j.EndArray().Key("outputs").BeginArray(true);
    for (const std::string& s : n.outputs) j.String(s);
    j.EndArray().Key("input_shapes");
    WriteShapes(&j, n.input_shapes);
    j.Key("output_shapes");
    WriteShapes(&j, n.output_shapes);
    j.Field("placement_reason", n.placement_reason).NumberField("predicted_ms", n.predicted_ms);
    j.Field("fallback_kernel", n.fallback_kernel).Field("running_kernel", n.running_kernel).EndObject();
  }
  j.EndArray();
  j.Key("boundaries").BeginArray();
  for (const BoundaryDesc& b : info.boundaries) {
    j.BeginObject().Field("tensor", b.tensor).Field("from", b.from).Field("to", b.to);
    j.NumberField("predicted_ms", b.predicted_ms).EndObject();
  }
  j.EndArray();
  j.EndObject();
  std::fputs(j.str().c_str(), stdout);
}

// Prints rows as columns padded to their widest cell.
void PrintTable(const std::vector<std::vector<std::string>>& rows, const std::vector<std::string>& notes) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = " ";
    for (size_t c = 0; c < rows[r].size(); ++c) {
      line += " " + rows[r][c];
      if (c + 1 < rows[r].size()) line.append(width[c] - rows[r][c].size() + 1, ' ');
    }
    std::printf("%s\n", line.c_str());
    if (r < notes.size() && !notes[r].empty()) std::printf("        %s\n", notes[r].c_str());
  }
}

// Every CPU<->device hand-over with its predicted cost, then the plan's
// predicted total.
void PrintBoundaries(const PlanInfo& info, double nodes_ms) {
  std::printf("boundaries (%zu):\n", info.boundaries.size());
  std::vector<std::vector<std::string>> rows;
  double boundaries_ms = 0;
  for (const BoundaryDesc& b : info.boundaries) {
    rows.push_back({b.tensor, b.from + " -> " + b.to, FormatMs(b.predicted_ms)});
    boundaries_ms += b.predicted_ms;
  }
  PrintTable(rows, {});
  if (nodes_ms > 0) {
    std::printf("predicted: %s (nodes %s, boundaries %s)\n", FormatMs(nodes_ms + boundaries_ms).c_str(),
                FormatMs(nodes_ms).c_str(), FormatMs(boundaries_ms).c_str());
  }
}

void PrintText(const std::string& path, const Engine& engine, bool explain, bool all_tensors) {
  const PlanInfo& info = engine.info();
  std::printf("plan: %s\n", path.c_str());
  std::printf("  format %s, %s\n", Version(info).c_str(), FormatBytes(info.file_bytes).c_str());
  std::printf("  producer: %s\n", info.producer.empty() ? "-" : info.producer.c_str());
  std::printf("  model: hash %s, producer %s\n", info.model_hash.empty() ? "-" : info.model_hash.c_str(),
              info.model_producer.empty() ? "-" : info.model_producer.c_str());
  if (!info.target.empty()) {
    std::printf("  target: %s", info.target.c_str());
    if (info.clock_mhz > 0) std::printf(", accelerator clock %g MHz", info.clock_mhz);
    std::printf("\n");
  }
  if (!info.accelerator_fingerprint.empty()) std::printf("  accelerator: %s\n", info.accelerator_fingerprint.c_str());
  for (const std::string& note : engine.notes()) std::printf("  note: %s\n", note.c_str());
  std::printf("  arena: %s", FormatBytes(info.arena_bytes).c_str());
  if (info.arena_lower_bound_bytes > 0)
    std::printf(" (lower bound %s: %.3fx)", FormatBytes(info.arena_lower_bound_bytes).c_str(),
                static_cast<double>(info.arena_bytes) / static_cast<double>(info.arena_lower_bound_bytes));
  std::printf("\n  constants: %s\n", FormatBytes(info.constants_bytes).c_str());

  for (int which = 0; which < 2; ++which) {
    const auto& list = which == 0 ? engine.inputs() : engine.outputs();
    std::printf("%s (%zu):\n", which == 0 ? "inputs" : "outputs", list.size());
    std::vector<std::vector<std::string>> rows;
    for (const TensorDesc& d : list) {
      rows.push_back({d.name, DTypeName(d.dtype), ShapeToString(d.shape), LayoutName(d.layout),
                      MemorySpaceName(d.memory_space), QuantText(d.quant)});
    }
    PrintTable(rows, {});
  }

  // Every tensor with --tensors; otherwise the quantized ones, if any.
  std::vector<std::vector<std::string>> tensor_rows;
  for (const TensorDesc& d : engine.tensors())
    if (all_tensors || !d.quant.empty())
      tensor_rows.push_back({d.name, DTypeName(d.dtype), ShapeToString(d.shape), d.constant ? "constant" : "arena",
                             QuantText(d.quant)});
  if (!tensor_rows.empty()) {
    std::printf("%s (%zu):\n", all_tensors ? "tensors" : "quantized tensors", tensor_rows.size());
    PrintTable(tensor_rows, {});
  }

  std::printf("nodes (%zu):\n", engine.nodes().size());
  std::vector<std::vector<std::string>> rows = {{"#", "name", "op", "fused", "kernel", "device", "shapes"}};
  if (explain) rows[0].push_back("predicted");
  std::vector<std::string> notes = {""};
  double nodes_ms = 0;
  for (size_t i = 0; i < engine.nodes().size(); ++i) {
    const NodeDesc& n = engine.nodes()[i];
    const std::string kernel = n.on_fallback ? n.kernel + " (runs " + n.running_kernel + " here)" : n.kernel;
    rows.push_back({std::to_string(i), n.name.empty() ? "-" : n.name, n.op, n.fused.empty() ? "-" : Join(n.fused, "+"),
                    kernel, n.device, Shapes(n.input_shapes, n.inputs) + " -> " + Shapes(n.output_shapes, n.outputs)});
    if (explain) rows.back().push_back(n.predicted_ms > 0 ? FormatMs(n.predicted_ms) : "-");
    nodes_ms += n.predicted_ms;
    notes.push_back(explain ? "why: " + (n.placement_reason.empty() ? std::string("-") : n.placement_reason) : "");
  }
  PrintTable(rows, notes);
  if (explain) PrintBoundaries(info, nodes_ms);
}

int Inspect(const InspectOptions& o) {
  std::shared_ptr<const Engine> engine;
  // The engine warns once about nodes on their fallbacks; inspect shows its
  // notes with the plan instead.
  const LogLevel level = GetLogLevel();
  SetLogLevel(LogLevel::kError);
  const Status s = LoadEngine(o.plan, &engine, /*allow_cpu_fallback=*/true);
  SetLogLevel(level);
  if (!s.ok()) return ReportError(s);
  if (o.json) {
    PrintJson(o.plan, *engine);
  } else {
    PrintText(o.plan, *engine, o.explain, o.tensors);
  }
  return 0;
}

}  // namespace

void AddInspectCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show the nodes, tensors and sizes of a plan");
  cmd->add_option("plan", o->plan, "Plan file")->required();
  cmd->add_flag("--json", o->json, "Machine-readable output");
  cmd->add_flag("--explain", o->explain, "Show why each node was placed where it is");
  cmd->add_flag("--tensors", o->tensors, "List every tensor with its dtype and quantization");
  cmd->callback([o, exit_code] { *exit_code = Inspect(*o); });
}

}  // namespace cli
}  // namespace loom
