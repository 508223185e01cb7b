#include "engine/testing/plan_writer.h"

#include <algorithm>

#include "common/checksum.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace testing {
namespace {

uint64_t AlignUp(uint64_t v) { return (v + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

uint64_t ByteSize(DType dtype, const Shape& shape) {
  const int64_t n = NumElements(shape);
  return n < 0 ? 0 : static_cast<uint64_t>(n) * DTypeSize(dtype);
}

void StoreLe(std::vector<uint8_t>* b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) (*b)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

flatbuffers::Offset<plan::Attribute> WriteAttribute(flatbuffers::FlatBufferBuilder& fbb, const Attribute& a) {
  auto name = fbb.CreateString(a.name);
  flatbuffers::Offset<flatbuffers::String> s;
  flatbuffers::Offset<flatbuffers::Vector<int64_t>> ints;
  flatbuffers::Offset<flatbuffers::Vector<float>> floats;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> strings;
  flatbuffers::Offset<plan::TensorValue> tensor;
  plan::AttributeKind kind = plan::AttributeKind::INT;
  switch (a.kind) {
    case Attribute::Kind::kInt: kind = plan::AttributeKind::INT; break;
    case Attribute::Kind::kFloat: kind = plan::AttributeKind::FLOAT; break;
    case Attribute::Kind::kString:
      kind = plan::AttributeKind::STRING;
      s = fbb.CreateString(a.s);
      break;
    case Attribute::Kind::kInts:
      kind = plan::AttributeKind::INTS;
      ints = fbb.CreateVector(a.ints);
      break;
    case Attribute::Kind::kFloats:
      kind = plan::AttributeKind::FLOATS;
      floats = fbb.CreateVector(a.floats);
      break;
    case Attribute::Kind::kStrings:
      kind = plan::AttributeKind::STRINGS;
      strings = fbb.CreateVectorOfStrings(a.strings);
      break;
    case Attribute::Kind::kTensor:
      kind = plan::AttributeKind::TENSOR;
      if (a.tensor) {
        tensor = plan::CreateTensorValueDirect(fbb, static_cast<plan::DType>(a.tensor->dtype), &a.tensor->dims,
                                               &a.tensor->data);
      }
      break;
  }
  return plan::CreateAttribute(fbb, name, kind, a.i, a.f, s, ints, floats, strings, tensor);
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
      constants.resize(AlignUp(constants.size()), 0);
      if (!keep_offsets) t.offset = constants.size();
      constants.insert(constants.end(), t.data.begin(), t.data.end());
    } else if (t.storage == 2) {
      if (!keep_offsets) t.offset = arena;
      arena = std::max(arena, AlignUp(t.offset + t.size_bytes));
    }
  }
  if (!keep_arena_bytes) arena_bytes = arena;

  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<plan::Tensor>> tensor_offsets;
  for (const PlanTensor& t : tensors) {
    flatbuffers::Offset<plan::QuantParams> quant;
    if (!t.quant_scale.empty())
      quant = plan::CreateQuantParamsDirect(fbb, &t.quant_scale, &t.quant_zero_point, t.quant_axis);
    tensor_offsets.push_back(plan::CreateTensorDirect(fbb, t.name.c_str(), static_cast<plan::DType>(t.dtype), &t.shape,
                                                      static_cast<plan::Layout>(t.layout), quant,
                                                      static_cast<plan::Storage>(t.storage), t.offset, t.size_bytes));
  }
  std::vector<flatbuffers::Offset<plan::Node>> node_offsets;
  for (const PlanNode& n : nodes) {
    std::vector<flatbuffers::Offset<plan::Attribute>> attrs;
    for (const Attribute& a : n.attributes) attrs.push_back(WriteAttribute(fbb, a));
    auto fused = fbb.CreateVectorOfStrings(n.fused);
    node_offsets.push_back(plan::CreateNode(
        fbb, fbb.CreateString(n.name), fbb.CreateString(n.op), fbb.CreateString(n.domain), n.opset,
        fbb.CreateString(n.kernel), static_cast<plan::Device>(n.device), fbb.CreateVector(n.inputs),
        fbb.CreateVector(n.outputs), fbb.CreateVector(attrs), fused, fbb.CreateString(n.placement_reason)));
  }
  const uint16_t meta_major = metadata_format_major < 0 ? format_major : static_cast<uint16_t>(metadata_format_major);
  const uint16_t meta_minor = metadata_format_minor < 0 ? format_minor : static_cast<uint16_t>(metadata_format_minor);
  auto root =
      plan::CreatePlanDirect(fbb, meta_major, meta_minor, producer.c_str(), model_hash.c_str(), "test 1.0",
                             &tensor_offsets, &node_offsets, &inputs, &outputs, arena_bytes, constants.size(), "");
  plan::FinishPlanBuffer(fbb, root);

  const uint64_t metadata_offset = kPlanHeaderBytes;
  const uint64_t metadata_bytes = fbb.GetSize();
  const uint64_t constants_offset = AlignUp(metadata_offset + metadata_bytes);
  std::vector<uint8_t> file(constants.empty() ? metadata_offset + metadata_bytes : constants_offset + constants.size(),
                            0);
  std::memcpy(file.data(), kPlanMagic, sizeof(kPlanMagic));
  StoreLe(&file, kHeaderMajorAt, format_major, 2);
  StoreLe(&file, kHeaderMinorAt, format_minor, 2);
  StoreLe(&file, kHeaderBytesAt, kPlanHeaderBytes, 4);
  StoreLe(&file, kMetadataOffsetAt, metadata_offset, 8);
  StoreLe(&file, kMetadataBytesAt, metadata_bytes, 8);
  StoreLe(&file, kConstantsOffsetAt, constants.empty() ? 0 : constants_offset, 8);
  StoreLe(&file, kConstantsBytesAt, constants.size(), 8);
  std::memcpy(file.data() + metadata_offset, fbb.GetBufferPointer(), metadata_bytes);
  if (!constants.empty()) std::memcpy(file.data() + constants_offset, constants.data(), constants.size());
  ResealPlan(&file);
  return file;
}

uint64_t LoadLe64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[at + i];
  return v;
}

void StoreLe64(std::vector<uint8_t>* b, size_t at, uint64_t v) { StoreLe(b, at, v, 8); }

void ResealPlan(std::vector<uint8_t>* plan) {
  if (plan->size() < kPlanHeaderBytes) return;
  const uint64_t mo = LoadLe64(*plan, kMetadataOffsetAt), mb = LoadLe64(*plan, kMetadataBytesAt);
  const uint64_t co = LoadLe64(*plan, kConstantsOffsetAt), cb = LoadLe64(*plan, kConstantsBytesAt);
  if (mo <= plan->size() && mb <= plan->size() - mo)
    StoreLe64(plan, kMetadataChecksumAt, Checksum64(plan->data() + mo, mb));
  if (co <= plan->size() && cb <= plan->size() - co)
    StoreLe64(plan, kConstantsChecksumAt, Checksum64(plan->data() + co, cb));
}

}  // namespace testing
}  // namespace loom
