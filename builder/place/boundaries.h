// The plan's device boundaries (schemas/plan.fbs, Boundary): every value
// handed from one device to another in the final graph, priced by the
// target's cost model. Graph inputs come from the CPU's memory and graph
// outputs return to it; constants are the kernels' own business (an
// accelerator kernel uploads its weights once when the plan is loaded).
// A value pays once per receiving device however many consumers it has,
// as the placer priced it (placer.h).
#pragma once

#include <vector>

#include "builder/ir/graph.h"
#include "builder/place/cost_model.h"
#include "common/device.h"

namespace loom {
namespace place {

struct Boundary {
  int value = -1;  // the value handed over
  Device from = Device::kCpu;
  Device to = Device::kCpu;
  double ms = 0;  // CostModel::BoundaryMs
};

// In execution order: a node's inputs as the node is reached, then the
// graph outputs produced off the CPU.
std::vector<Boundary> ListBoundaries(const ir::Graph& graph, const CostModel& cost);

}  // namespace place
}  // namespace loom
