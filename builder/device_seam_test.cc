// The device seam end to end, with a stand-in accelerator
// (builder/testing/fake_fpga.h): a test-only "fpga.Conv" kernel, a target
// that places Conv on the FPGA, a plan written for it, and the engine loading
// that plan with the fake device attached. The engine must run the FPGA nodes
// through the device (arena from its allocator, KernelArgs::device set) and
// refuse every disagreement about devices with a message naming both sides.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "builder/build_internal.h"
#include "builder/testing/fake_fpga.h"
#include "builder/testing/onnx_models.h"
#include "loom/engine.h"
#include "schemas/plan_checksum.h"
#include "schemas/plan_format.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace {

using testing::OnnxModel;
using testing::TempDir;

bool Contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// x -> Conv -> Relu -> Conv -> y
std::string ConvReluConv(const TempDir& dir) {
  OnnxModel m(13);
  m.Input("x", {1, 2, 5, 5});
  std::vector<float> w1(4 * 2 * 3 * 3), w2(2 * 4 * 1 * 1);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = 0.05f * static_cast<float>(i % 7) - 0.1f;
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = 0.25f * static_cast<float>(i % 3) - 0.2f;
  m.Initializer("w1", {4, 2, 3, 3}, w1);
  m.Initializer("w2", {2, 4, 1, 1}, w2);
  testing::SetIntsAttr(m.Node("Conv", {"x", "w1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c1"}, {"r1"}, "relu1");
  m.Node("Conv", {"r1", "w2"}, {"y"}, "conv2");
  m.Output("y", {1, 2, 5, 5});
  return m.Save(dir.File("m.onnx"));
}

const plan::Plan* Metadata(const std::vector<uint8_t>& bytes) {
  plan::FileHeader h;
  std::memcpy(static_cast<void*>(&h), bytes.data(), sizeof(h));
  return plan::GetPlan(bytes.data() + h.metadata_offset());
}

class DeviceSeamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = ConvReluConv(dir_);
    BuildEnvironment env;
    env.registry = &registry_;
    env.target = target_.get();
    const Status s = BuildPlanIn(env, model_, {}, &plan_, &report_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Loads `plan_` with `options` and runs it on a fixed input; returns y.
  Status LoadAndRun(const LoadOptions& options, std::vector<float>* y, MemoryAllocator* allocator = nullptr) {
    std::shared_ptr<const Engine> engine;
    RETURN_IF_ERROR(Engine::LoadFromBuffer(plan_.data(), plan_.size(), options, &engine));
    return Run(*engine, y, allocator);
  }

  // The fake FPGA's kernels, and a fake device with `fingerprint` (none when empty).
  LoadOptions Options(const KernelRegistry& registry, const std::string& fingerprint = testing::kFakeFpgaFingerprint) {
    LoadOptions options;
    options.registry = &registry;
    if (!fingerprint.empty()) options.device = std::make_shared<testing::FakeFpgaRuntime>(fingerprint);
    return options;
  }

  static Status Run(const Engine& engine, std::vector<float>* y, MemoryAllocator* allocator = nullptr) {
    ContextOptions context_options;
    context_options.allocator = allocator;
    std::unique_ptr<ExecutionContext> ctx;
    RETURN_IF_ERROR(engine.CreateContext(context_options, &ctx));
    std::vector<float> x(2 * 5 * 5);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 11) * 0.3f - 1.f;
    y->assign(2 * 5 * 5, 0.f);
    RETURN_IF_ERROR(ctx->SetInput("x", x.data(), x.size() * sizeof(float)));
    RETURN_IF_ERROR(ctx->SetOutput("y", y->data(), y->size() * sizeof(float)));
    return ctx->Run();
  }

  TempDir dir_;
  std::string model_;
  KernelRegistry registry_ = testing::MakeCpuAndFakeFpgaRegistry();
  std::unique_ptr<place::Target> target_ = testing::MakeFakeFpgaTarget();
  std::vector<uint8_t> plan_;
  BuildReport report_;
};

TEST_F(DeviceSeamTest, PlacesConvOnTheFpgaAndRecordsItInThePlan) {
  EXPECT_EQ(report_.target, "fake-fpga");
  EXPECT_EQ(report_.nodes_by_device, (std::map<std::string, int>{{"fpga", 2}}));
  const plan::Plan* p = Metadata(plan_);
  EXPECT_EQ(p->accelerator_fingerprint()->str(), testing::kFakeFpgaFingerprint);
  // The Relu, placed on the CPU (the FPGA has no Relu kernel), fuses into the
  // FPGA Conv, whose kernel takes the fusion: one node and two hand-overs fewer.
  ASSERT_EQ(p->nodes()->size(), 2u);
  for (const plan::Node* n : *p->nodes()) {
    EXPECT_EQ(n->device(), plan::Device::FPGA) << n->name()->str();
    EXPECT_EQ(n->kernel()->str(), "fpga.Conv");
  }
  ASSERT_NE(p->nodes()->Get(0)->fused(), nullptr);
  EXPECT_EQ(p->nodes()->Get(0)->fused()->Get(0)->str(), "Relu");
  // Every activation an FPGA node touches lives in device-visible memory.
  for (const plan::Tensor* t : *p->tensors()) {
    const bool arena = t->storage() == plan::Storage::ARENA;
    EXPECT_EQ(t->memory_space(), arena ? plan::MemorySpace::DEVICE_VISIBLE : plan::MemorySpace::HOST)
        << t->name()->str();
  }
}

