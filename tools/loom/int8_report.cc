#include "tools/loom/int8_report.h"

#include <cmath>
#include <fstream>

#include "tools/loom/json_writer.h"

namespace loom {
namespace cli {

namespace {

std::string Db(double db) {
  if (std::isnan(db)) return "-";
  if (std::isinf(db)) return db > 0 ? "exact" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", db);
  return buf;
}

}  // namespace

void PrintInt8Table(const Int8Report& r, std::FILE* out) {
  std::fprintf(out, "int8:     %s calibration%s, %lld samples, %d tensors, %d int8 nodes\n", r.method.c_str(),
               r.ranges_from_cache ? " (ranges from cache)" : "", static_cast<long long>(r.samples),
               r.tensors_calibrated, r.int8_nodes);
  if (r.layers.empty()) return;
  size_t width = 5;
  for (const Int8LayerReport& l : r.layers) width = std::max(width, l.node.size());
  width = std::min<size_t>(width, 48);
  std::fprintf(out, "  %-*s  %-18s  %-9s  %8s\n", static_cast<int>(width), "layer", "op", "precision", "SNR dB");
  for (const Int8LayerReport& l : r.layers)
    std::fprintf(out, "  %-*s  %-18s  %-9s  %8s%s%s\n", static_cast<int>(width), l.node.c_str(), l.op.c_str(),
                 l.precision.c_str(), Db(l.snr_db).c_str(), l.reason.empty() ? "" : "  ", l.reason.c_str());
  for (const Int8OutputReport& o : r.outputs)
    std::fprintf(out, "  output %s: cosine %.5f (worst sample %.5f), top-1 agreement %.1f%%\n", o.name.c_str(),
                 o.cosine, o.min_cosine, 100.0 * o.top1_agreement);
}

std::string Int8ReportJson(const Int8Report& r, const std::string& model) {
  JsonWriter j;
  j.BeginObject();
  j.Field("model", model);
  j.Field("method", r.method);
  j.Key("ranges_from_cache").Bool(r.ranges_from_cache);
  j.IntField("samples", r.samples);
  j.IntField("tensors_calibrated", r.tensors_calibrated);
  j.IntField("int8_nodes", r.int8_nodes);
  j.NumberField("calibration_seconds", r.calibration_seconds);
  j.Key("layers").BeginArray();
  for (const Int8LayerReport& l : r.layers) {
    j.BeginObject();
    j.Field("node", l.node).Field("op", l.op).Field("tensor", l.tensor).Field("precision", l.precision);
    j.NumberField("snr_db", l.snr_db);
    if (!l.reason.empty()) j.Field("reason", l.reason);
    j.EndObject();
  }
  j.EndArray();
  j.Key("outputs").BeginArray();
  for (const Int8OutputReport& o : r.outputs) {
    j.BeginObject();
    j.Field("name", o.name);
    j.NumberField("cosine", o.cosine).NumberField("min_cosine", o.min_cosine);
    j.NumberField("top1_agreement", o.top1_agreement);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  return j.str() + "\n";
}

Status WriteInt8Report(const std::string& path, const Int8Report& report, const std::string& model) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::InvalidArgument("--report: cannot write '" + path + "'");
  f << Int8ReportJson(report, model);
  f.close();
  if (!f) return Status::InvalidArgument("--report: writing '" + path + "' failed");
  return Status::Ok();
}

}  // namespace cli
}  // namespace loom
