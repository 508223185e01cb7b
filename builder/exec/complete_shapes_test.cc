#include "builder/exec/complete_shapes.h"

#include <gtest/gtest.h>

#include "builder/exec/kernel_choice.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace exec {
namespace {

using testing::IrBuilder;

TEST(CompleteShapesTest, FoldsAShapeChainToSettleReshape) {
  KernelRegistry r = testing::MakeFakeRegistry();
  IrBuilder b;
  const int x = b.Input("x", {2, 6});
  const int sh = b.Tensor("sh", {}, DType::kInt64, false);
  const int cast = b.Tensor("cast", {}, DType::kInt64, false);
  const int z = b.Tensor("z", {}, DType::kFloat32, false);
  const int y = b.Tensor("y", {}, DType::kFloat32, false);
  const int target = b.ConstInt64("target", {3}, {3, 2, 2});
  b.Node("Shape", {x}, {sh});
  b.Node("Cast", {sh}, {cast});
  b.Node("Reshape", {x, cast}, {z});      // shape from the folded chain: 2x6
  b.Node("Reshape", {z, target}, {y});    // constant shape: 3x2x2
  b.Output(y);
  testing::ResetFakeRunCount();
  ASSERT_TRUE(CompleteShapes(&b.g, r).ok());
  EXPECT_EQ(testing::FakeRunCount(), 1);  // the Cast ran; Shape folds without a kernel
  EXPECT_EQ(b.g.value(z).shape, (Shape{2, 6}));
  EXPECT_EQ(b.g.value(y).shape, (Shape{3, 2, 2}));
  EXPECT_TRUE(b.g.value(cast).is_constant());
  ASSERT_EQ(b.g.nodes().size(), 2u);  // Shape and Cast were folded
  EXPECT_TRUE(b.g.Validate().ok());
}

TEST(CompleteShapesTest, UnresolvableShapeNamesTensorNodeAndOp) {
  KernelRegistry r = testing::MakeFakeRegistry();
  IrBuilder b;
  const int x = b.Input("x", {2, 6});
  const int s = b.Input("s", {2}, DType::kInt64);
  const int y = b.Tensor("y", {}, DType::kFloat32, false);
  b.Node("Reshape", {x, s}, {y}, "reshape1");
  b.Output(y);
  Status st = CompleteShapes(&b.g, r);
  ASSERT_FALSE(st.ok());
  // The label once, then the output and the kernel's bare reason.
  EXPECT_EQ(st.message().rfind("reshape1 (Reshape): cannot infer the shape of output 'y': ", 0), 0u) << st.message();
  EXPECT_EQ(st.message().find("(Reshape)", 20), std::string::npos) << st.message();

  IrBuilder c;
  const int cx = c.Input("x", {2});
  const int cy = c.Tensor("y", {}, DType::kFloat32, false);
  c.Node("Mystery", {cx}, {cy}, "m1");
  c.Output(cy);
  st = CompleteShapes(&c.g, r);
  EXPECT_EQ(st.code(), StatusCode::kUnsupported);
  EXPECT_EQ(st.message(), "m1 (Mystery): unsupported op 'Mystery'");
}

TEST(KernelChoiceTest, FirstAcceptingCandidateAndErrors) {
  KernelRegistry r = testing::MakeFakeRegistry();
  r.AddCpu("Relu", testing::MakeFakeRegistry().FindById("cpu.Broken")->create, "never");
  IrBuilder b;
  const int x = b.Input("x", {2});
  const int y = b.Tensor("y", {2});
  b.Node("Relu", {x}, {y}, "r");
  ChosenKernel chosen;
  ASSERT_TRUE(ChooseKernel(r, MakeKernelSetup(b.g, b.g.node(0)), Device::kCpu, &chosen).ok());
  EXPECT_EQ(chosen.def->id, "cpu.Relu");

  b.node(0).op = "Broken";
  Status s = ChooseKernel(r, MakeKernelSetup(b.g, b.g.node(0)), Device::kCpu, &chosen);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  // Kernel choice returns the kernel's bare message; its caller labels it.
  EXPECT_EQ(s.message(), "unsupported mode 'whatever'");

  b.node(0).op = "Foo";
  s = ChooseKernel(r, MakeKernelSetup(b.g, b.g.node(0)), Device::kCpu, &chosen);
  EXPECT_EQ(s.message(), "unsupported op 'Foo'");
}

}  // namespace
}  // namespace exec
}  // namespace loom
