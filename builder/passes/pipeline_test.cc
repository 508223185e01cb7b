#include "builder/passes/pipeline.h"

#include <gtest/gtest.h>

#include "builder/passes/materialize_outputs.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace passes {
namespace {

// x -> Identity -> Add(., Relu(c)) -> y  plus a dead Relu.
testing::IrBuilder Sample() {
  testing::IrBuilder b;
  const int x = b.Input("x", {2});
  const int c = b.Const("c", {2}, {-1, 1});
  const int i = b.Tensor("i", {2}), r = b.Tensor("r", {2}), y = b.Tensor("y", {2}), d = b.Tensor("d", {2});
  b.Node("Identity", {x}, {i});
  b.Node("Relu", {c}, {r});
  b.Node("Add", {i, r}, {y});
  b.Node("Relu", {x}, {d});
  b.Output(y);
  return b;
}

// Runs both phases of the default pipeline (every node stays on the CPU).
Status RunDefault(testing::IrBuilder& b, const PipelineOptions& options, std::vector<std::string>* applied) {
  KernelRegistry r = testing::MakeFakeRegistry();
  PassContext ctx;
  ctx.registry = &r;
  const Pipeline pipeline = DefaultPipeline();
  RETURN_IF_ERROR(pipeline.Run(Phase::kGraph, options, ctx, b.g, applied));
  return pipeline.Run(Phase::kPostPlacement, options, ctx, b.g, applied);
}

TEST(PipelineTest, ListsEveryPassUnderItsPhase) {
  const Pipeline pipeline = DefaultPipeline();
  std::vector<std::string> graph, pre, post;
  for (const PipelineEntry& e : pipeline.entries()) {
    (e.phase == Phase::kGraph ? graph : e.phase == Phase::kPrePlacement ? pre : post).push_back(e.pass->name());
    EXPECT_FALSE(e.what.empty()) << e.pass->name();
  }
  EXPECT_EQ(graph, (std::vector<std::string>{"eliminate_identity", "fold_constants", "fold_qdq", "fold_dequantized",
                                             "eliminate_dead_nodes", "eliminate_common_subexpressions", "fold_pad",
                                             "fuse_conv_batchnorm", "fuse_layer_norm", "fuse_gelu",
                                             "fold_scale_into_conv", "fuse_bias_add", "fold_transpose"}));
  EXPECT_EQ(pre, (std::vector<std::string>{"space_to_depth_stem", "fuse_swish", "fuse_activation"}));
  EXPECT_EQ(post, (std::vector<std::string>{"fuse_conv_add", "fuse_swish", "fuse_activation", "fuse_elementwise_chain",
                                            "layout_nchwc", "fold_channel_scale"}));
  EXPECT_STREQ(PhaseName(Phase::kPrePlacement), "pre-placement");
  EXPECT_STREQ(PhaseName(Phase::kPostPlacement), "post-placement");
}

TEST(PipelineTest, EachPhaseRunsOnlyItsPasses) {
  // Conv -> Relu: fuse_activation is post-placement, so the graph phase leaves
  // it alone.
  testing::IrBuilder b;
  const int x = b.Input("x", {1, 1, 2, 2});
  const int w = b.Const("w", {1, 1, 1, 1}, {2});
  const int c = b.Tensor("c", {1, 1, 2, 2}), y = b.Tensor("y", {1, 1, 2, 2});
  b.Node("Conv", {x, w}, {c});
  b.Node("Relu", {c}, {y});
  b.Output(y);
  KernelRegistry r = testing::MakeFakeRegistry();
  PassContext ctx;
  ctx.registry = &r;
  const Pipeline pipeline = DefaultPipeline();
  std::vector<std::string> applied;
  ASSERT_TRUE(pipeline.Run(Phase::kGraph, {}, ctx, b.g, &applied).ok());
  EXPECT_EQ(b.g.nodes().size(), 2u);
  ASSERT_TRUE(pipeline.Run(Phase::kPostPlacement, {}, ctx, b.g, &applied).ok());
  EXPECT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(applied, (std::vector<std::string>{"fuse_activation: 1 nodes"}));
}

TEST(PipelineTest, AllPassesAtTheDefaultLevel) {
  testing::IrBuilder b = Sample();
  std::vector<std::string> applied;
  ASSERT_TRUE(RunDefault(b, {}, &applied).ok());
  EXPECT_EQ(applied, (std::vector<std::string>{"eliminate_identity: 1 nodes", "fold_constants: 1 nodes",
                                               "eliminate_dead_nodes: 1 nodes"}));
  ASSERT_EQ(b.g.nodes().size(), 1u);
  EXPECT_EQ(b.g.node(0).op, "Add");
}

TEST(PipelineTest, O0AndDisabledPasses) {
  testing::IrBuilder b = Sample();
  std::vector<std::string> applied;
  PipelineOptions o0;
  o0.opt_level = 0;
  ASSERT_TRUE(RunDefault(b, o0, &applied).ok());
  EXPECT_EQ(applied, (std::vector<std::string>{"eliminate_dead_nodes: 1 nodes"}));
  EXPECT_EQ(b.g.nodes().size(), 3u);  // only the dead node is gone
  EXPECT_NE(b.FindNode("Identity"), nullptr);

  testing::IrBuilder c = Sample();
  applied.clear();
  PipelineOptions disabled;
  disabled.disabled = {"fold_constants", "eliminate_identity"};
  ASSERT_TRUE(RunDefault(c, disabled, &applied).ok());
  EXPECT_EQ(applied, (std::vector<std::string>{"eliminate_dead_nodes: 1 nodes"}));
  EXPECT_EQ(c.g.nodes().size(), 3u);

  PipelineOptions unknown;
  unknown.disabled = {"fold_everything"};
  Status s = RunDefault(c, unknown, &applied);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown pass 'fold_everything'"), std::string::npos) << s.message();
}

TEST(MaterializeOutputsTest, ConstantAndInputOutputsGetCopies) {
  testing::IrBuilder b;
  const int x = b.Input("x", {2});
  const int c = b.Const("c", {2}, {3, 4});
  const int y = b.Tensor("y", {2});
  b.Node("Add", {x, c}, {y});
  b.Output(y);
  b.Output(c);
  b.Output(x);
  EXPECT_EQ(MaterializeConstantOutputs(&b.g, 13), 2);
  ASSERT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  ASSERT_EQ(b.g.nodes().size(), 3u);
  const ir::Value& out_c = b.g.value(b.g.outputs()[1]);
  EXPECT_EQ(out_c.name, "c");
  EXPECT_FALSE(out_c.is_constant());
  EXPECT_TRUE(b.g.value(b.g.node(0).inputs[1]).is_constant());  // Add reads the constant copy
  EXPECT_FALSE(b.g.IsGraphInput(b.g.outputs()[2]));
  EXPECT_EQ(b.g.value(b.g.outputs()[2]).name, "x");
  EXPECT_EQ(b.g.node(2).op, "Identity");
  EXPECT_EQ(b.g.node(2).opset, 13);
}

}  // namespace
}  // namespace passes
}  // namespace loom
