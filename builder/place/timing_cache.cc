#include "builder/place/timing_cache.h"

#include <map>
#include <utility>
#include <vector>

#include "tools/tensor_io/file_util.h"

namespace loom {
namespace place {
namespace {

class TimingCacheCostModel : public CostModel {
 public:
  TimingCacheCostModel(TimingCache cache, std::string path, std::shared_ptr<const CostModel> fallback)
      : cache_(std::move(cache)), path_(std::move(path)), fallback_(std::move(fallback)) {
    for (const auto& [signature, entry] : cache_.nodes) unfused_.emplace(Unfused(signature), entry.ms);
  }

  std::string name() const override {
    return "timing cache '" + path_ + "' (" + (cache_.cpu.empty() ? std::string("unknown CPU") : cache_.cpu) + ", " +
           std::to_string(cache_.threads) + (cache_.threads == 1 ? " thread, " : " threads, ") +
           std::to_string(cache_.nodes.size()) + " signatures), else " + fallback_->name();
  }

  double NodeMs(const ir::Graph& graph, const ir::Node& node, Device device) const override {
    if (device == Device::kCpu) {
      const std::string signature = NodeSignatureOf(graph, node);
      const auto it = cache_.nodes.find(signature);
      if (it != cache_.nodes.end()) return it->second.ms;
      const auto unfused = unfused_.find(Unfused(signature));
      if (unfused != unfused_.end()) return unfused->second;
    }
    return fallback_->NodeMs(graph, node, device);
  }

  double BoundaryMs(const ir::Graph& graph, int value_id, Device from, Device to) const override {
    return fallback_->BoundaryMs(graph, value_id, from, to);
  }

 private:
  // "Conv+Relu(...)" -> "Conv(...)": op names hold neither '+' nor '('.
  static std::string Unfused(const std::string& signature) {
    const size_t fused = signature.find('+'), open = signature.find('(');
    if (fused == std::string::npos || open == std::string::npos || fused > open) return signature;
    return signature.substr(0, fused) + signature.substr(open);
  }

  TimingCache cache_;
  std::map<std::string, double> unfused_;  // Unfused(signature) -> ms, the first of each
  std::string path_;
  std::shared_ptr<const CostModel> fallback_;
};

}  // namespace

Status ReadTimingCacheFile(const std::string& path, TimingCache* out) {
  std::vector<uint8_t> bytes;
  const Status read = ReadWholeFile(path, &bytes);
  if (!read.ok()) return Status(read.code(), "timing cache: " + read.message());
  const Status parsed =
      ParseTimingCache(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), out);
  if (!parsed.ok()) return parsed.WithContext("timing cache '" + path + "'");
  return Status::Ok();
}

std::string NodeSignatureOf(const ir::Graph& graph, const ir::Node& node) {
  std::vector<DType> in_dtypes, out_dtypes;
  std::vector<Shape> in_shapes, out_shapes;
  for (int id : node.inputs) {
    in_dtypes.push_back(id < 0 ? DType::kUndefined : graph.value(id).dtype);
    in_shapes.push_back(id < 0 ? Shape() : graph.value(id).shape);
  }
  for (int id : node.outputs) {
    out_dtypes.push_back(id < 0 ? DType::kUndefined : graph.value(id).dtype);
    out_shapes.push_back(id < 0 ? Shape() : graph.value(id).shape);
  }
  return NodeSignature(node.op, node.fused, in_dtypes, in_shapes, out_dtypes, out_shapes);
}

std::unique_ptr<CostModel> MakeTimingCacheCostModel(TimingCache cache, const std::string& path,
                                                    std::shared_ptr<const CostModel> fallback) {
  return std::make_unique<TimingCacheCostModel>(std::move(cache), path, std::move(fallback));
}

}  // namespace place
}  // namespace loom
