#include "builder/plan/plan_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/checksum.h"
#include "schemas/plan_codec.h"

namespace loom {
namespace plan_writer {

namespace {

namespace fb = flatbuffers;
using plan_codec::ToPlan;

class Writer {
 public:
  Writer(const ir::Graph& g, const memory::ArenaPlan& arena) : g_(g), arena_(arena) {}

  Status Write(const PlanInfo& info, WrittenPlan* out) {
    // Tensor table in first-use order.
    for (int id : g_.inputs()) RETURN_IF_ERROR(Index(id));
    for (const ir::Node& n : g_.nodes()) {
      for (int id : n.inputs) RETURN_IF_ERROR(Index(id));
      for (int id : n.outputs) RETURN_IF_ERROR(Index(id));
    }
    for (int id : g_.outputs()) RETURN_IF_ERROR(Index(id));
    for (const ir::Node& n : g_.nodes())
      for (const ir::Node::Derived& d : n.derived) {
        if (d.value < 0 || !g_.value(d.value).is_constant())
          return Status::Internal("plan writer: a derived constant of " + n.Label() + " is not a constant");
        RETURN_IF_ERROR(Index(d.value));
      }

    std::vector<fb::Offset<plan::Tensor>> tensors;
    for (int id : order_) RETURN_IF_ERROR(AddTensor(id, &tensors));
    std::vector<fb::Offset<plan::Node>> nodes;
    for (const ir::Node& n : g_.nodes()) nodes.push_back(AddNode(n));
    std::vector<int32_t> inputs, outputs;
    for (int id : g_.inputs()) inputs.push_back(index_.at(id));
    for (int id : g_.outputs()) outputs.push_back(index_.at(id));
    std::vector<fb::Offset<plan::Boundary>> boundaries;
    for (const PlanInfo::Boundary& bd : info.boundaries) {
      auto it = index_.find(bd.value);
      if (it == index_.end()) return Status::Internal("plan writer: a boundary names a value the plan does not use");
      boundaries.push_back(plan::CreateBoundary(b_, it->second, ToPlan(bd.from), ToPlan(bd.to),
                                                static_cast<float>(bd.predicted_ms)));
    }
    const uint64_t section_checksum = SectionChecksum();
    auto root =
        plan::CreatePlanDirect(b_, kPlanFormatMajor, kPlanFormatMinor, info.producer.c_str(), info.model_hash.c_str(),
                               info.model_producer.c_str(), &tensors, &nodes, &inputs, &outputs, arena_.arena_bytes,
                               constants_bytes_, info.accelerator_fingerprint.c_str(), &boundaries, info.target.c_str(),
                               static_cast<float>(info.clock_mhz), arena_.lower_bound_bytes,
                               /*constant_checksums=*/true, section_checksum);
    plan::FinishPlanBuffer(b_, root);
    out->bytes = plan_codec::SealPlan(b_.GetBufferPointer(), b_.GetSize(), constants_bytes_, [&](uint8_t* dst) {
      for (const auto& [data, offset] : constant_offsets_)
        if (data->size()) std::memcpy(dst + offset, data->data(), data->size());
    });
    plan::FileHeader header;
    std::memcpy(static_cast<void*>(&header), out->bytes.data(), sizeof(header));
    if (header.constants_checksum() != section_checksum)
      return Status::Internal("plan writer: the constants section's checksum differs from the one streamed");
    out->constants_bytes = constants_bytes_;
    out->metadata_bytes = b_.GetSize();
    return Status::Ok();
  }

 private:
  Status Index(int id) {
    if (id < 0 || index_.count(id)) return Status::Ok();
    if (id >= static_cast<int>(g_.values().size())) return Status::Internal("plan writer: value id out of range");
    index_[id] = static_cast<int32_t>(order_.size());
    order_.push_back(id);
    return Status::Ok();
  }

  // Offset of a constant's data in the constants section (deduplicated).
  uint64_t PlaceConstant(const ir::Buffer& data) {
    auto it = constant_offsets_.find(&data);
    if (it != constant_offsets_.end()) return it->second;
    const uint64_t offset = plan_codec::AlignPlanOffset(constants_bytes_);
    constants_bytes_ = offset + data.size();
    constant_offsets_[&data] = offset;
    return offset;
  }

  // The constants section's checksum (Plan.constants_checksum, format 2.2),
  // streamed over the placed constants and the zeros between them.
  uint64_t SectionChecksum() const {
    std::vector<std::pair<uint64_t, const ir::Buffer*>> placed;
    for (const auto& [data, offset] : constant_offsets_) placed.emplace_back(offset, data);
    std::sort(placed.begin(), placed.end());
    Checksum64x8Stream stream(constants_bytes_);
    for (const auto& [offset, data] : placed) {
      if (data->size() == 0) continue;  // an empty constant may share its offset with the next
      stream.AddZeros(offset - stream.added());
      stream.Add(data->data(), data->size());
    }
    stream.AddZeros(constants_bytes_ - stream.added());
    return stream.Finish();
  }

