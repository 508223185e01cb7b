#include "builder/passes/space_to_depth_stem.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "builder/place/target.h"
#include "builder/testing/int8_fpga_model.h"
#include "builder/testing/ir_builder.h"
#include "kernels/fpga/kernels/fpga_kernels.h"

namespace loom {
namespace passes {
namespace {

using testing::IrBuilder;

std::unique_ptr<place::Target> Fpga16() {
  std::unique_ptr<place::Target> target;
  EXPECT_TRUE(place::MakeTarget("fpga16", &target).ok());
  return target;
}

int RunPass(ir::Graph& g, const place::Target* target) {
  PassContext ctx;
  ctx.registry = &fpga::FpgaKernelRegistry();
  ctx.target = target;
  int changes = 0;
  EXPECT_TRUE(MakeSpaceToDepthStem()->Run(g, ctx, &changes).ok());
  g.Compact();
  EXPECT_TRUE(g.Validate().ok()) << g.Validate().message();
  return changes;
}

// An int8 Conv x[1,c,hw,hw] -> y[1,16,out,out] with weights w[16,c,k,k].
struct Int8Conv {
  IrBuilder b;
  int x, w, y;
  Int8Conv(int64_t c, int64_t hw, int64_t k, int64_t stride, int64_t pad) {
    x = b.Input("x", {1, c, hw, hw}, DType::kInt8);
    const int64_t out = (hw + 2 * pad - k) / stride + 1;
    y = b.Tensor("y", {1, 16, out, out}, DType::kInt8);
    std::vector<int8_t> weights(static_cast<size_t>(16 * c * k * k));
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<int8_t>(i * 7 % 255 - 127);
    w = b.g.AddConstant("w", DType::kInt8, {16, c, k, k}, ir::Buffer::CopyOf(weights.data(), weights.size()));
    b.g.value(x).quant = QuantParams{{0.05f}, {3}, 0};
    b.g.value(y).quant = QuantParams{{0.1f}, {-2}, 0};
    b.g.value(w).quant = QuantParams{std::vector<float>(16, 0.01f), std::vector<int64_t>(16, 0), 0};
    const std::vector<int32_t> bias(16, 100);
    const int bias_id =
        b.g.AddConstant("b", DType::kInt32, {16}, ir::Buffer::CopyOf(bias.data(), 16 * sizeof(int32_t)));
    b.g.value(bias_id).quant = QuantParams{std::vector<float>(16, 0.0005f), std::vector<int64_t>(16, 0), 0};
    const int conv = b.Node("Conv", {x, w, bias_id}, {y}, "stem");
    b.node(conv).attrs.SetInts("kernel_shape", {k, k});
    b.node(conv).attrs.SetInts("strides", {stride, stride});
    b.node(conv).attrs.SetInts("pads", {pad, pad, pad, pad});
    b.Output(y);
  }
};

TEST(SpaceToDepthStemTest, RewritesAThreeChannelStrideTwoStem) {
  const std::unique_ptr<place::Target> target = Fpga16();
  Int8Conv c(3, 32, 7, 2, 3);
  ASSERT_EQ(RunPass(c.b.g, target.get()), 1);
  ASSERT_EQ(c.b.g.nodes().size(), 3u);
  EXPECT_EQ(c.b.g.node(0).op, "Pad");
  EXPECT_EQ(c.b.g.node(1).op, "SpaceToDepth");
  const ir::Node& conv = c.b.g.node(2);
  EXPECT_EQ(conv.op, "Conv");
  EXPECT_EQ(conv.name, "stem");
  EXPECT_EQ(conv.outputs[0], c.y);
  EXPECT_EQ(conv.attrs.GetInts("kernel_shape"), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(conv.attrs.GetInts("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv.attrs.GetInts("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  const ir::Value& x = c.b.g.value(conv.inputs[0]);
  EXPECT_EQ(x.shape, (Shape{1, 12, 19, 19}));  // 32 + 3 + 3 = 38 rows: 16 - 1 + 4 blocks of 2
  EXPECT_EQ(x.quant.zero_point, (std::vector<int64_t>{3}));
  const ir::Value& w = c.b.g.value(conv.inputs[1]);
  ASSERT_EQ(w.shape, (Shape{16, 12, 4, 4}));
  EXPECT_EQ(w.quant.scale.size(), 16u);
  // Tap (qy, qx) of channel (by*2+bx)*3+c is w[c, 2qy+by, 2qx+bx]: spot-check
  // w[o=1, c=2, ky=5, kx=2] (by 1, bx 0, qy 2, qx 1), and a zero tap past 7.
  const int8_t* old_w = c.b.g.value(c.w).data->as<int8_t>();
  const int8_t* new_w = w.data->as<int8_t>();
  EXPECT_EQ(new_w[((1 * 12 + (1 * 2 + 0) * 3 + 2) * 4 + 2) * 4 + 1], old_w[((1 * 3 + 2) * 7 + 5) * 7 + 2]);
  EXPECT_EQ(new_w[((1 * 12 + (1 * 2 + 1) * 3 + 2) * 4 + 3) * 4 + 3], 0);  // ky = kx = 7
  const ir::Node& pad = c.b.g.node(0);
  const int64_t* pads = c.b.g.value(pad.inputs[1]).data->as<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(pads, pads + 8), (std::vector<int64_t>{0, 0, 3, 3, 0, 0, 3, 3}));
  EXPECT_EQ(c.b.g.value(pad.inputs[2]).data->as<int8_t>()[0], 3);  // the input's zero point
}

TEST(SpaceToDepthStemTest, LeavesOtherConvsAndCpuTargetsAlone) {
  const std::unique_ptr<place::Target> target = Fpga16();
  Int8Conv wide(32, 16, 3, 2, 1);  // 32 channels already fill the array's rows
  EXPECT_EQ(RunPass(wide.b.g, target.get()), 0);
  Int8Conv unit_stride(3, 16, 3, 1, 1);
  EXPECT_EQ(RunPass(unit_stride.b.g, target.get()), 0);
  Int8Conv asymmetric_weights(3, 32, 7, 2, 3);  // zero taps would not add 0
  asymmetric_weights.b.g.value(asymmetric_weights.w).quant.zero_point.assign(16, 1);
  EXPECT_EQ(RunPass(asymmetric_weights.b.g, target.get()), 0);
  Int8Conv no_accelerator(3, 32, 7, 2, 3);
  EXPECT_EQ(RunPass(no_accelerator.b.g, nullptr), 0);
  std::unique_ptr<place::Target> cpu;
  ASSERT_TRUE(place::MakeTarget("cpu", &cpu).ok());
  EXPECT_EQ(RunPass(no_accelerator.b.g, cpu.get()), 0);
}

// Whole builds: the fpga16 plan (rewritten stem on the accelerator) gives
// the same bits as the CPU int8 plan (the stem as it was), on the
// accelerator's model and on the CPU fallbacks.
struct StemCase {
  int64_t hw, k, pad, out_channels;
};

std::string SaveStemModel(const testing::TempDir& dir, const StemCase& c, int64_t out) {
  testing::OnnxModel m(13);
  m.Input("x", {1, 3, c.hw, c.hw});
  m.Initializer("w", {c.out_channels, 3, c.k, c.k},
                testing::RandomFloats(static_cast<size_t>(c.out_channels * 3 * c.k * c.k), 5, -0.3f, 0.3f));
  m.Initializer("b", {c.out_channels}, testing::RandomFloats(static_cast<size_t>(c.out_channels), 6, -0.1f, 0.1f));
  onnx::NodeProto* conv = m.Node("Conv", {"x", "w", "b"}, {"c"}, "stem");
  testing::SetIntsAttr(conv, "strides", {2, 2});
  testing::SetIntsAttr(conv, "pads", {c.pad, c.pad, c.pad, c.pad});
  m.Node("Relu", {"c"}, {"y"}, "relu");
  m.Output("y", {1, c.out_channels, out, out});
  return m.Save(dir.File("model.onnx"));
}

TEST(SpaceToDepthStemTest, PlansMatchTheCpuPlanBitForBit) {
  for (const StemCase& c : {StemCase{32, 7, 3, 16}, StemCase{31, 7, 3, 24}, StemCase{30, 3, 1, 32}}) {
    SCOPED_TRACE("input " + std::to_string(c.hw) + ", kernel " + std::to_string(c.k));
    const int64_t out = (c.hw + 2 * c.pad - c.k) / 2 + 1;
    testing::TempDir dir;
    const std::string model = SaveStemModel(dir, c, out);
    ASSERT_TRUE(testing::SaveCalibrationSamples(dir.File("calib"), {4, 3, c.hw, c.hw}, 7).ok());
    const std::unique_ptr<place::Target> target = Fpga16();
    testing::Int8FpgaPlans plans;
    const Status built = testing::BuildInt8Plans(model, dir.File("calib"), BuildOptions(), *target, &plans);
    ASSERT_TRUE(built.ok()) << built.ToString();
    const BuildReport& report = plans.report;
    const std::vector<uint8_t>& cpu_plan = plans.cpu;
    const std::vector<uint8_t>& fpga_plan = plans.fpga;
    bool rewritten = false;
    for (const std::string& p : report.passes_applied) rewritten |= p.rfind("space_to_depth_stem", 0) == 0;
    EXPECT_TRUE(rewritten);

    const size_t y_floats = static_cast<size_t>(c.out_channels * out * out);
    const std::vector<float> x = testing::RandomFloats(static_cast<size_t>(3 * c.hw * c.hw), 9, -1.f, 1.f);
    const testing::PlanRun want = testing::RunPlan(cpu_plan, x, nullptr, false, y_floats);
    ASSERT_TRUE(want.status.ok()) << want.status.ToString();
    const testing::PlanRun accel = testing::RunPlan(fpga_plan, x, testing::OpenModelRuntime(), false, y_floats);
    ASSERT_TRUE(accel.status.ok()) << accel.status.ToString();
    EXPECT_TRUE(testing::SameBits(accel.y, want.y));
    const testing::PlanRun fallback = testing::RunPlan(fpga_plan, x, nullptr, true, y_floats);
    ASSERT_TRUE(fallback.status.ok()) << fallback.status.ToString();
    EXPECT_TRUE(testing::SameBits(fallback.y, want.y));
  }
}

}  // namespace
}  // namespace passes
}  // namespace loom
