#include "builder/plan/plan_writer.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "common/checksum.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace plan_writer {

namespace {

namespace fb = flatbuffers;

size_t AlignUp(size_t n) { return (n + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

plan::AttributeKind KindOf(Attribute::Kind k) {
  switch (k) {
    case Attribute::Kind::kInt: return plan::AttributeKind::INT;
    case Attribute::Kind::kFloat: return plan::AttributeKind::FLOAT;
    case Attribute::Kind::kString: return plan::AttributeKind::STRING;
    case Attribute::Kind::kInts: return plan::AttributeKind::INTS;
    case Attribute::Kind::kFloats: return plan::AttributeKind::FLOATS;
    case Attribute::Kind::kStrings: return plan::AttributeKind::STRINGS;
    case Attribute::Kind::kTensor: return plan::AttributeKind::TENSOR;
  }
  return plan::AttributeKind::INT;
}

fb::Offset<plan::Attribute> WriteAttribute(fb::FlatBufferBuilder& b, const Attribute& a) {
  fb::Offset<plan::TensorValue> tensor = 0;
  if (a.kind == Attribute::Kind::kTensor && a.tensor)
    tensor = plan::CreateTensorValueDirect(b, static_cast<plan::DType>(a.tensor->dtype), &a.tensor->dims,
                                           &a.tensor->data);
  std::vector<fb::Offset<fb::String>> strings;
  for (const std::string& s : a.strings) strings.push_back(b.CreateString(s));
  const bool is_ints = a.kind == Attribute::Kind::kInts;
  const bool is_floats = a.kind == Attribute::Kind::kFloats;
  const bool is_strings = a.kind == Attribute::Kind::kStrings;
  return plan::CreateAttributeDirect(b, a.name.c_str(), KindOf(a.kind), a.i, a.f,
                                     a.kind == Attribute::Kind::kString ? a.s.c_str() : nullptr,
                                     is_ints ? &a.ints : nullptr, is_floats ? &a.floats : nullptr,
                                     is_strings ? &strings : nullptr, tensor);
}

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

    std::vector<fb::Offset<plan::Tensor>> tensors;
    for (int id : order_) RETURN_IF_ERROR(AddTensor(id, &tensors));
    std::vector<fb::Offset<plan::Node>> nodes;
    for (const ir::Node& n : g_.nodes()) nodes.push_back(AddNode(n));
    std::vector<int32_t> inputs, outputs;
    for (int id : g_.inputs()) inputs.push_back(index_.at(id));
    for (int id : g_.outputs()) outputs.push_back(index_.at(id));
    auto root = plan::CreatePlanDirect(b_, kPlanFormatMajor, kPlanFormatMinor, info.producer.c_str(),
                                       info.model_hash.c_str(), info.model_producer.c_str(), &tensors, &nodes,
                                       &inputs, &outputs, arena_.arena_bytes, constants_.size(), "");
    plan::FinishPlanBuffer(b_, root);
    Assemble(out);
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
    const uint64_t offset = AlignUp(constants_.size());
    constants_.resize(offset + data.size(), 0);
    if (data.size()) std::memcpy(constants_.data() + offset, data.data(), data.size());
    constant_offsets_[&data] = offset;
    return offset;
  }

  Status AddTensor(int id, std::vector<fb::Offset<plan::Tensor>>* tensors) {
    const ir::Value& v = g_.value(id);
    if (!v.shape_known || DTypeSize(v.dtype) == 0)
      return Status::Internal("plan writer: tensor '" + v.name + "' has no static shape or storable dtype");
    const uint64_t size = v.num_bytes();
    plan::Storage storage = plan::Storage::ARENA;
    uint64_t offset = 0;
    if (v.is_constant()) {
      if (v.data->size() != size)
        return Status::Internal("plan writer: constant '" + v.name + "' holds " + std::to_string(v.data->size()) +
                                " bytes, expected " + std::to_string(size));
      storage = plan::Storage::CONSTANT;
      offset = PlaceConstant(*v.data);
    } else {
      const int64_t o = static_cast<size_t>(id) < arena_.offsets.size() ? arena_.offsets[static_cast<size_t>(id)] : -1;
      if (o < 0) return Status::Internal("plan writer: tensor '" + v.name + "' has no arena offset");
      offset = static_cast<uint64_t>(o);
    }
    fb::Offset<plan::QuantParams> quant = 0;
    if (!v.quant.empty())
      quant = plan::CreateQuantParamsDirect(b_, &v.quant.scale, &v.quant.zero_point, v.quant.axis);
    tensors->push_back(plan::CreateTensorDirect(b_, v.name.c_str(), static_cast<plan::DType>(v.dtype), &v.shape,
                                                plan::Layout::ROW_MAJOR, quant, storage, offset, size));
    return Status::Ok();
  }

  fb::Offset<plan::Node> AddNode(const ir::Node& n) {
    std::vector<int32_t> inputs, outputs;
    for (int id : n.inputs) inputs.push_back(id < 0 ? -1 : index_.at(id));
    for (int id : n.outputs) outputs.push_back(id < 0 ? -1 : index_.at(id));
    std::vector<fb::Offset<plan::Attribute>> attrs;
    for (const Attribute& a : n.attrs.all()) attrs.push_back(WriteAttribute(b_, a));
    std::vector<fb::Offset<fb::String>> fused;
    for (const std::string& f : n.fused) fused.push_back(b_.CreateString(f));
    return plan::CreateNodeDirect(b_, n.name.c_str(), n.op.c_str(), n.domain.c_str(), n.opset, n.kernel_id.c_str(),
                                  n.device == Device::kFpga ? plan::Device::FPGA : plan::Device::CPU, &inputs,
                                  &outputs, &attrs, &fused, n.placement_reason.c_str());
  }

  void Assemble(WrittenPlan* out) {
    const uint8_t* metadata = b_.GetBufferPointer();
    const size_t metadata_bytes = b_.GetSize();
    const size_t metadata_offset = kPlanHeaderBytes;
    const size_t constants_offset = AlignUp(metadata_offset + metadata_bytes);
    out->bytes.assign(constants_offset + constants_.size(), 0);
    std::memcpy(out->bytes.data() + metadata_offset, metadata, metadata_bytes);
    if (!constants_.empty()) std::memcpy(out->bytes.data() + constants_offset, constants_.data(), constants_.size());
    const plan::FileHeader header(
        fb::span<const uint8_t, 8>(reinterpret_cast<const uint8_t*>(kPlanMagic), 8), kPlanFormatMajor,
        kPlanFormatMinor, static_cast<uint32_t>(kPlanHeaderBytes), metadata_offset, metadata_bytes,
        Checksum64(metadata, metadata_bytes), constants_offset, constants_.size(),
        Checksum64(constants_.data(), constants_.size()));
    static_assert(sizeof(header) == kPlanHeaderBytes, "FileHeader must be 64 bytes");
    std::memcpy(out->bytes.data(), &header, sizeof(header));
    out->constants_bytes = constants_.size();
    out->metadata_bytes = metadata_bytes;
  }

  const ir::Graph& g_;
  const memory::ArenaPlan& arena_;
  fb::FlatBufferBuilder b_{1 << 16};
  std::unordered_map<int, int32_t> index_;
  std::vector<int> order_;
  std::vector<uint8_t> constants_;
  std::unordered_map<const ir::Buffer*, uint64_t> constant_offsets_;
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
