// The placer's view of time: how long a node would take on a device, and what
// it costs to hand a tensor from one device to another. Placement compares
// these predictions; `loom inspect --explain` shows them.
//
// A cost model only prices what it is asked about: the placer asks only for
// devices whose kernels accept the node.
#pragma once

#include <memory>
#include <string>

#include "builder/ir/graph.h"
#include "common/device.h"

namespace loom {
namespace place {

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Names the model in --list-passes and placement reasons.
  virtual std::string name() const = 0;
  // Predicted milliseconds of `node` on `device`.
  virtual double NodeMs(const ir::Graph& graph, const ir::Node& node, Device device) const = 0;
  // Predicted milliseconds of handing value `value_id` from a node on `from`
  // to a node on `to` (cache maintenance, layout conversion, launch); 0 when
  // from == to.
  virtual double BoundaryMs(const ir::Graph& graph, int value_id, Device from, Device to) const = 0;
};

// Multiply-accumulates of a node: exact for Conv, ConvInteger, ConvTranspose,
// Gemm, MatMul and MatMulInteger; the number of output elements for any
// other op.
double NodeMacs(const ir::Graph& graph, const ir::Node& node);
// Bytes a node reads and writes (inputs, constants included, and outputs).
double NodeBytes(const ir::Graph& graph, const ir::Node& node);

// A CPU as the roofline sees it: one thread's sustained rates.
struct CpuSpec {
  std::string name;       // "Cortex-A9"; empty for a generic CPU
  double fp32_gmacs = 2;  // GMAC/s of float Conv/Gemm/MatMul
  double int8_gmacs = 2;  // GMAC/s of the same with int8 activations
  double gbytes = 2;      // GB/s of memory traffic (bytes read plus bytes written)
};

// A roofline model of a CPU: max(MACs / rate, bytes / bandwidth), the rate
// by the dtype of the node's first input. Crude but monotonic in work; a
// measured timing cache replaces it where one exists (timing_cache.h).
std::unique_ptr<CostModel> MakeRooflineCpuCostModel(const CpuSpec& cpu);
std::unique_ptr<CostModel> MakeRooflineCpuCostModel(double gmacs_per_second, double gbytes_per_second);

}  // namespace place
}  // namespace loom
