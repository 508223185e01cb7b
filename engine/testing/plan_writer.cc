#include "engine/testing/plan_writer.h"

#include <algorithm>

#include "schemas/plan_checksum.h"
#include "schemas/plan_codec.h"

namespace loom {
namespace testing {
namespace {

using plan_codec::AlignPlanOffset;

uint64_t ByteSize(DType dtype, const Shape& shape) {
  const int64_t n = NumElements(shape);
  return n < 0 ? 0 : static_cast<uint64_t>(n) * DTypeSize(dtype);
}

}  // namespace

PlanWriter::PlanWriter() : format_major(kPlanFormatMajor), format_minor(kPlanFormatMinor) {}

int PlanWriter::Activation(const std::string& name, DType dtype, const Shape& shape) {
  PlanTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  t.storage = 2;
  t.size_bytes = ByteSize(dtype, shape);
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size()) - 1;
}

int PlanWriter::ConstantBytes(const std::string& name, DType dtype, const Shape& shape, std::vector<uint8_t> bytes) {
  PlanTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  t.storage = 1;
  t.size_bytes = bytes.size();
  t.data = std::move(bytes);
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size()) - 1;
}

int PlanWriter::Omitted() {
  PlanTensor t;
  t.storage = 0;
  tensors.push_back(std::move(t));
  return static_cast<int>(tensors.size()) - 1;
}

PlanNode& PlanWriter::AddNode(const std::string& name, const std::string& op, const std::string& kernel,
                              const std::vector<int32_t>& node_inputs, const std::vector<int32_t>& node_outputs) {
  PlanNode n;
  n.name = name;
  n.op = op;
  n.kernel = kernel;
  n.inputs = node_inputs;
  n.outputs = node_outputs;
  nodes.push_back(std::move(n));
  return nodes.back();
}

std::vector<uint8_t> PlanWriter::Finish() {
  // Lay out constants and activations.
  std::vector<uint8_t> constants;
  uint64_t arena = 0;
  for (PlanTensor& t : tensors) {
    if (t.storage == 1) {
      constants.resize(AlignPlanOffset(constants.size()), 0);
      if (!keep_offsets) t.offset = constants.size();
      constants.insert(constants.end(), t.data.begin(), t.data.end());
    } else if (t.storage == 2) {
      if (!keep_offsets) t.offset = arena;
      arena = std::max(arena, AlignPlanOffset(t.offset + t.size_bytes));
    }
  }
  if (!keep_arena_bytes) arena_bytes = arena;

  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<plan::Tensor>> tensor_offsets;
  for (const PlanTensor& t : tensors) {
    flatbuffers::Offset<plan::QuantParams> quant;
    if (!t.quant_scale.empty())
      quant = plan::CreateQuantParamsDirect(fbb, &t.quant_scale, &t.quant_zero_point, t.quant_axis);
    tensor_offsets.push_back(plan::CreateTensorDirect(
        fbb, t.name.c_str(), static_cast<plan::DType>(t.dtype), &t.shape, static_cast<plan::Layout>(t.layout), quant,
        static_cast<plan::Storage>(t.storage), t.offset, t.size_bytes, static_cast<plan::MemorySpace>(t.memory_space),
        constant_checksums && t.storage == 1 ? Checksum64x8(t.data.data(), t.data.size()) : 0));
  }
  std::vector<flatbuffers::Offset<plan::Node>> node_offsets;
  for (const PlanNode& n : nodes) {
    const auto attrs = plan_codec::EncodeAttributes(fbb, n.attributes);
    std::vector<flatbuffers::Offset<flatbuffers::String>> fused;
    for (const std::string& f : n.fused) fused.push_back(fbb.CreateString(f));
    std::vector<flatbuffers::Offset<plan::DerivedConstant>> derived;
    for (const auto& [key, tensor] : n.derived)
      derived.push_back(plan::CreateDerivedConstantDirect(fbb, key.c_str(), tensor));
    node_offsets.push_back(plan::CreateNodeDirect(fbb, n.name.c_str(), n.op.c_str(), n.domain.c_str(), n.opset,
                                                  n.kernel.c_str(), static_cast<plan::Device>(n.device), &n.inputs,
                                                  &n.outputs, &attrs, &fused, n.placement_reason.c_str(), 0.f, nullptr,
                                                  derived.empty() ? nullptr : &derived));
  }
  const uint16_t meta_major = metadata_format_major < 0 ? format_major : static_cast<uint16_t>(metadata_format_major);
  const uint16_t meta_minor = metadata_format_minor < 0 ? format_minor : static_cast<uint16_t>(metadata_format_minor);
  auto root = plan::CreatePlanDirect(
      fbb, meta_major, meta_minor, producer.c_str(), model_hash.c_str(), "test 1.0", &tensor_offsets, &node_offsets,
      &inputs, &outputs, arena_bytes, constants.size(), accelerator_fingerprint.c_str(), nullptr, nullptr, 0.f, 0,
      constant_checksums,
      constant_checksums ? PlanSectionChecksum(format_major, constants.data(), constants.size()) : 0);
  plan::FinishPlanBuffer(fbb, root);

  return plan_codec::SealPlan(fbb.GetBufferPointer(), fbb.GetSize(), constants.data(), constants.size(),
                              {format_major, format_minor});
}

uint64_t LoadLe64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[at + i];
  return v;
}

void StoreLe64(std::vector<uint8_t>* b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) (*b)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

void ResealPlan(std::vector<uint8_t>* plan) {
  if (plan->size() < kPlanHeaderBytes) return;
  const uint64_t mo = LoadLe64(*plan, kMetadataOffsetAt), mb = LoadLe64(*plan, kMetadataBytesAt);
  const uint64_t co = LoadLe64(*plan, kConstantsOffsetAt), cb = LoadLe64(*plan, kConstantsBytesAt);
  const uint16_t major = static_cast<uint16_t>((*plan)[kHeaderMajorAt] | (*plan)[kHeaderMajorAt + 1] << 8);
  if (mo <= plan->size() && mb <= plan->size() - mo)
    StoreLe64(plan, kMetadataChecksumAt, PlanSectionChecksum(major, plan->data() + mo, mb));
  if (co <= plan->size() && cb <= plan->size() - co)
    StoreLe64(plan, kConstantsChecksumAt, PlanSectionChecksum(major, plan->data() + co, cb));
}

}  // namespace testing
}  // namespace loom
