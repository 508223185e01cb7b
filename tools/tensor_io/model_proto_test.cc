// ModelProto decoding on every model of ONNX's node test data: against ONNX's
// protobuf classes when the builder is on, and cut short at any point.
#include <gtest/gtest.h>

#include <filesystem>

#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/model_proto.h"
#include "tools/tensor_io/test_expectations.h"

#if LOOM_TEST_WITH_ONNX_PROTO
#include <onnx/onnx_pb.h>
#endif

namespace loom {
namespace {

TEST(ModelProtoTest, ReadsEveryTestModel) {
  std::error_code ec;
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::OnnxNodeTestData(), ec)) {
    const std::string path = (entry.path() / "model.onnx").string();
    std::vector<uint8_t> bytes;
    if (!ReadWholeFile(path, &bytes).ok()) continue;
    OnnxModel m;
    ASSERT_TRUE(ParseModelProto(bytes.data(), bytes.size(), &m).ok()) << path;
    ASSERT_FALSE(m.nodes.empty()) << path;
    EXPECT_FALSE(m.nodes[0].op_type.empty()) << path;
    ++read;
    for (size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 16) {
      OnnxModel partial;  // must not crash; may be a valid shorter message
      (void)ParseModelProto(bytes.data(), cut, &partial);
    }
#if LOOM_TEST_WITH_ONNX_PROTO
    onnx::ModelProto proto;
    ASSERT_TRUE(proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) << path;
    const onnx::GraphProto& g = proto.graph();
    for (const auto& opset : proto.opset_import()) {
      EXPECT_EQ(m.opsets[opset.domain() == "ai.onnx" ? "" : opset.domain()], opset.version()) << path;
    }
    ASSERT_EQ(m.nodes.size(), static_cast<size_t>(g.node_size())) << path;
    for (int i = 0; i < g.node_size(); ++i) {
      const OnnxNode& n = m.nodes[i];
      EXPECT_EQ(n.op_type, g.node(i).op_type()) << path;
      EXPECT_EQ(n.domain, g.node(i).domain()) << path;
      EXPECT_EQ(n.inputs, std::vector<std::string>(g.node(i).input().begin(), g.node(i).input().end())) << path;
      EXPECT_EQ(n.outputs, std::vector<std::string>(g.node(i).output().begin(), g.node(i).output().end())) << path;
      for (const onnx::AttributeProto& a : g.node(i).attribute()) {
        const Attribute* got = n.attrs.Find(a.name());
        if (got == nullptr) continue;  // an unreadable kind, counted below
        EXPECT_EQ(got->i, a.i()) << path << " " << a.name();
        EXPECT_EQ(got->f, a.f()) << path << " " << a.name();
        EXPECT_EQ(got->s, a.s()) << path << " " << a.name();
        EXPECT_EQ(got->ints, std::vector<int64_t>(a.ints().begin(), a.ints().end())) << path << " " << a.name();
        EXPECT_EQ(got->floats, std::vector<float>(a.floats().begin(), a.floats().end())) << path << " " << a.name();
      }
      EXPECT_EQ(n.attrs.size() + n.unreadable_attrs.size(), static_cast<size_t>(g.node(i).attribute_size())) << path;
    }
    ASSERT_EQ(m.inputs.size(), static_cast<size_t>(g.input_size())) << path;
    for (int i = 0; i < g.input_size(); ++i) {
      const int32_t elem_type = g.input(i).type().has_tensor_type() ? g.input(i).type().tensor_type().elem_type() : 0;
      EXPECT_EQ(m.inputs[i].name, g.input(i).name()) << path;
      EXPECT_EQ(m.inputs[i].elem_type, elem_type) << path;
    }
    EXPECT_EQ(m.outputs.size(), static_cast<size_t>(g.output_size())) << path;
    EXPECT_EQ(m.initializers.size(), static_cast<size_t>(g.initializer_size())) << path;
#endif
  }
  if (read == 0) GTEST_SKIP() << "ONNX test data not installed";
  EXPECT_GT(read, 500);
}

}  // namespace
}  // namespace loom
