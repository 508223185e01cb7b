#include "builder/lower/lower_fpga.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "builder/exec/kernel_choice.h"
#include "kernels/fpga/kernels/accel_layer.h"
#include "kernels/fpga/kernels/launch_attrs.h"
#include "kernels/fpga/lowering/chain.h"
#include "kernels/fpga/runtime/fpga_runtime.h"

namespace loom {
namespace lower {
namespace {

namespace contract = fpga::contract;
namespace lowering = fpga::lowering;

bool IsFpga(const ir::Node& n) { return !n.dead && n.device == Device::kFpga; }

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Arena (offset, bytes) ranges, merged where they touch.
class Ranges {
 public:
  void Add(int64_t offset, uint64_t bytes) {
    if (offset >= 0 && bytes > 0) ranges_.push_back({static_cast<uint64_t>(offset), bytes});
  }
  std::vector<int64_t> Merged() {
    std::sort(ranges_.begin(), ranges_.end());
    std::vector<int64_t> out;
    uint64_t begin = 0, end = 0;
    bool open = false;
    for (const auto& [o, b] : ranges_) {
      if (open && o <= end) {
        end = std::max(end, o + b);
        continue;
      }
      if (open) out.insert(out.end(), {static_cast<int64_t>(begin), static_cast<int64_t>(end - begin)});
      begin = o;
      end = o + b;
      open = true;
    }
    if (open) out.insert(out.end(), {static_cast<int64_t>(begin), static_cast<int64_t>(end - begin)});
    return out;
  }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

// Lowers nodes [first, last) of the graph as one launch.
class Launch {
 public:
  Launch(ir::Graph* graph, const memory::ArenaPlan& arena, const fpga::FpgaDeviceConfig& device, size_t first,
         size_t last)
      : graph_(*graph), arena_(arena), device_(device), config_(device.accel()), first_(first), last_(last) {}

  Status Lower(const ir::UseLists& uses, LoweringStats* stats) {
    for (size_t i = first_; i < last_; ++i) RETURN_IF_ERROR(LowerNode(graph_.node(static_cast<int>(i))));
    CollectRanges(uses);
    Attach();
    ++stats->launches;
    stats->fpga_nodes += static_cast<int>(last_ - first_);
    stats->commands += stream_.size();
    stats->constant_bytes += image_.size();
    return Status::Ok();
  }

 private:
  Status ArenaTensor(const ir::Node& node, int value, lowering::DramTensor* out) const {
    const int64_t offset = value >= 0 && static_cast<size_t>(value) < arena_.offsets.size()
                               ? arena_.offsets[static_cast<size_t>(value)]
                               : -1;
    if (offset < 0 || offset > 0xFFFFFFFFll)
      return Status::Internal(node.Label() + ": activation '" + graph_.value(value).name +
                              "' has no arena offset the accelerator can address");
    *out = {fpga::kArenaSlot, static_cast<uint32_t>(offset)};
    return Status::Ok();
  }

  Status LowerNode(const ir::Node& node) {
    const KernelSetup setup = exec::MakeKernelSetup(graph_, node, &device_);
    fpga::AccelLayer layer;
    Status s = fpga::AccelLayerFromSetup(setup, config_, &layer);
    if (!s.ok()) return s.WithContext(node.Label());
    std::vector<lowering::DramTensor> inputs;
    for (int index : layer.activation_inputs) {
      lowering::DramTensor t;
      RETURN_IF_ERROR(ArenaTensor(node, node.inputs[static_cast<size_t>(index)], &t));
      inputs.push_back(t);
    }
    lowering::DramTensor output;
    RETURN_IF_ERROR(ArenaTensor(node, node.outputs[0], &output));
    lowering::ConstantPlacement constants;
    if (layer.kind == fpga::AccelLayer::Kind::kConv) {
      const uint64_t weights = AlignUp(image_.size(), 64);
      const uint64_t params = AlignUp(weights + lowering::WeightImageBytes(config_, layer.conv), 64);
      if (params + lowering::ParamImageBytes(config_, layer.conv) > 0xFFFFFFFFull)
        return Status::Unsupported(node.Label() + ": the launch's constants exceed 4 GB");
      constants.weights = {fpga::kConstantSlot, static_cast<uint32_t>(weights)};
      constants.params = {fpga::kConstantSlot, static_cast<uint32_t>(params)};
    }
    lowering::Program program;
    s = fpga::LowerAccelLayer(config_, layer, inputs, output, constants, &program);
    if (!s.ok()) return s.WithContext(node.Label());
    if (!program.weight_image.empty()) Place(constants.weights.offset, program.weight_image);
    if (!program.param_image.empty()) Place(constants.params.offset, program.param_image);
    s = lowering::AppendChained(program.commands, &stream_);
    if (!s.ok()) return s.WithContext(node.Label());
    macs_ += program.stats.macs;
    array_macs_ += program.stats.array_macs;
    return Status::Ok();
  }

