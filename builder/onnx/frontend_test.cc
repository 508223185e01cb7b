#include "builder/onnx/frontend.h"

#include <gtest/gtest.h>

#include "builder/onnx/tensor_proto.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/onnx_models.h"
#include "common/float16.h"

namespace loom {
namespace onnx_import {
namespace {

using testing::OnnxModel;
using testing::TempDir;

struct Loaded {
  Status status;
  ir::Graph graph;
  ModelInfo info;
  std::vector<std::string> notes;
};

Loaded LoadModel(const OnnxModel& m, const std::map<std::string, Shape>& shapes = {}) {
  TempDir dir;
  Loaded l;
  KernelRegistry r = testing::MakeFakeRegistry();
  l.status = LoadOnnxModel(m.Save(dir.File("m.onnx")), shapes, r, &l.graph, &l.info, &l.notes);
  return l;
}

bool Contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
bool HasNote(const Loaded& l, const std::string& what) {
  for (const std::string& n : l.notes)
    if (Contains(n, what)) return true;
  return false;
}

TEST(FrontendTest, OpsetNewerThan17IsUnsupported) {
  OnnxModel m(18);
  m.Input("x", {2});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", {2});
  Loaded l = LoadModel(m);
  EXPECT_EQ(l.status.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(l.status.message(), "opset 18")) << l.status.message();
}

TEST(FrontendTest, OldOpsetIsUpgraded) {
  OnnxModel m(6, 3);
  m.Input("x", {2, 3});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", {2, 3});
  Loaded l = LoadModel(m);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_EQ(l.info.opset, 6);
  EXPECT_TRUE(HasNote(l, "upgraded from opset 6 to opset 7"));
  EXPECT_EQ(l.graph.node(0).opset, 7);
  EXPECT_EQ(l.graph.value(l.graph.outputs()[0]).shape, (Shape{2, 3}));
}

TEST(FrontendTest, CycleIsRefusedAndUnsortedNodesAreSorted) {
  OnnxModel cyc;
  cyc.Input("x", {2});
  cyc.Node("Add", {"x", "b"}, {"a"});
  cyc.Node("Relu", {"a"}, {"b"});
  cyc.Output("b", {2});
  Loaded l = LoadModel(cyc);
  EXPECT_FALSE(l.status.ok());
  EXPECT_TRUE(Contains(l.status.message(), "cycle")) << l.status.message();

  OnnxModel unsorted;
  unsorted.Input("x", {2});
  unsorted.Node("Relu", {"a"}, {"y"}, "second");
  unsorted.Node("Relu", {"x"}, {"a"}, "first");
  unsorted.Output("y", {2});
  Loaded u = LoadModel(unsorted);
  ASSERT_TRUE(u.status.ok()) << u.status.message();
  EXPECT_EQ(u.graph.node(0).name, "first");
}

TEST(FrontendTest, DomainsAndCheckerErrors) {
  OnnxModel custom;
  custom.proto().add_opset_import()->set_domain("com.example");
  custom.proto().mutable_opset_import(1)->set_version(1);
  custom.Input("x", {2});
  custom.Node("Unfrobnicate", {"x"}, {"y"})->set_domain("com.example");
  custom.Output("y", {2});
  Loaded l = LoadModel(custom);
  EXPECT_EQ(l.status.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(l.status.message(), "unsupported op 'Unfrobnicate' in domain 'com.example'"))
      << l.status.message();

  OnnxModel bad;
  bad.Input("x", {2});
  bad.Node("NotAnOnnxOp", {"x"}, {"y"});
  bad.Output("y", {2});
  l = LoadModel(bad);
  EXPECT_EQ(l.status.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(l.status.message(), "unsupported op 'NotAnOnnxOp'")) << l.status.message();

  OnnxModel undefined_input;
  undefined_input.Input("x", {2});
  undefined_input.Node("Relu", {"z"}, {"y"});
  undefined_input.Output("y", {2});
  l = LoadModel(undefined_input);
  EXPECT_FALSE(l.status.ok());
  EXPECT_TRUE(Contains(l.status.message(), "ONNX checker")) << l.status.message();
  EXPECT_FALSE(Contains(l.status.message(), "\n"));
}

TEST(FrontendTest, ConstantNodesBecomeConstants) {
  OnnxModel m;
  m.Input("x", {3});
  onnx::NodeProto* c1 = m.Node("Constant", {}, {"c1"});
  onnx::AttributeProto* a = c1->add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float f : {1.f, 2.f, 3.f}) a->add_floats(f);
  onnx::NodeProto* c2 = m.Node("Constant", {}, {"c2"});
  testing::SetIntAttr(c2, "value_int", 42);
  c2->mutable_attribute(0)->set_name("value_int");
  m.Node("Add", {"x", "c1"}, {"y"});
  m.Output("y", {3});
  m.Output("c2", {}, onnx::TensorProto::INT64);
  Loaded l = LoadModel(m);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  ASSERT_EQ(l.graph.nodes().size(), 1u);
  const ir::Value& c1v = l.graph.value(l.graph.node(0).inputs[1]);
  ASSERT_TRUE(c1v.is_constant());
  EXPECT_EQ(c1v.shape, (Shape{3}));
  EXPECT_EQ(c1v.data->as<float>()[2], 3.f);
  const ir::Value& c2v = l.graph.value(l.graph.outputs()[1]);
  ASSERT_TRUE(c2v.is_constant());
  EXPECT_EQ(c2v.dtype, DType::kInt64);
  EXPECT_TRUE(c2v.shape.empty());
  EXPECT_EQ(c2v.data->as<int64_t>()[0], 42);

