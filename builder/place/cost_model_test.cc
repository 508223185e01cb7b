#include "builder/place/cost_model.h"

#include <gtest/gtest.h>

#include "builder/testing/ir_builder.h"

namespace loom {
namespace place {
namespace {

using testing::IrBuilder;

TEST(CostModelTest, ConvMacsCountChannelsAndTapsPerOutput) {
  for (bool integer : {false, true}) {
    const char* op = integer ? "ConvInteger" : "Conv";
    const DType in = integer ? DType::kUInt8 : DType::kFloat32, out = integer ? DType::kInt32 : DType::kFloat32;
    IrBuilder b;
    const int x = b.Input("x", {1, 4, 8, 8}, in);
    const int w = b.Tensor("w", {6, 2, 3, 3}, in);
    const int y = b.Tensor("y", {1, 6, 6, 6}, out);
    const int node = b.Node(op, {x, w}, {y});
    EXPECT_EQ(NodeMacs(b.g, b.node(node)), 6.0 * 36 * 2 * 9) << op;
  }
}

TEST(CostModelTest, MatMulMacsCountTheReductionPerOutput) {
  for (bool integer : {false, true}) {
    const char* op = integer ? "MatMulInteger" : "MatMul";
    const DType in = integer ? DType::kInt8 : DType::kFloat32, out = integer ? DType::kInt32 : DType::kFloat32;
    IrBuilder b;
    const int a = b.Input("a", {2, 3, 5}, in);
    const int w = b.Tensor("b", {5, 7}, in);
    const int y = b.Tensor("y", {2, 3, 7}, out);
    const int node = b.Node(op, {a, w}, {y});
    EXPECT_EQ(NodeMacs(b.g, b.node(node)), 2.0 * 3 * 7 * 5) << op;
  }
}

}  // namespace
}  // namespace place
}  // namespace loom
