// A test-only plan writer: builds plan files for tiny graphs directly with
// flatbuffers::FlatBufferBuilder, so engine tests do not need the builder.
// Attributes and sealing go through schemas/plan_codec.h like the builder's.
// Every field is public so a test can break exactly one thing:
//
//   PlanWriter w;
//   int x = w.Activation("x", DType::kFloat32, {2, 3});
//   int y = w.Activation("y", DType::kFloat32, {2, 3});
//   w.Input(x);
//   w.AddNode("relu", "Relu", "cpu.Relu", {x}, {y});
//   w.Output(y);
//   std::vector<uint8_t> plan = w.Finish();
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/attributes.h"

namespace loom {
namespace testing {

struct PlanTensor {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;
  int storage = 2;  // plan::Storage: 0 none, 1 constant, 2 arena
  int layout = 0;   // plan::Layout
  int memory_space = 0;  // plan::MemorySpace; 0 (HOST) is not written, as in a 1.0 plan
  uint64_t offset = 0;
  uint64_t size_bytes = 0;
  std::vector<uint8_t> data;  // constants only; placed by Finish()
  std::vector<float> quant_scale;
  std::vector<int64_t> quant_zero_point;
  int32_t quant_axis = 0;
};

struct PlanNode {
  std::string name;
  std::string op;
  std::string kernel;
  std::string domain;
  int opset = 17;
  int device = 0;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Attribute> attributes;
  std::vector<std::string> fused;
  std::string placement_reason = "cpu: test plan";
  std::vector<std::pair<std::string, int32_t>> derived;  // (key, tensor): Node.derived
};

class PlanWriter {
 public:
  // An arena tensor; Finish() assigns 64-byte-aligned offsets in order.
  int Activation(const std::string& name, DType dtype, const Shape& shape);
  // A constant tensor holding `values`; placed in the constants section by Finish().
  template <typename T>
  int Constant(const std::string& name, const Shape& shape, const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return ConstantBytes(name, DTypeOf<T>::value, shape, std::move(bytes));
  }
  int ConstantBytes(const std::string& name, DType dtype, const Shape& shape, std::vector<uint8_t> bytes);
  int Omitted();
  void Input(int tensor) { inputs.push_back(tensor); }
  void Output(int tensor) { outputs.push_back(tensor); }
  PlanNode& AddNode(const std::string& name, const std::string& op, const std::string& kernel,
                    const std::vector<int32_t>& node_inputs, const std::vector<int32_t>& node_outputs);

  // Serializes the plan file: header, metadata flatbuffer, constants section.
  std::vector<uint8_t> Finish();

  std::vector<PlanTensor> tensors;
  std::vector<PlanNode> nodes;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  // Layout control for tests; offsets and sizes are computed when false.
  bool keep_offsets = false;
  bool keep_arena_bytes = false;
  uint64_t arena_bytes = 0;
  uint16_t format_major;  // header; defaults to schemas/plan_format.h
  uint16_t format_minor;
  int metadata_format_major = -1;  // Plan.format_major/minor; -1: same as the header
  int metadata_format_minor = -1;
  std::string producer = "loom test";
  std::string model_hash = "0123456789abcdef";
  std::string accelerator_fingerprint;
  // Plan.constant_checksums (format 2.2), each constant's Tensor.checksum
  // computed from its data, as the builder writes them.
  bool constant_checksums = true;

  PlanWriter();
};

// Rewrites the header checksums (the algorithm of the header's format minor)
// after a test changed the plan's bytes.
void ResealPlan(std::vector<uint8_t>* plan);

// Byte offsets of the header fields (little-endian).
constexpr size_t kHeaderMajorAt = 8;
constexpr size_t kHeaderMinorAt = 10;
constexpr size_t kHeaderBytesAt = 12;
constexpr size_t kMetadataOffsetAt = 16;
constexpr size_t kMetadataBytesAt = 24;
constexpr size_t kMetadataChecksumAt = 32;
constexpr size_t kConstantsOffsetAt = 40;
constexpr size_t kConstantsBytesAt = 48;
constexpr size_t kConstantsChecksumAt = 56;

uint64_t LoadLe64(const std::vector<uint8_t>& b, size_t at);
void StoreLe64(std::vector<uint8_t>* b, size_t at, uint64_t v);

}  // namespace testing
}  // namespace loom