TEST_F(DeviceSeamTest, RunsTheFpgaNodesOnTheAttachedDeviceWithItsMemory) {
  auto device = std::make_shared<testing::FakeFpgaRuntime>();
  LoadOptions options;
  options.registry = &registry_;
  options.device = device;
  const int runs_before = testing::FakeFpgaRunCount();
  std::vector<float> y;
  const Status s = LoadAndRun(options, &y);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(testing::FakeFpgaRunCount() - runs_before, 2);
  EXPECT_EQ(device->allocations(), 1);  // the context's arena

  // Same numbers as a plan built for the CPU alone.
  std::vector<uint8_t> cpu_plan;
  ASSERT_TRUE(BuildPlan(model_, {}, &cpu_plan, nullptr).ok());
  std::shared_ptr<const Engine> cpu_engine;
  ASSERT_TRUE(Engine::LoadFromBuffer(cpu_plan.data(), cpu_plan.size(), &cpu_engine).ok());
  std::vector<float> expected;
  ASSERT_TRUE(Run(*cpu_engine, &expected).ok());
  EXPECT_EQ(y, expected);
}

TEST_F(DeviceSeamTest, AContextCanTakeItsArenaFromAnotherAllocator) {
  auto device = std::make_shared<testing::FakeFpgaRuntime>();
  testing::FakeFpgaRuntime other;
  LoadOptions options;
  options.registry = &registry_;
  options.device = device;
  std::vector<float> y;
  ASSERT_TRUE(LoadAndRun(options, &y, &other.allocator()).ok());
  EXPECT_EQ(device->allocations(), 0);
  EXPECT_EQ(other.allocations(), 1);
  // Plain host memory cannot be device-visible: a clean refusal.
  const Status s = LoadAndRun(options, &y, &HostMemoryAllocator());
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(s.message(), "the activation arena")) << s.ToString();
}

TEST_F(DeviceSeamTest, RefusesAKernelRegisteredOnAnotherDevice) {
  // "fpga.Conv" registered as a CPU kernel: the plan says fpga, the kernel cpu.
  testing::FakeFpgaOptions misregistered;
  misregistered.registered_device = Device::kCpu;
  const KernelRegistry wrong = testing::MakeCpuAndFakeFpgaRegistry(misregistered);
  std::vector<float> y;
  const Status s = LoadAndRun(Options(wrong), &y);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_EQ(s.message(), "conv1 (Conv): placed on fpga but its kernel 'fpga.Conv' runs on cpu");
}

TEST_F(DeviceSeamTest, RefusesAnFpgaKernelOnACpuNode) {
  // Flip conv1's recorded device to cpu: its kernel still runs on the FPGA.
  const plan::Plan* p = Metadata(plan_);
  const auto* conv1 = reinterpret_cast<const flatbuffers::Table*>(p->nodes()->Get(0));
  uint8_t* device = const_cast<uint8_t*>(conv1->GetAddressOf(plan::Node::VT_DEVICE));
  ASSERT_NE(device, nullptr);
  ASSERT_EQ(*device, static_cast<uint8_t>(plan::Device::FPGA));
  *device = static_cast<uint8_t>(plan::Device::CPU);
  // The metadata checksum sits after the magic (8), versions (2+2), header size (4),
  // metadata offset (8) and size (8).
  plan::FileHeader h;
  std::memcpy(static_cast<void*>(&h), plan_.data(), sizeof(h));
  const uint64_t sum = PlanSectionChecksum(h.format_major(), plan_.data() + h.metadata_offset(), h.metadata_bytes());
  std::memcpy(plan_.data() + 32, &sum, sizeof(sum));

  std::vector<float> y;
  const Status s = LoadAndRun(Options(registry_), &y);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_EQ(s.message(), "conv1 (Conv): placed on cpu but its kernel 'fpga.Conv' runs on fpga");
}

TEST_F(DeviceSeamTest, RefusesFpgaNodesWithoutTheirDevice) {
  std::vector<float> y;
  Status s = LoadAndRun(Options(registry_, ""), &y);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "conv1 (Conv): placed on fpga, but no fpga device is attached (allow CPU fallback to run such nodes on "
            "the CPU)");

  s = LoadAndRun(Options(registry_, "fake-fpga-v2"), &y);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "conv1 (Conv): the plan was built for accelerator 'fake-fpga-v1' but the attached device is 'fake-fpga-v2' "
            "(fake-fpga) (allow CPU fallback to run such nodes on the CPU)");
}

}  // namespace
}  // namespace loom
