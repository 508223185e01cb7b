// Semantic verification of well-sealed plans that are wrong inside: each case
// breaks one rule and expects a refusal naming the tensor, node or attribute.
#include "engine/plan_verifier.h"

#include <gtest/gtest.h>

#include <functional>

#include "engine/testing/plan_writer.h"
#include "engine/testing/sample_plan.h"
#include "engine/testing/test_kernels.h"
#include "loom/engine.h"

namespace loom {
namespace {

using testing::PlanWriter;

// Sample plan tensor indices (see testing/sample_plan.cc).
constexpr int kX = 0, kC = 1, kS = 2, kR = 3, kY = 4;

struct Case {
  const char* name;
  std::function<void(PlanWriter*)> damage;
  StatusCode code;
  const char* message;  // a substring of the expected message
};

Status LoadModified(const std::function<void(PlanWriter*)>& damage) {
  PlanWriter w = testing::SamplePlanWriter();
  damage(&w);
  const std::vector<uint8_t> plan = w.Finish();
  std::shared_ptr<const Engine> engine;
  return Engine::LoadFromBuffer(plan.data(), plan.size(), testing::TestKernelRegistry(), &engine);
}

TEST(PlanVerifierTest, RefusesSemanticErrors) {
  const Case cases[] = {
      {"node input out of range", [](PlanWriter* w) { w->nodes[1].inputs[0] = 99; }, StatusCode::kCorrupt,
       "relu (Relu): input 0 refers to tensor 99, but the plan has 5 tensors"},
      {"negative node input", [](PlanWriter* w) { w->nodes[0].inputs[1] = -7; }, StatusCode::kCorrupt,
       "add (Add): input 1 refers to tensor -7"},
      {"node output out of range", [](PlanWriter* w) { w->nodes[2].outputs[0] = 5; }, StatusCode::kCorrupt,
       "scale (Scale): output 0 refers to tensor 5"},
      {"size mismatch", [](PlanWriter* w) { w->tensors[kS].size_bytes = 64; }, StatusCode::kCorrupt,
       "tensor 's': size_bytes is 64, expected 128 for float32 2x16"},
      {"negative dim",
       [](PlanWriter* w) {
         w->tensors[kS].shape = {-2, 16};
       },
       StatusCode::kCorrupt, "tensor 's': dim 0 is -2"},
      {"unknown dtype", [](PlanWriter* w) { w->tensors[kS].dtype = static_cast<DType>(77); }, StatusCode::kCorrupt,
       "tensor 's': unknown dtype 77"},
      {"string dtype", [](PlanWriter* w) { w->tensors[kS].dtype = DType::kString; }, StatusCode::kUnsupported,
       "tensor 's': dtype string cannot be executed"},
      {"arena overflow",
       [](PlanWriter* w) {
         w->keep_arena_bytes = true;
         w->arena_bytes = 256;
       },
       StatusCode::kCorrupt, "tensor 'r': data [256, +128) lies outside the arena (256 bytes)"},
      {"absurd arena",
       [](PlanWriter* w) {
         w->keep_arena_bytes = true;
         w->arena_bytes = 1ull << 40;
       },
       StatusCode::kCorrupt, "plan asks for an arena of 1099511627776 bytes"},
      {"constant outside section",
       [](PlanWriter* w) {
         w->Finish();
         w->keep_offsets = true;
         w->tensors[kC].offset = 64;
       },
       StatusCode::kCorrupt, "tensor 'c': data [64, +128) lies outside the constants section (128 bytes)"},
      {"misaligned arena tensor",
       [](PlanWriter* w) {
         w->Finish();
         w->keep_offsets = true;
         w->tensors[kS].offset += 2;
       },
       StatusCode::kCorrupt, "not aligned to its 4-byte elements"},
      {"graph input is constant", [](PlanWriter* w) { w->inputs[0] = kC; }, StatusCode::kCorrupt,
       "graph input tensor 'c' is not an arena tensor"},
      {"graph output is an input", [](PlanWriter* w) { w->outputs.push_back(kX); }, StatusCode::kCorrupt,
       "graph output tensor 'x' is also a graph input"},
      {"graph output not produced",
       [](PlanWriter* w) { w->outputs.push_back(w->Activation("orphan", DType::kFloat32, {1})); }, StatusCode::kCorrupt,
       "graph output tensor 'orphan' is not produced by any node"},
      {"read before written", [](PlanWriter* w) { std::swap(w->nodes[0], w->nodes[1]); }, StatusCode::kCorrupt,
       "relu (Relu): input 0 (tensor 's') is read before any node writes it"},
      {"written twice", [](PlanWriter* w) { w->nodes[2].outputs[0] = kR; }, StatusCode::kCorrupt,
       "output 0 (tensor 'r') is written by an earlier node too"},
      {"writes a constant", [](PlanWriter* w) { w->nodes[0].outputs[0] = kC; }, StatusCode::kCorrupt,
       "add (Add): output 0 (tensor 'c') is not an arena tensor"},
      {"duplicate input names",
       [](PlanWriter* w) {
         const int x2 = w->Activation("x", DType::kFloat32, {2, 16});
         w->inputs.push_back(x2);
       },
       StatusCode::kCorrupt, "graph input tensor 'x' is listed twice"},
      {"unnamed graph input", [](PlanWriter* w) { w->tensors[kX].name = ""; }, StatusCode::kCorrupt,
       "graph input 0 has no name"},
      {"no outputs", [](PlanWriter* w) { w->outputs.clear(); }, StatusCode::kCorrupt, "no graph outputs"},
      {"no nodes",
       [](PlanWriter* w) {
         w->nodes.clear();
         w->outputs.clear();
       },
       StatusCode::kCorrupt, "plan has no nodes"},
      {"duplicate attribute", [](PlanWriter* w) { w->nodes[2].attributes.push_back(w->nodes[2].attributes[0]); },
       StatusCode::kCorrupt, "scale (Scale): attribute 'alpha' appears twice"},
      {"attribute tensor size",
       [](PlanWriter* w) {
         Attribute a;
         a.name = "value";
         a.kind = Attribute::Kind::kTensor;
         auto t = std::make_shared<AttrTensor>();
         t->dtype = DType::kFloat32;
         t->dims = {3};
         t->data.resize(8);
         a.tensor = t;
         w->nodes[1].attributes.push_back(a);
       },
       StatusCode::kCorrupt, "relu (Relu): attribute 'value': tensor holds 8 bytes, expected 12"},
      {"unknown layout", [](PlanWriter* w) { w->tensors[kS].layout = 9; }, StatusCode::kCorrupt,
       "tensor 's': unknown layout 9"},
      {"padded size too small",
       [](PlanWriter* w) {
         w->tensors[kS].layout = 2;
         w->tensors[kS].size_bytes = 64;
       },
       StatusCode::kCorrupt, "tensor 's': size_bytes is 64, expected a multiple of 4 of at least 128"},
      {"padded size in part elements",
       [](PlanWriter* w) {
         w->tensors[kS].layout = 2;
         w->tensors[kS].size_bytes = 130;
       },
       StatusCode::kCorrupt, "tensor 's': size_bytes is 130"},
      {"unknown memory space", [](PlanWriter* w) { w->tensors[kS].memory_space = 5; }, StatusCode::kCorrupt,
       "tensor 's': unknown memory space 5"},
      {"device-visible constant", [](PlanWriter* w) { w->tensors[kC].memory_space = 1; }, StatusCode::kCorrupt,
       "tensor 'c': a constant tensor cannot be in device_visible memory"},
      {"per-channel quant mismatch",
       [](PlanWriter* w) {
         w->tensors[kS].quant_scale = {1.f, 2.f, 3.f};
         w->tensors[kS].quant_axis = 1;
       },
       StatusCode::kCorrupt, "tensor 's': 3 per-channel scales do not match axis 1 of shape 2x16"},
      {"unknown kernel", [](PlanWriter* w) { w->nodes[1].kernel = "cpu.Nope"; }, StatusCode::kNotFound,
       "relu (Relu): kernel 'cpu.Nope' is not available in this engine"},
      {"kernel for another op", [](PlanWriter* w) { w->nodes[1].kernel = "test.Add"; }, StatusCode::kCorrupt,
       "relu (Relu): kernel 'test.Add' implements Add, not Relu"},
      {"prepare refuses",
       [](PlanWriter* w) {
         w->nodes[1].op = "Refuse";
         w->nodes[1].kernel = "test.Refuse";
       },
       StatusCode::kUnsupported, "relu (Refuse): unsupported refused by design"},
      {"prepare validates attributes", [](PlanWriter* w) { w->nodes[2].attributes.clear(); },
       StatusCode::kInvalidArgument, "scale (Scale): attribute 'alpha' (float) is required"},
      {"prepare validates shapes", [](PlanWriter* w) { w->tensors[kY].shape = {32}; }, StatusCode::kInvalidArgument,
       "scale (Scale): input shape 2x16 differs from output shape 32"},
      {"derived constant out of range",
       [](PlanWriter* w) {
         w->nodes[1].derived = {{"k", 9}};
       },
       StatusCode::kCorrupt, "relu (Relu): derived constant 0 refers to tensor 9, but the plan has 5 tensors"},
      {"derived constant not a uint8 constant",
       [](PlanWriter* w) {
         w->nodes[1].derived = {{"k", kC}};
       },
       StatusCode::kCorrupt, "relu (Relu): derived constant 0 (tensor 'c') is not a 1-D uint8 constant"},
      {"derived constant in the arena",
       [](PlanWriter* w) {
         w->nodes[1].derived = {{"k", w->Activation("packed", DType::kUInt8, {64})}};
       },
       StatusCode::kCorrupt, "relu (Relu): derived constant 0 (tensor 'packed') is not a 1-D uint8 constant"},
      {"misaligned derived constant",
       [](PlanWriter* w) {
         w->nodes[1].derived = {{"k", w->ConstantBytes("packed", DType::kUInt8, {64}, std::vector<uint8_t>(64))}};
         w->Finish();
         w->keep_offsets = true;
         w->tensors.back().offset -= 60;
       },
       StatusCode::kCorrupt, "relu (Relu): derived constant 0 (tensor 'packed') is at constants offset"},
  };
  for (const Case& c : cases) {
    const Status s = LoadModified(c.damage);
    EXPECT_EQ(s.code(), c.code) << c.name << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(c.message), std::string::npos) << c.name << ": " << s.ToString();
  }
}

// Layouts and memory spaces the format knows pass the verifier; whether a
// node's kernel takes a layout, and whether a device is attached, is the
// engine's check.
TEST(PlanVerifierTest, AcceptsKnownLayoutsAndMemorySpaces) {
  PlanWriter w = testing::SamplePlanWriter();
  w.tensors[kS].layout = 1;        // NHWC
  w.tensors[kR].layout = 2;        // NHWC_PADDED, with padding
  w.tensors[kR].size_bytes = 192;
  w.tensors[kS].memory_space = 1;  // DEVICE_VISIBLE
  const std::vector<uint8_t> bytes = w.Finish();
  std::unique_ptr<PlanFile> file;
  ASSERT_TRUE(PlanFile::FromBuffer(bytes.data(), bytes.size(), &file).ok());
  const plan::Plan* p = nullptr;
  const Status s = VerifyPlanMetadata(file->metadata(), file->metadata_bytes(), file->layout(), &p);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(p->tensors()->Get(kS)->layout(), plan::Layout::NHWC);
  EXPECT_EQ(p->tensors()->Get(kS)->memory_space(), plan::MemorySpace::DEVICE_VISIBLE);
  EXPECT_EQ(p->tensors()->Get(kR)->size_bytes(), 192u);
}

TEST(PlanVerifierTest, RefusesForeignFlatbuffer) {
  PlanWriter w = testing::SamplePlanWriter();
  std::vector<uint8_t> plan = w.Finish();
  const uint64_t at = testing::LoadLe64(plan, testing::kMetadataOffsetAt);
  plan[at + 4] = 'X';  // the file identifier sits at bytes 4..7 of the flatbuffer
  testing::ResealPlan(&plan);
  std::shared_ptr<const Engine> engine;
  const Status s = Engine::LoadFromBuffer(plan.data(), plan.size(), testing::TestKernelRegistry(), &engine);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("file identifier"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace loom