  OnnxModel s;
  s.Input("x", {1});
  onnx::NodeProto* cs = s.Node("Constant", {}, {"c"});
  onnx::AttributeProto* sa = cs->add_attribute();
  sa->set_name("value_string");
  sa->set_type(onnx::AttributeProto::STRING);
  sa->set_s("hello");
  s.Node("Identity", {"x"}, {"y"});
  s.Output("y", {1});
  s.Output("c", {}, onnx::TensorProto::STRING);
  l = LoadModel(s);
  EXPECT_EQ(l.status.code(), StatusCode::kUnsupported) << l.status.message();
}

TEST(FrontendTest, InitializerListedAsInputIsConstant) {
  OnnxModel m(9, 3);
  m.Input("x", {2});
  m.Input("w", {2});
  m.Initializer("w", {2}, {5, 6});
  m.Node("Add", {"x", "w"}, {"y"});
  m.Output("y", {2});
  Loaded l = LoadModel(m);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  ASSERT_EQ(l.graph.inputs().size(), 1u);
  EXPECT_TRUE(l.graph.value(l.graph.node(0).inputs[1]).is_constant());
  EXPECT_TRUE(HasNote(l, "treated as constants"));
}

TEST(FrontendTest, StringInputIsUnsupported) {
  OnnxModel m;
  m.Input("x", {2}, onnx::TensorProto::STRING);
  m.Node("Identity", {"x"}, {"y"});
  m.Output("y", {2}, onnx::TensorProto::STRING);
  Loaded l = LoadModel(m);
  EXPECT_EQ(l.status.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(l.status.ToString(), "string")) << l.status.message();
}

// Opset 7's Constant only allowed float types; old exporters wrote int64
// anyway. Strict inference refuses that, the lenient fallback keeps going.
TEST(FrontendTest, ShapeInferenceFallsBackToLenientMode) {
  OnnxModel m(7, 3);
  m.Input("x", {2, 3});
  onnx::NodeProto* c = m.Node("Constant", {}, {"shape"});
  onnx::AttributeProto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(6);
  m.Node("Reshape", {"x", "shape"}, {"y"});
  m.Output("y", {6});
  Loaded l = LoadModel(m);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_TRUE(HasNote(l, "continuing with partial shapes"));
}

TEST(InputShapesTest, LeadingSymbolicDimDefaultsToOne) {
  OnnxModel m;
  m.Input("x", {-1, 3}, onnx::TensorProto::FLOAT, {"N"});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", {-1, 3});
  Loaded l = LoadModel(m);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_TRUE(HasNote(l, "input 'x': dim 0 'N' set to 1"));
  EXPECT_EQ(l.graph.value(l.graph.outputs()[0]).shape, (Shape{1, 3}));
}

TEST(InputShapesTest, OtherSymbolicDimsAreErrors) {
  OnnxModel m;
  m.Input("x", {1, 3, -1, -1}, onnx::TensorProto::FLOAT, {"", "", "height", "width"});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", {-1, -1, -1, -1});
  Loaded l = LoadModel(m);
  EXPECT_FALSE(l.status.ok());
  EXPECT_TRUE(Contains(l.status.message(), "input 'x' dim 2 ('height') is symbolic; fix it with --shape x=1x3x"))
      << l.status.message();
  // Fixed with an override.
  l = LoadModel(m, {{"x", {1, 3, 8, 9}}});
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_EQ(l.graph.value(l.graph.outputs()[0]).shape, (Shape{1, 3, 8, 9}));
}

TEST(InputShapesTest, OverridesAreChecked) {
  OnnxModel m;
  m.Input("x", {1, 3});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", {1, 3});
  // Stale value_info from an exporter must not fight the override.
  onnx::ValueInfoProto* vi = m.proto().mutable_graph()->add_value_info();
  vi->set_name("y");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(1);
  vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);

