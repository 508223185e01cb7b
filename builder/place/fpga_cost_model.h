// The cost model of a CPU + accelerator target (fpga16, fpga32):
//
//   fpga nodes   the node as the accelerator runs it (AccelLayerFromSetup,
//                kernels/fpga/kernels/accel_layer.h), lowered to its command
//                stream at stand-in addresses (activation inputs from offset
//                0 of base slot 0, the output after them, the constant images
//                in slot 1, each 64-byte aligned like the plan's arena) and
//                timed by the analytic cycle model (kernels/fpga/perf,
//                within a few % of the RTL) at the target's clock. Launches
//                are priced at the boundaries, not per node.
//   cpu nodes    the CPU model it is given (a timing cache, else the board's
//                roofline).
//   boundaries   hand_over.h: layout conversion, cache maintenance, launch.
//
// The placer asks once per node, and a layer lowers and estimates in a few
// milliseconds (ResNet-18's 20 convolutions take about 80 ms in all), so
// nothing is cached.
#pragma once

#include <memory>

#include "builder/ir/graph.h"
#include "builder/place/boards.h"
#include "builder/place/cost_model.h"
#include "common/status.h"
#include "kernels/fpga/perf/cycle_model.h"
#include "kernels/fpga/runtime/fpga_runtime.h"

namespace loom {
namespace place {

// The node's run on the accelerator of `device` (cycles and other counters
// in *estimate, milliseconds at device.clock_mhz() in *ms). Unsupported with
// AccelLayerFromSetup's reason ("depthwise conv (group 32)") when the
// accelerator cannot run the node.
Status PredictFpgaNode(const ir::Graph& graph, const ir::Node& node, const fpga::FpgaDeviceConfig& device,
                       fpga::perf::CycleEstimate* estimate, double* ms);

std::unique_ptr<CostModel> MakeFpgaTargetCostModel(std::shared_ptr<const fpga::FpgaDeviceConfig> device,
                                                   const BoardSpec& board, std::shared_ptr<const CostModel> cpu);

}  // namespace place
}  // namespace loom
