#include "builder/ir/graph_dot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace loom {
namespace ir {
namespace {

int AddTensor(Graph& g, const std::string& name, Shape shape) {
  Value v;
  v.name = name;
  v.dtype = DType::kFloat32;
  v.shape = std::move(shape);
  v.shape_known = true;
  return g.AddValue(v);
}

// x -> Conv (W constant, fused Relu) -> "y \"quoted\"" -> Sigmoid -> z
Graph SmallGraph() {
  Graph g;
  const int x = AddTensor(g, "x", {1, 2, 4, 4});
  const int w = g.AddConstant("w", DType::kFloat32, {3, 2, 1, 1}, Buffer::Allocate(6 * sizeof(float)));
  const int y = AddTensor(g, "y \"quoted\"", {1, 3, 4, 4});
  const int z = AddTensor(g, "z", {1, 3, 4, 4});
  g.inputs() = {x};
  Node conv;
  conv.name = "conv \"1\"";
  conv.op = "Conv";
  conv.inputs = {x, w};
  conv.outputs = {y};
  conv.fused = {"Relu"};
  g.AddNode(conv);
  Node sig;
  sig.name = "sig";
  sig.op = "Sigmoid";
  sig.inputs = {y};
  sig.outputs = {z};
  sig.device = Device::kFpga;
  sig.placement_reason = "test";
  g.AddNode(sig);
  g.outputs() = {z};
  return g;
}

TEST(GraphDotTest, DrawsNodesEdgesAndEscapes) {
  const std::string dot = GraphToDot(SmallGraph(), "after \"pass\"");
  EXPECT_EQ(dot.rfind("digraph loom {", 0), 0u);
  EXPECT_NE(dot.find("label=\"after \\\"pass\\\"\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("Conv+Relu\\nconv \\\"1\\\"\\n1 constant"), std::string::npos) << dot;
  EXPECT_NE(dot.find("v0 -> n0 [label=\"float32 1x2x4x4\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n0 -> n1 [label=\"float32 1x3x4x4\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n1 -> o3;"), std::string::npos) << dot;
  EXPECT_NE(dot.find("[fpga]"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("\"w\""), std::string::npos) << "constants are not drawn: " << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

// Graphviz accepts the text (when it is installed).
TEST(GraphDotTest, GraphvizParsesIt) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0) GTEST_SKIP() << "graphviz's dot is not installed";
  const std::string path = ::testing::TempDir() + "graph_dot_test_" + std::to_string(getpid()) + ".dot";
  std::ofstream(path) << GraphToDot(SmallGraph(), "t");
  EXPECT_EQ(std::system(("dot -Tsvg '" + path + "' -o /dev/null 2>&1").c_str()), 0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ir
}  // namespace loom
