#include "builder/onnx/model_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "builder/onnx/frontend.h"
#include "builder/testing/fake_kernels.h"
#include "builder/testing/onnx_models.h"

namespace loom {
namespace onnx_import {
namespace {

using testing::OnnxModel;
using testing::TempDir;

Status Load(const std::string& path, ir::Graph* g = nullptr) {
  ir::Graph local;
  ModelInfo info;
  std::vector<std::string> notes;
  KernelRegistry r = testing::MakeFakeRegistry();
  return LoadOnnxModel(path, {}, r, g ? g : &local, &info, &notes);
}

bool Contains(const Status& s, const std::string& what) { return s.message().find(what) != std::string::npos; }

OnnxModel ReluModel() {
  OnnxModel m;
  m.Input("x", {1, 4});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", {1, 4});
  return m;
}

TEST(ModelFileTest, MissingEmptyGarbageAndNoGraph) {
  TempDir dir;
  Status s = Load(dir.File("nope.onnx"));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s, "no such file")) << s.message();

  testing::WriteBytes(dir.File("empty.onnx"), "");
  s = Load(dir.File("empty.onnx"));
  EXPECT_TRUE(Contains(s, "is empty")) << s.message();

  testing::WriteBytes(dir.File("junk.onnx"), std::string("\xff\xff\xff\xff garbage", 13));
  s = Load(dir.File("junk.onnx"));
  EXPECT_TRUE(Contains(s, "not an ONNX model (protobuf parse failed)")) << s.message();

  onnx::ModelProto no_graph;
  no_graph.set_ir_version(8);
  testing::WriteBytes(dir.File("nograph.onnx"), no_graph.SerializeAsString());
  s = Load(dir.File("nograph.onnx"));
  EXPECT_TRUE(Contains(s, "has no graph")) << s.message();

  EXPECT_FALSE(Load(dir.path()).ok());
}

TEST(ModelFileTest, ValidModelLoads) {
  TempDir dir;
  ir::Graph g;
  ASSERT_TRUE(Load(ReluModel().Save(dir.File("m.onnx")), &g).ok());
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.node(0).op, "Relu");
  EXPECT_EQ(g.value(g.outputs()[0]).shape, (Shape{1, 4}));
}

TEST(ModelFileTest, TruncatedAndRandomBytesNeverCrash) {
  TempDir dir;
  OnnxModel m = ReluModel();
  m.Initializer("w", {4}, {1, 2, 3, 4});
  const std::string bytes = m.Serialize();
  for (size_t cut = 0; cut < bytes.size(); cut += 3) {
    testing::WriteBytes(dir.File("t.onnx"), bytes.substr(0, cut));
    EXPECT_FALSE(Load(dir.File("t.onnx")).ok()) << "cut at " << cut;
  }
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string mutated = bytes;
    const int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    testing::WriteBytes(dir.File("f.onnx"), mutated);
    (void)Load(dir.File("f.onnx"));  // any Status; must not crash
    std::string random(1 + rng() % 300, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    testing::WriteBytes(dir.File("r.onnx"), random);
    (void)Load(dir.File("r.onnx"));
  }
}

// A model whose initializer "w" lives in `location` at offset/length.
OnnxModel ExternalModel(const std::string& location, const std::string& offset, const std::string& length) {
  OnnxModel m;
  m.Input("x", {4});
  onnx::TensorProto* t = m.proto().mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const std::string& k, const std::string& v) {
    if (v.empty()) return;
    onnx::StringStringEntryProto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  add("offset", offset);
  add("length", length);
  m.Node("Add", {"x", "w"}, {"y"});
  m.Output("y", {4});
  return m;
}

TEST(ExternalDataTest, LoadsFromTheModelFolder) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("weights"));
  const float w[6] = {0, 1.5f, 2.5f, 3.5f, 4.5f, 9};
  testing::WriteBytes(dir.File("weights/w.bin"), std::string(reinterpret_cast<const char*>(w), sizeof(w)));
  ir::Graph g;
  ASSERT_TRUE(Load(ExternalModel("weights/w.bin", "4", "16").Save(dir.File("m.onnx")), &g).ok());
  const ir::Value& v = g.value(g.node(0).inputs[1]);
  ASSERT_TRUE(v.is_constant());
  EXPECT_EQ(v.data->as<float>()[0], 1.5f);
  EXPECT_EQ(v.data->as<float>()[3], 4.5f);
}

TEST(ExternalDataTest, RefusesBadLocationsAndRanges) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("model"));
  const std::string data(16, '\1');
  testing::WriteBytes(dir.File("model/w.bin"), data);
  testing::WriteBytes(dir.File("outside.bin"), data);
  std::filesystem::create_symlink(dir.File("outside.bin"), dir.File("model/link.bin"));
  struct Case {
    std::string location, offset, length, expect;
  };
  const Case cases[] = {
      {dir.File("model/w.bin"), "", "", "absolute"},
      {"../outside.bin", "", "", "outside the model's folder"},
      {"sub/../../outside.bin", "", "", "outside the model's folder"},
      {"link.bin", "", "", "outside the model's folder"},
      {"missing.bin", "", "", "not found"},
      {"w.bin", "17", "", "past the end"},
      {"w.bin", "8", "16", "past the end"},
      {"w.bin", "-1", "", "not a valid number"},
      {"w.bin", "", "", ""},  // the full 16 bytes: fine
  };
  for (const Case& c : cases) {
    Status s = Load(ExternalModel(c.location, c.offset, c.length).Save(dir.File("model/m.onnx")));
    if (c.expect.empty()) {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_TRUE(Contains(s, c.expect)) << c.location << ": " << s.message();
    }
  }
  // Length that does not match the tensor's dims.
  Status s = Load(ExternalModel("w.bin", "0", "12").Save(dir.File("model/m.onnx")));
  EXPECT_TRUE(Contains(s, "raw_data has 12 bytes, expected 16")) << s.message();
}

}  // namespace
}  // namespace onnx_import
}  // namespace loom
