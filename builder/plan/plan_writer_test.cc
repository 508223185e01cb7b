#include "builder/plan/plan_writer.h"

#include <gtest/gtest.h>

#include <cstring>

#include "builder/testing/ir_builder.h"
#include "schemas/plan_checksum.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace plan_writer {
namespace {

struct Sample {
  testing::IrBuilder b;
  int x, w, y, z;
  Sample() {
    x = b.Input("x", {2, 3});
    w = b.Const("w", {2, 3}, {1, 2, 3, 4, 5, 6});
    y = b.Tensor("y", {2, 3});
    z = b.Tensor("z", {2, 3});
    const int w_alias = b.g.AddConstant("w_alias", DType::kFloat32, {2, 3}, b.g.value(w).data);
    const int n0 = b.Node("Add", {x, w}, {y}, "add");
    ir::Node& add = b.node(n0);
    add.kernel_id = "cpu.Add";
    add.placement_reason = "cpu: no accelerator configured";
    add.predicted_ms = 0.25;
    add.fallback_kernel_id = "cpu.Add.fallback";
    add.fused = {"Relu"};
    add.attrs.SetString("loom.activation", "Relu");
    add.attrs.SetInts("axes", {0, -1});
    add.attrs.SetFloats("scales", {0.5f});
    Attribute t;
    t.name = "value";
    t.kind = Attribute::Kind::kTensor;
    auto tensor = std::make_shared<AttrTensor>();
    tensor->dtype = DType::kInt64;
    tensor->dims = {1};
    tensor->data.assign(8, 0);
    tensor->data[0] = 7;
    t.tensor = tensor;
    add.attrs.Set(t);
    b.g.value(y).layout = Layout::kNhwc;
    b.g.value(y).memory_space = MemorySpace::kDeviceVisible;
    const int n1 = b.Node("Mul", {y, w_alias, -1}, {z}, "mul");
    b.node(n1).kernel_id = "cpu.Mul";
    b.node(n1).opset = 13;
    b.Output(z);
  }
};

PlanInfo MinimalInfo() {
  PlanInfo info;
  info.producer = "loom";
  info.model_hash = "0";
  return info;
}

TEST(PlanWriterTest, RoundTrip) {
  Sample s;
  memory::ArenaPlan arena;
  ASSERT_TRUE(memory::PlanArena(s.b.g, memory::PlannerKind::kGreedy, &arena).ok());
  PlanInfo info;
  info.producer = "loom 9.9.9";
  info.model_hash = HashToHex(0x1234abcdull);
  info.model_producer = "pytorch 1.13.1";
  info.accelerator_fingerprint = "fpga 8x8 v1";
  info.target = "fpga16";
  info.clock_mhz = 150;
  info.boundaries.push_back({s.y, Device::kFpga, Device::kCpu, 0.5});
  WrittenPlan out;
  ASSERT_TRUE(WritePlan(s.b.g, arena, info, &out).ok());
  const std::vector<uint8_t>& bytes = out.bytes;

  plan::FileHeader h;
  ASSERT_GE(bytes.size(), sizeof(h));
  std::memcpy(static_cast<void*>(&h), bytes.data(), sizeof(h));
  EXPECT_EQ(std::memcmp(h.magic()->data(), kPlanMagic, 8), 0);
  EXPECT_EQ(h.format_major(), kPlanFormatMajor);
  EXPECT_EQ(h.format_minor(), kPlanFormatMinor);
  EXPECT_EQ(h.header_bytes(), 64u);
  EXPECT_EQ(h.metadata_offset(), 64u);
  EXPECT_EQ(h.constants_offset() % 64, 0u);
  EXPECT_GE(h.constants_offset(), h.metadata_offset() + h.metadata_bytes());
  EXPECT_EQ(h.constants_offset() + h.constants_bytes(), bytes.size());
  EXPECT_EQ(h.metadata_checksum(), PlanSectionChecksum(h.format_major(), bytes.data() + 64, h.metadata_bytes()));
  EXPECT_EQ(h.constants_checksum(),
            PlanSectionChecksum(h.format_major(), bytes.data() + h.constants_offset(), h.constants_bytes()));
  for (size_t i = h.metadata_offset() + h.metadata_bytes(); i < h.constants_offset(); ++i)
    ASSERT_EQ(bytes[i], 0) << "padding byte " << i;

  const uint8_t* meta = bytes.data() + h.metadata_offset();
  flatbuffers::Verifier verifier(meta, h.metadata_bytes());
  ASSERT_TRUE(plan::VerifyPlanBuffer(verifier));
  const plan::Plan* p = plan::GetPlan(meta);
  EXPECT_EQ(p->format_major(), kPlanFormatMajor);
  EXPECT_EQ(p->producer()->str(), "loom 9.9.9");
  EXPECT_EQ(p->model_hash()->str(), "000000001234abcd");
  EXPECT_EQ(p->model_producer()->str(), "pytorch 1.13.1");
  EXPECT_EQ(p->accelerator_fingerprint()->str(), "fpga 8x8 v1");
  EXPECT_EQ(p->target()->str(), "fpga16");
  EXPECT_EQ(p->clock_mhz(), 150.0f);
  ASSERT_NE(p->boundaries(), nullptr);
  ASSERT_EQ(p->boundaries()->size(), 1u);
  EXPECT_EQ(p->tensors()->Get(p->boundaries()->Get(0)->tensor())->name()->str(), "y");
  EXPECT_EQ(p->boundaries()->Get(0)->from(), plan::Device::FPGA);
  EXPECT_EQ(p->boundaries()->Get(0)->to(), plan::Device::CPU);
  EXPECT_EQ(p->boundaries()->Get(0)->predicted_ms(), 0.5f);
  EXPECT_EQ(p->nodes()->Get(0)->predicted_ms(), 0.25f);
  EXPECT_EQ(p->nodes()->Get(0)->fallback_kernel()->str(), "cpu.Add.fallback");
  EXPECT_EQ(p->nodes()->Get(1)->fallback_kernel(), nullptr);
  EXPECT_EQ(p->arena_bytes(), arena.arena_bytes);
  EXPECT_EQ(p->constants_bytes(), h.constants_bytes());
  EXPECT_EQ(p->constants_bytes(), 24u);  // w and w_alias share one buffer, stored once
  ASSERT_EQ(p->tensors()->size(), 5u);   // x, w, y, w_alias, z
  ASSERT_EQ(p->inputs()->size(), 1u);
  ASSERT_EQ(p->outputs()->size(), 1u);
  const plan::Tensor* x = p->tensors()->Get(p->inputs()->Get(0));
  EXPECT_EQ(x->name()->str(), "x");
  EXPECT_EQ(x->storage(), plan::Storage::ARENA);
  EXPECT_EQ(x->size_bytes(), 24u);
  EXPECT_EQ(x->offset() % 64, 0u);
  EXPECT_EQ(x->layout(), plan::Layout::ROW_MAJOR);
  EXPECT_EQ(x->memory_space(), plan::MemorySpace::HOST);
  EXPECT_EQ(p->tensors()->Get(p->outputs()->Get(0))->name()->str(), "z");

  ASSERT_EQ(p->nodes()->size(), 2u);
  const plan::Node* add = p->nodes()->Get(0);
  EXPECT_EQ(add->kernel()->str(), "cpu.Add");
  EXPECT_EQ(add->placement_reason()->str(), "cpu: no accelerator configured");
  ASSERT_EQ(add->fused()->size(), 1u);
  EXPECT_EQ(add->fused()->Get(0)->str(), "Relu");
  const plan::Tensor* w = p->tensors()->Get(add->inputs()->Get(1));
  EXPECT_EQ(w->storage(), plan::Storage::CONSTANT);
  EXPECT_EQ(w->offset() % 64, 0u);
  float w_data[6];
  std::memcpy(w_data, bytes.data() + h.constants_offset() + w->offset(), sizeof(w_data));
  EXPECT_EQ(w_data[5], 6.f);
  ASSERT_EQ(add->attributes()->size(), 4u);
  for (const plan::Attribute* a : *add->attributes()) {
    if (a->name()->str() == "loom.activation") {
      EXPECT_EQ(a->kind(), plan::AttributeKind::STRING);
      EXPECT_EQ(a->s()->str(), "Relu");
    } else if (a->name()->str() == "axes") {
      EXPECT_EQ(a->kind(), plan::AttributeKind::INTS);
      EXPECT_EQ(a->ints()->Get(1), -1);
    } else if (a->name()->str() == "value") {
      EXPECT_EQ(a->kind(), plan::AttributeKind::TENSOR);
      EXPECT_EQ(a->tensor()->dtype(), plan::DType::INT64);
      EXPECT_EQ(a->tensor()->data()->Get(0), 7);
    } else {
      EXPECT_EQ(a->name()->str(), "scales");
      EXPECT_EQ(a->floats()->Get(0), 0.5f);
    }
  }
  const plan::Tensor* y = p->tensors()->Get(add->outputs()->Get(0));
  EXPECT_EQ(y->name()->str(), "y");
  EXPECT_EQ(y->layout(), plan::Layout::NHWC);
  EXPECT_EQ(y->memory_space(), plan::MemorySpace::DEVICE_VISIBLE);
  EXPECT_EQ(y->size_bytes(), 24u);
  EXPECT_EQ(w->memory_space(), plan::MemorySpace::HOST);
  const plan::Node* mul = p->nodes()->Get(1);
  EXPECT_EQ(mul->opset(), 13);
  ASSERT_EQ(mul->inputs()->size(), 3u);
  EXPECT_EQ(mul->inputs()->Get(2), -1);
  EXPECT_EQ(p->tensors()->Get(mul->inputs()->Get(1))->offset(), w->offset());
}

TEST(PlanWriterTest, FlippedByteChangesAChecksum) {
  Sample s;
  memory::ArenaPlan arena;
  ASSERT_TRUE(memory::PlanArena(s.b.g, memory::PlannerKind::kGreedy, &arena).ok());
  WrittenPlan out;
  ASSERT_TRUE(WritePlan(s.b.g, arena, MinimalInfo(), &out).ok());
  plan::FileHeader h;
  std::memcpy(static_cast<void*>(&h), out.bytes.data(), sizeof(h));
  out.bytes[h.constants_offset() + 3] ^= 1;
  EXPECT_NE(h.constants_checksum(),
            PlanSectionChecksum(h.format_major(), out.bytes.data() + h.constants_offset(), h.constants_bytes()));
}

TEST(PlanWriterTest, RefusesDeviceVisibleConstant) {
  Sample s;
  s.b.g.value(s.w).memory_space = MemorySpace::kDeviceVisible;
  memory::ArenaPlan arena;
  ASSERT_TRUE(memory::PlanArena(s.b.g, memory::PlannerKind::kGreedy, &arena).ok());
  WrittenPlan out;
  const Status st = WritePlan(s.b.g, arena, MinimalInfo(), &out);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("constant 'w' is marked device_visible"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace plan_writer
}  // namespace loom
