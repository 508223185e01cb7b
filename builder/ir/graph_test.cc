#include "builder/ir/graph.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace loom {
namespace ir {
namespace {

int AddTensor(Graph& g, const std::string& name) {
  Value v;
  v.name = name;
  v.dtype = DType::kFloat32;
  v.shape = {2};
  v.shape_known = true;
  return g.AddValue(v);
}

int AddOp(Graph& g, const std::string& name, std::vector<int> in, std::vector<int> out) {
  Node n;
  n.name = name;
  n.op = "Relu";
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return g.AddNode(std::move(n));
}

TEST(BufferTest, IsAlignedAndZeroed) {
  auto b = Buffer::Allocate(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  EXPECT_EQ(b->size(), 100u);
  for (size_t i = 0; i < b->size(); ++i) ASSERT_EQ(b->data()[i], 0);
  const float v[2] = {1.5f, -2.f};
  auto c = Buffer::CopyOf(v, sizeof(v));
  EXPECT_EQ(c->as<float>()[1], -2.f);
  EXPECT_EQ(Buffer::Allocate(0)->size(), 0u);
}

TEST(GraphTest, SortTopologicallyReordersStably) {
  Graph g;
  const int x = AddTensor(g, "x"), a = AddTensor(g, "a"), b = AddTensor(g, "b"), c = AddTensor(g, "c");
  g.inputs() = {x};
  AddOp(g, "second", {a}, {b});
  AddOp(g, "first", {x}, {a});
  AddOp(g, "third", {b}, {c});
  g.outputs() = {c};
  EXPECT_FALSE(g.Validate().ok());
  ASSERT_TRUE(g.SortTopologically().ok());
  ASSERT_EQ(g.nodes().size(), 3u);
  EXPECT_EQ(g.node(0).name, "first");
  EXPECT_EQ(g.node(1).name, "second");
  EXPECT_EQ(g.node(2).name, "third");
  EXPECT_TRUE(g.Validate().ok());
}

TEST(GraphTest, CycleIsReported) {
  Graph g;
  const int x = AddTensor(g, "x"), a = AddTensor(g, "a"), b = AddTensor(g, "b");
  g.inputs() = {x};
  AddOp(g, "n1", {b}, {a});
  AddOp(g, "n2", {a}, {b});
  g.outputs() = {b};
  Status s = g.SortTopologically();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s.message();
}

TEST(GraphTest, UseListsAndReplace) {
  Graph g;
  const int x = AddTensor(g, "x"), a = AddTensor(g, "a"), b = AddTensor(g, "b");
  g.inputs() = {x};
  AddOp(g, "n1", {x}, {a});
  AddOp(g, "n2", {a, a}, {b});
  g.outputs() = {b};
  UseLists u = g.BuildUseLists();
  EXPECT_EQ(u.producer[static_cast<size_t>(a)], 0);
  EXPECT_EQ(u.producer[static_cast<size_t>(x)], -1);
  EXPECT_EQ(u.consumers[static_cast<size_t>(a)].size(), 2u);
  g.ReplaceAllUses(a, x);
  EXPECT_EQ(g.node(1).inputs, (std::vector<int>{x, x}));
  g.node(0).dead = true;
  g.Compact();
  EXPECT_EQ(g.nodes().size(), 1u);
  EXPECT_TRUE(g.Validate().ok());
}

TEST(GraphTest, ValidateRejectsDoubleProducerAndMissingOutput) {
  Graph g;
  const int x = AddTensor(g, "x"), a = AddTensor(g, "a");
  g.inputs() = {x};
  AddOp(g, "n1", {x}, {a});
  AddOp(g, "n2", {x}, {a});
  g.outputs() = {a};
  EXPECT_FALSE(g.Validate().ok());
  Graph h;
  const int y = AddTensor(h, "y");
  h.outputs() = {y};
  EXPECT_FALSE(h.Validate().ok());
}

TEST(GraphTest, UniqueValueName) {
  Graph g;
  AddTensor(g, "w");
  AddTensor(g, "w_1");
  EXPECT_EQ(g.UniqueValueName("w"), "w_2");
  EXPECT_EQ(g.UniqueValueName("v"), "v");
}

}  // namespace
}  // namespace ir
}  // namespace loom