  // Tensor.checksum of a constant (format 2.2), once per buffer.
  uint64_t ConstantChecksum(const ir::Buffer& data) {
    auto [it, inserted] = constant_checksums_.emplace(&data, 0);
    if (inserted) it->second = Checksum64x8(data.data(), data.size());
    return it->second;
  }

  Status AddTensor(int id, std::vector<fb::Offset<plan::Tensor>>* tensors) {
    const ir::Value& v = g_.value(id);
    if (!v.shape_known || DTypeSize(v.dtype) == 0)
      return Status::Internal("plan writer: tensor '" + v.name + "' has no static shape or storable dtype");
    // The IR's byte size for every layout: the IR owns NHWC_PADDED's padding.
    const uint64_t size = v.num_bytes();
    plan::Storage storage = plan::Storage::ARENA;
    uint64_t offset = 0, checksum = 0;
    if (v.is_constant()) {
      if (v.data->size() != size)
        return Status::Internal("plan writer: constant '" + v.name + "' holds " + std::to_string(v.data->size()) +
                                " bytes, expected " + std::to_string(size));
      if (v.memory_space != MemorySpace::kHost)
        return Status::Internal("plan writer: constant '" + v.name + "' is marked " +
                                MemorySpaceName(v.memory_space) + "; constants live in host memory");
      storage = plan::Storage::CONSTANT;
      offset = PlaceConstant(*v.data);
      checksum = ConstantChecksum(*v.data);
    } else {
      const int64_t o = static_cast<size_t>(id) < arena_.offsets.size() ? arena_.offsets[static_cast<size_t>(id)] : -1;
      if (o < 0) return Status::Internal("plan writer: tensor '" + v.name + "' has no arena offset");
      offset = static_cast<uint64_t>(o);
    }
    fb::Offset<plan::QuantParams> quant = 0;
    if (!v.quant.empty())
      quant = plan::CreateQuantParamsDirect(b_, &v.quant.scale, &v.quant.zero_point, v.quant.axis);
    tensors->push_back(plan::CreateTensorDirect(b_, v.name.c_str(), ToPlan(v.dtype), &v.shape, ToPlan(v.layout), quant,
                                                storage, offset, size, ToPlan(v.memory_space), checksum));
    return Status::Ok();
  }

  fb::Offset<plan::Node> AddNode(const ir::Node& n) {
    std::vector<int32_t> inputs, outputs;
    for (int id : n.inputs) inputs.push_back(id < 0 ? -1 : index_.at(id));
    for (int id : n.outputs) outputs.push_back(id < 0 ? -1 : index_.at(id));
    const std::vector<fb::Offset<plan::Attribute>> attrs = plan_codec::EncodeAttributes(b_, n.attrs.all());
    std::vector<fb::Offset<fb::String>> fused;
    for (const std::string& f : n.fused) fused.push_back(b_.CreateString(f));
    std::vector<fb::Offset<plan::DerivedConstant>> derived;
    for (const ir::Node::Derived& d : n.derived)
      derived.push_back(plan::CreateDerivedConstantDirect(b_, d.key.c_str(), index_.at(d.value)));
    return plan::CreateNodeDirect(
        b_, n.name.c_str(), n.op.c_str(), n.domain.c_str(), n.opset, n.kernel_id.c_str(), ToPlan(n.device), &inputs,
        &outputs, &attrs, &fused, n.placement_reason.c_str(), static_cast<float>(n.predicted_ms),
        n.fallback_kernel_id.empty() ? nullptr : n.fallback_kernel_id.c_str(), derived.empty() ? nullptr : &derived);
  }

  const ir::Graph& g_;
  const memory::ArenaPlan& arena_;
  fb::FlatBufferBuilder b_{1 << 16};
  std::unordered_map<int, int32_t> index_;
  std::vector<int> order_;
  uint64_t constants_bytes_ = 0;  // the constants section: each constant at its offset, zeros between
  std::unordered_map<const ir::Buffer*, uint64_t> constant_offsets_;
  std::unordered_map<const ir::Buffer*, uint64_t> constant_checksums_;
};

}  // namespace

std::string HashToHex(uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

Status WritePlan(const ir::Graph& graph, const memory::ArenaPlan& arena, const PlanInfo& info, WrittenPlan* out) {
  return Writer(graph, arena).Write(info, out);
}

}  // namespace plan_writer
}  // namespace loom
