#include "builder/place/timing_cache.h"

#include <gtest/gtest.h>

#include "builder/memory/arena_plan.h"
#include "builder/memory/memory_spaces.h"
#include "builder/place/kernel_selection.h"
#include "builder/place/placer.h"
#include "builder/place/target.h"
#include "builder/plan/plan_writer.h"
#include "builder/testing/int8_layers.h"
#include "builder/testing/onnx_models.h"
#include "loom/engine.h"
#include "tools/tensor_io/file_util.h"

namespace loom {
namespace place {
namespace {

using testing::IrBuilder;

// Places `b`'s graph on the CPU, writes the plan and loads it.
std::shared_ptr<const Engine> PlanAndLoad(IrBuilder* b) {
  std::unique_ptr<Target> cpu;
  EXPECT_TRUE(MakeTarget("cpu", &cpu).ok());
  Status s = PlaceNodes(&b->g, *cpu, KernelRegistry::Global());
  if (s.ok()) s = SelectKernels(&b->g, *cpu, KernelRegistry::Global());
  memory::AssignMemorySpaces(&b->g);
  memory::ArenaPlan arena;
  if (s.ok()) s = memory::PlanArena(b->g, memory::PlannerKind::kGreedy, &arena);
  plan_writer::PlanInfo info;
  info.producer = "loom";
  info.model_hash = "0";
  plan_writer::WrittenPlan plan;
  if (s.ok()) s = plan_writer::WritePlan(b->g, arena, info, &plan);
  std::shared_ptr<const Engine> engine;
  if (s.ok()) s = Engine::LoadFromBuffer(plan.bytes.data(), plan.bytes.size(), &engine);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return engine;
}

// x -> Conv(+Relu, fused) -> Clip(no min) -> y, and an int8 Conv beside it.
IrBuilder SignatureGraph() {
  IrBuilder b;
  const int x = b.Input("x", {1, 3, 8, 8});
  const int w = b.Const("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  const int bias = b.Const("bias", {4}, {0, 1, 2, 3});
  const int c = b.Tensor("c", {1, 4, 6, 6});
  const int conv = b.Node("Conv", {x, w, bias}, {c}, "conv");
  b.node(conv).attrs.SetString("loom.activation", "Relu");
  b.node(conv).fused = {"Relu"};
  const int max = b.Const("max", {}, {6});
  const int y = b.Tensor("y", {1, 4, 6, 6});
  b.Node("Clip", {c, -1, max}, {y}, "clip");
  b.Output(y);
  testing::Int8Layers l(&b);
  b.Output(l.Conv(l.Input("q", {1, 8, 5, 5}), 16, 3, 2, 1, "qconv"));
  return b;
}

TEST(TimingCacheTest, IrNodesAndPlanNodesHaveOneSignature) {
  IrBuilder b = SignatureGraph();
  const std::shared_ptr<const Engine> engine = PlanAndLoad(&b);
  ASSERT_NE(engine, nullptr);
  ASSERT_EQ(engine->nodes().size(), b.g.nodes().size());
  for (size_t i = 0; i < b.g.nodes().size(); ++i) {
    const NodeDesc& d = engine->nodes()[i];
    EXPECT_EQ(NodeSignatureOf(b.g, b.g.node(static_cast<int>(i))),
              NodeSignature(d.op, d.fused, d.input_dtypes, d.input_shapes, d.output_dtypes, d.output_shapes))
        << d.name;
  }
  EXPECT_EQ(NodeSignatureOf(b.g, b.g.node(0)),
            "Conv+Relu(float32 1x3x8x8, float32 4x3x3x3, float32 4 -> float32 1x4x6x6)");
  EXPECT_EQ(NodeSignatureOf(b.g, b.g.node(1)), "Clip(float32 1x4x6x6, -, float32 scalar -> float32 1x4x6x6)");
}

TEST(TimingCacheTest, CpuTimesComeFromTheCacheWhereItHasThem) {
  IrBuilder b = SignatureGraph();
  TimingCache cache;
  cache.cpu = "Cortex-A9";
  cache.nodes[NodeSignatureOf(b.g, b.g.node(0))] = {0.75, "conv"};
  testing::TempDir dir;
  const std::string text = SerializeTimingCache(cache);
  TargetOptions options;
  options.timing_cache = dir.File("cache.json");
  ASSERT_TRUE(WriteWholeFile(options.timing_cache, text.data(), text.size()).ok());
  for (const char* name : {"cpu", "fpga16"}) {
    std::unique_ptr<Target> target, plain;
    ASSERT_TRUE(MakeTarget(name, options, &target).ok()) << name;
    ASSERT_TRUE(MakeTarget(name, &plain).ok()) << name;
    EXPECT_EQ(target->cost_model().NodeMs(b.g, b.g.node(0), Device::kCpu), 0.75) << name;
    // Before fuse_activation the placer sees "Conv" where the plan ran "Conv+Relu".
    ir::Node unfused = b.g.node(0);
    unfused.fused.clear();
    EXPECT_EQ(target->cost_model().NodeMs(b.g, unfused, Device::kCpu), 0.75) << name;
    // A node the cache lacks: the target's default.
    EXPECT_EQ(target->cost_model().NodeMs(b.g, b.g.node(1), Device::kCpu),
              plain->cost_model().NodeMs(b.g, b.g.node(1), Device::kCpu))
        << name;
  }
}

}  // namespace
}  // namespace place
}  // namespace loom
