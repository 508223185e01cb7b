#include "builder/place/fpga_cost_model.h"

#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "builder/build_log.h"
#include "builder/exec/kernel_choice.h"
#include "builder/place/hand_over.h"
#include "kernels/fpga/kernels/accel_layer.h"

namespace loom {
namespace place {
namespace {

constexpr uint64_t kStandInAlignment = 64;  // the plan arena's alignment

uint64_t AlignUp(uint64_t bytes) { return (bytes + kStandInAlignment - 1) / kStandInAlignment * kStandInAlignment; }

// Places tensors one after another in one base slot.
class StandInSlot {
 public:
  explicit StandInSlot(uint32_t slot) : slot_(slot) {}
  Status Place(uint64_t bytes, fpga::lowering::DramTensor* out) {
    if (next_ + bytes > std::numeric_limits<uint32_t>::max())
      return Status::Unsupported("tensors of more than 4 GiB for one accelerator run");
    *out = {slot_, static_cast<uint32_t>(next_)};
    next_ = AlignUp(next_ + bytes);
    return Status::Ok();
  }

 private:
  uint32_t slot_;
  uint64_t next_ = 0;
};

class FpgaTargetCostModel : public CostModel {
 public:
  FpgaTargetCostModel(std::shared_ptr<const fpga::FpgaDeviceConfig> device, BoardSpec board,
                      std::shared_ptr<const CostModel> cpu)
      : device_(std::move(device)), board_(std::move(board)), cpu_(std::move(cpu)) {}

  std::string name() const override {
    char clock[32];
    std::snprintf(clock, sizeof(clock), "%g MHz", device_->clock_mhz());
    return std::string(device_->accel().name) + " cycle model at " + clock + ", " + board_.board +
           " hand-overs; cpu: " + cpu_->name();
  }

  double NodeMs(const ir::Graph& graph, const ir::Node& node, Device device) const override {
    if (device != Device::kFpga) return cpu_->NodeMs(graph, node, device);
    fpga::perf::CycleEstimate estimate;
    double ms = 0;
    const Status s = PredictFpgaNode(graph, node, *device_, &estimate, &ms);
    if (s.ok()) return ms;
    // The FPGA kernel accepted the node, so this is a disagreement between
    // the kernel and the lowering: keep the node off the accelerator.
    BuildLog().warn("{}: no accelerator time ({}), priced as never faster than the CPU", node.Label(), s.message());
    return std::numeric_limits<double>::infinity();
  }

  double BoundaryMs(const ir::Graph& graph, int value_id, Device from, Device to) const override {
    return PriceHandOver(board_, device_->accel(), graph.value(value_id), from, to).total_ms();
  }

 private:
  std::shared_ptr<const fpga::FpgaDeviceConfig> device_;
  BoardSpec board_;
  std::shared_ptr<const CostModel> cpu_;
};

}  // namespace

Status PredictFpgaNode(const ir::Graph& graph, const ir::Node& node, const fpga::FpgaDeviceConfig& device,
                       fpga::perf::CycleEstimate* estimate, double* ms) {
  const fpga::contract::AccelConfig& config = device.accel();
  fpga::AccelLayer layer;
  RETURN_IF_ERROR(fpga::AccelLayerFromSetup(exec::MakeKernelSetup(graph, node, &device), config, &layer));
  StandInSlot activations(0), constants_slot(1);
  std::vector<fpga::lowering::DramTensor> inputs(layer.inputs.size());
  for (size_t i = 0; i < layer.inputs.size(); ++i)
    RETURN_IF_ERROR(activations.Place(fpga::PaddedBytes(config, layer.inputs[i]), &inputs[i]));
  const bool int32_output = layer.kind == fpga::AccelLayer::Kind::kConv && layer.conv.out_int32;
  fpga::lowering::DramTensor output;
  RETURN_IF_ERROR(activations.Place(fpga::PaddedBytes(config, layer.output) * (int32_output ? 4 : 1), &output));
  fpga::lowering::ConstantPlacement constants;
  if (layer.kind == fpga::AccelLayer::Kind::kConv) {
    RETURN_IF_ERROR(constants_slot.Place(fpga::lowering::WeightImageBytes(config, layer.conv), &constants.weights));
    RETURN_IF_ERROR(constants_slot.Place(fpga::lowering::ParamImageBytes(config, layer.conv), &constants.params));
  }
  fpga::lowering::Program program;
  RETURN_IF_ERROR(fpga::LowerAccelLayer(config, layer, inputs, output, constants, &program));
  RETURN_IF_ERROR(fpga::perf::EstimateCycles(config, program.commands, {}, estimate));
  *ms = static_cast<double>(estimate->cycles) / (device.clock_mhz() * 1e3);
  return Status::Ok();
}

std::unique_ptr<CostModel> MakeFpgaTargetCostModel(std::shared_ptr<const fpga::FpgaDeviceConfig> device,
                                                   const BoardSpec& board, std::shared_ptr<const CostModel> cpu) {
  return std::make_unique<FpgaTargetCostModel>(std::move(device), board, std::move(cpu));
}

}  // namespace place
}  // namespace loom
