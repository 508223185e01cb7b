#include "builder/place/cost_model.h"

#include <cstdio>

namespace loom {
namespace place {
namespace {

double Elements(const ir::Graph& g, int id) {
  if (id < 0) return 0;
  const ir::Value& v = g.value(id);
  const int64_t n = v.shape_known ? NumElements(v.shape) : -1;
  return n < 0 ? 0 : static_cast<double>(n);
}

double OutputElements(const ir::Graph& g, const ir::Node& n) {
  double total = 0;
  for (int id : n.outputs) total += Elements(g, id);
  return total;
}

// Product of dims [from, to) of a value's shape; 0 when unknown.
double DimProduct(const ir::Graph& g, int id, size_t from, size_t to) {
  if (id < 0 || !g.value(id).shape_known) return 0;
  const Shape& s = g.value(id).shape;
  double p = 1;
  for (size_t k = from; k < to && k < s.size(); ++k) p *= static_cast<double>(s[k]);
  return p;
}

class RooflineCpuCostModel : public CostModel {
 public:
  explicit RooflineCpuCostModel(const CpuSpec& cpu) : cpu_(cpu) {}

  std::string name() const override {
    char buf[160];
    if (cpu_.fp32_gmacs == cpu_.int8_gmacs) {
      std::snprintf(buf, sizeof(buf), "%s roofline (%.3g GMAC/s, %.3g GB/s)",
                    cpu_.name.empty() ? "cpu" : cpu_.name.c_str(), cpu_.fp32_gmacs, cpu_.gbytes);
    } else {
      std::snprintf(buf, sizeof(buf), "%s roofline (fp32 %.3g GMAC/s, int8 %.3g GMAC/s, %.3g GB/s)",
                    cpu_.name.empty() ? "cpu" : cpu_.name.c_str(), cpu_.fp32_gmacs, cpu_.int8_gmacs, cpu_.gbytes);
    }
    return buf;
  }

  double NodeMs(const ir::Graph& g, const ir::Node& n, Device) const override {
    const bool int8 = !n.inputs.empty() && n.inputs[0] >= 0 &&
                      (g.value(n.inputs[0]).dtype == DType::kInt8 || g.value(n.inputs[0]).dtype == DType::kUInt8);
    const double compute = NodeMacs(g, n) / ((int8 ? cpu_.int8_gmacs : cpu_.fp32_gmacs) * 1e6);
    const double memory = NodeBytes(g, n) / (cpu_.gbytes * 1e6);
    return compute > memory ? compute : memory;
  }

  double BoundaryMs(const ir::Graph&, int, Device, Device) const override { return 0; }

 private:
  CpuSpec cpu_;
};

}  // namespace

double NodeMacs(const ir::Graph& g, const ir::Node& n) {
  const double out = OutputElements(g, n);
  if (!n.domain.empty() || n.inputs.size() < 2 || n.inputs[1] < 0) return out;
  const int w = n.inputs[1];
  const size_t w_rank = g.value(w).shape.size();
  if (n.op == "Conv" || n.op == "ConvInteger")
    return out * DimProduct(g, w, 1, w_rank);  // C/group * kernel taps per output
  if (n.op == "ConvTranspose") return Elements(g, n.inputs[0]) * DimProduct(g, w, 1, w_rank);
  if (n.op == "Gemm") {
    const Shape& a = g.value(n.inputs[0]).shape;
    if (a.size() != 2) return out;
    return out * static_cast<double>(n.attrs.GetInt("transA", 0) ? a[0] : a[1]);
  }
  if (n.op == "MatMul" || n.op == "MatMulInteger") {
    const Shape& a = g.value(n.inputs[0]).shape;
    return a.empty() ? out : out * static_cast<double>(a.back());
  }
  return out;
}

double NodeBytes(const ir::Graph& g, const ir::Node& n) {
  double bytes = 0;
  for (int id : n.inputs)
    if (id >= 0) bytes += static_cast<double>(g.value(id).num_bytes());
  for (int id : n.outputs)
    if (id >= 0) bytes += static_cast<double>(g.value(id).num_bytes());
  return bytes;
}

std::unique_ptr<CostModel> MakeRooflineCpuCostModel(const CpuSpec& cpu) {
  return std::make_unique<RooflineCpuCostModel>(cpu);
}

std::unique_ptr<CostModel> MakeRooflineCpuCostModel(double gmacs_per_second, double gbytes_per_second) {
  CpuSpec cpu;
  cpu.fp32_gmacs = cpu.int8_gmacs = gmacs_per_second;
  cpu.gbytes = gbytes_per_second;
  return MakeRooflineCpuCostModel(cpu);
}

}  // namespace place
}  // namespace loom