  Loaded l = LoadModel(m, {{"z", {1, 3}}});
  EXPECT_TRUE(Contains(l.status.message(), "unknown input 'z'")) << l.status.message();
  l = LoadModel(m, {{"x", {1, 3, 1}}});
  EXPECT_TRUE(Contains(l.status.message(), "rank 3, but input 'x' has rank 2")) << l.status.message();
  l = LoadModel(m, {{"x", {4, 5}}});
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_EQ(l.graph.value(l.graph.outputs()[0]).shape, (Shape{4, 5}));
}

TEST(TensorProtoTest, TypedFieldsAndErrors) {
  onnx::TensorProto t;
  t.set_name("h");
  t.set_data_type(onnx::TensorProto::FLOAT16);
  t.add_dims(2);
  t.add_int32_data(FloatToHalf(1.5f));
  t.add_int32_data(FloatToHalf(-2.f));
  ConstantTensor c;
  ASSERT_TRUE(ConvertTensorProto(t, "h", &c).ok());
  EXPECT_EQ(c.dtype, DType::kFloat16);
  EXPECT_EQ(HalfToFloat(c.data->as<uint16_t>()[1]), -2.f);

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(3);
  for (int v : {1, 0, 7}) b.add_int32_data(v);
  ASSERT_TRUE(ConvertTensorProto(b, "b", &c).ok());
  EXPECT_EQ(c.data->data()[2], 1);

  onnx::TensorProto i8;
  i8.set_data_type(onnx::TensorProto::INT8);
  i8.add_dims(2);
  i8.add_int32_data(-128);
  i8.add_int32_data(127);
  ASSERT_TRUE(ConvertTensorProto(i8, "i8", &c).ok());
  EXPECT_EQ(c.data->as<int8_t>()[0], -128);

  onnx::TensorProto u64;
  u64.set_data_type(onnx::TensorProto::UINT64);
  u64.add_uint64_data(~uint64_t{0});
  ASSERT_TRUE(ConvertTensorProto(u64, "u64", &c).ok());
  EXPECT_TRUE(c.shape.empty());
  EXPECT_EQ(c.data->as<uint64_t>()[0], ~uint64_t{0});

  onnx::TensorProto d;
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_dims(2);
  d.add_double_data(0.25);
  Status s = ConvertTensorProto(d, "d", &c);
  EXPECT_TRUE(Contains(s.message(), "holds 1 values, expected 2")) << s.message();

  onnx::TensorProto str;
  str.set_data_type(onnx::TensorProto::STRING);
  EXPECT_EQ(ConvertTensorProto(str, "s", &c).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace onnx_import
}  // namespace loom