  void Place(uint32_t offset, const std::vector<uint8_t>& bytes) {
    if (image_.size() < offset + bytes.size()) image_.resize(offset + bytes.size(), 0);
    std::memcpy(image_.data() + offset, bytes.data(), bytes.size());
  }

  void CollectRanges(const ir::UseLists& uses) {
    Ranges flush, invalidate;
    for (size_t i = first_; i < last_; ++i) {
      const ir::Node& node = graph_.node(static_cast<int>(i));
      for (int in : node.inputs) {
        if (in < 0 || graph_.value(in).is_constant()) continue;
        // What the CPU wrote; an earlier launch's output is in device memory
        // already (flushing it would write stale CPU lines over it).
        const int producer = uses.producer[static_cast<size_t>(in)];
        if (producer < 0 || !IsFpga(graph_.node(producer)))
          flush.Add(arena_.offsets[static_cast<size_t>(in)], graph_.value(in).num_bytes());
      }
      for (int out : node.outputs) {
        if (out < 0) continue;
        const int64_t offset = arena_.offsets[static_cast<size_t>(out)];
        flush.Add(offset, graph_.value(out).num_bytes());
        bool cpu_reads = false;
        for (int c : uses.consumers[static_cast<size_t>(out)]) cpu_reads = cpu_reads || !IsFpga(graph_.node(c));
        if (cpu_reads) invalidate.Add(offset, graph_.value(out).num_bytes());
      }
    }
    flush_ = flush.Merged();
    invalidate_ = invalidate.Merged();
  }

  // The stream and the image as constants of the first node; attributes.
  void Attach() {
    ir::Node& leader = graph_.node(static_cast<int>(first_));
    const size_t command_bytes = stream_.size() * sizeof(contract::Command);
    const int commands = graph_.AddConstant(graph_.UniqueValueName(leader.name + ".fpga_commands"), DType::kUInt8,
                                            {static_cast<int64_t>(command_bytes)},
                                            ir::Buffer::CopyOf(stream_.data(), command_bytes));
    const int image = graph_.AddConstant(graph_.UniqueValueName(leader.name + ".fpga_constants"), DType::kUInt8,
                                         {static_cast<int64_t>(image_.size())},
                                         ir::Buffer::CopyOf(image_.data(), image_.size()));
    leader.inputs.push_back(commands);
    leader.inputs.push_back(image);
    leader.attrs.SetInt(fpga::kLaunchNodesAttr, static_cast<int64_t>(last_ - first_));
    leader.attrs.SetInt(fpga::kLaunchInputsAttr, fpga::kLaunchInputs);
    leader.attrs.SetInts(fpga::kFlushAttr, flush_);
    leader.attrs.SetInts(fpga::kInvalidateAttr, invalidate_);
    leader.attrs.SetInt(fpga::kMacsAttr, static_cast<int64_t>(macs_));
    leader.attrs.SetInt(fpga::kArrayMacsAttr, static_cast<int64_t>(array_macs_));
    for (size_t i = first_ + 1; i < last_; ++i) graph_.node(static_cast<int>(i)).attrs.SetInt(fpga::kLaunchNodesAttr, 0);
  }

  ir::Graph& graph_;
  const memory::ArenaPlan& arena_;
  const fpga::FpgaDeviceConfig& device_;
  const contract::AccelConfig& config_;
  const size_t first_, last_;
  std::vector<contract::Command> stream_;
  std::vector<uint8_t> image_;
  std::vector<int64_t> flush_, invalidate_;
  uint64_t macs_ = 0, array_macs_ = 0;
};

}  // namespace

Status LowerFpgaNodes(ir::Graph* graph, const memory::ArenaPlan& arena, const place::Target& target, bool per_node,
                      LoweringStats* stats) {
  *stats = LoweringStats();
  const auto* device = dynamic_cast<const fpga::FpgaDeviceConfig*>(target.ConfigFor(Device::kFpga));
  if (device == nullptr) return Status::Ok();  // not Loom's accelerator: its kernels need no lowering
  const ir::UseLists uses = graph->BuildUseLists();
  const size_t count = graph->nodes().size();
  for (size_t i = 0; i < count;) {
    if (!IsFpga(graph->node(static_cast<int>(i)))) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (!per_node && end < count && IsFpga(graph->node(static_cast<int>(end)))) ++end;
    RETURN_IF_ERROR(Launch(graph, arena, *device, i, end).Lower(uses, stats));
    i = end;
  }
  return Status::Ok();
}

}  // namespace lower
}  // namespace loom
