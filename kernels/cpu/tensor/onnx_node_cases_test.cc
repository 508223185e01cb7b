// Runs the tensor kernels on ONNX's own backend test cases (the
// libonnx-testdata package) and compares with the expected outputs. Every
// single-op case whose op this group implements is run twice: with all inputs
// as runtime data, and with every input but the first constant. Constant nodes
// feeding the op are turned into constant inputs. Skipped when the test data
// is not installed.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "kernels/cpu/tensor/onnx_test_reader.h"

namespace loom {
namespace {

using onnx_test::Model;
using onnx_test::Node;
using onnx_test::Tensor;
using testing::TestTensor;

const char* const kRoot = "/usr/share/libonnx-testdata/data";

const std::set<std::string>& TensorOps() {
  static const std::set<std::string> ops = {"Reshape",
                                            "Flatten",
                                            "Squeeze",
                                            "Unsqueeze",
                                            "Identity",
                                            "Dropout",
                                            "Transpose",
                                            "Concat",
                                            "Split",
                                            "Slice",
                                            "Gather",
                                            "GatherElements",
                                            "GatherND",
                                            "ScatterElements",
                                            "Scatter",
                                            "ScatterND",
                                            "Pad",
                                            "Shape",
                                            "Size",
                                            "Expand",
                                            "Tile",
                                            "ConstantOfShape",
                                            "Range",
                                            "EyeLike",
                                            "Constant",
                                            "Trilu",
                                            "OneHot",
                                            "DepthToSpace",
                                            "SpaceToDepth",
                                            "TopK",
                                            "NonZero",
                                            "Compress",
                                            "ReverseSequence",
                                            "Unique"};
  return ops;
}

// Cases that exercise what Loom deliberately lacks: training-mode dropout,
// optional and sequence values.
bool Excluded(const std::string& name) {
  return name.find("training_dropout") != std::string::npos || name == "test_identity_opt" ||
         name == "test_identity_sequence";
}

// The op node of a case: the single node that is not a Constant feeding it
// (or the Constant itself in a one-node graph).
const Node* TargetNode(const Model& m) {
  const Node* target = nullptr;
  for (const Node& n : m.nodes) {
    if (n.op == "Constant" && m.nodes.size() > 1) continue;
    if (target) return nullptr;
    target = &n;
  }
  return target;
}

std::vector<std::string> ListCases() {
  std::vector<std::string> cases;
  std::error_code ec;
  for (const char* group : {"node", "pytorch-operator", "pytorch-converted", "simple"}) {
    const std::filesystem::path dir = std::filesystem::path(kRoot) / group;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      std::string bytes;
      Model m;
      if (!onnx_test::ReadFile((entry.path() / "model.onnx").string(), &bytes) || !onnx_test::ParseModel(bytes, &m))
        continue;
      const Node* n = TargetNode(m);
      if (!n || !m.supported || !n->domain.empty() || !TensorOps().count(n->op)) continue;
      if (Excluded(entry.path().filename().string())) continue;
      cases.push_back(std::string(group) + "/" + entry.path().filename().string());
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

bool SameValues(const TestTensor& got, const Tensor& want, std::string* why) {
  if (got.bytes.size() != want.data.size()) {
    *why = "byte sizes differ";
    return false;
  }
  const int64_t n = NumElements(want.dims);
  for (int64_t i = 0; i < n; ++i) {
    double a = 0, b = 0;
    if (want.dtype == DType::kFloat32) {
      float fa, fb;
      std::memcpy(&fa, got.bytes.data() + i * 4, 4);
      std::memcpy(&fb, want.data.data() + i * 4, 4);
      a = fa;
      b = fb;
    } else if (want.dtype == DType::kFloat64) {
      std::memcpy(&a, got.bytes.data() + i * 8, 8);
      std::memcpy(&b, want.data.data() + i * 8, 8);
    } else {
      continue;
    }
    if (std::isnan(a) && std::isnan(b)) continue;
    if (!(std::fabs(a - b) <= 1e-5 + 1e-5 * std::fabs(b))) {
      *why = "element " + std::to_string(i) + ": got " + std::to_string(a) + ", want " + std::to_string(b);
      return false;
    }
  }
  if (want.dtype != DType::kFloat32 && want.dtype != DType::kFloat64 && got.bytes != want.data) {
    for (size_t i = 0; i < got.bytes.size(); ++i) {
      if (got.bytes[i] != want.data[i]) {
        *why = "byte " + std::to_string(i) + " differs";
        break;
      }
    }
    return false;
  }
  return true;
}

class OnnxNodeCase : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeCase, MatchesExpectedOutputs) {
  const std::filesystem::path dir = std::filesystem::path(kRoot) / GetParam();
  std::string bytes;
  Model m;
  ASSERT_TRUE(onnx_test::ReadFile((dir / "model.onnx").string(), &bytes));
  ASSERT_TRUE(onnx_test::ParseModel(bytes, &m));
  const Node* node = TargetNode(m);
  ASSERT_NE(node, nullptr);

  std::map<std::string, Tensor> values;  // graph inputs and Constant outputs
  std::set<std::string> constants;
  for (const Node& n : m.nodes) {
    if (&n == node) continue;
    const Attribute* a = n.attrs.Find("value");
    ASSERT_TRUE(a && a->tensor && n.outputs.size() == 1) << "unsupported Constant in " << GetParam();
    Tensor t;
    t.dtype = a->tensor->dtype;
    t.dims = a->tensor->dims;
    t.data = a->tensor->data;
    values[n.outputs[0]] = t;
    constants.insert(n.outputs[0]);
  }
  for (const auto& init : m.initializers) {
    values[init.first] = init.second;
    constants.insert(init.first);
  }
  const std::filesystem::path data = dir / "test_data_set_0";
  size_t file = 0;
  for (const std::string& name : m.inputs) {
    if (constants.count(name)) continue;  // initializers listed as inputs (old IR)
    Tensor t;
    ASSERT_TRUE(onnx_test::ReadTensorFile((data / ("input_" + std::to_string(file) + ".pb")).string(), &t))
        << "input " << name;
    values[name] = t;
    ++file;
  }
  std::vector<Tensor> expected;
  std::vector<TestTensor> outputs;
  size_t last_used = 0;
  for (size_t i = 0; i < node->outputs.size(); ++i)
    if (!node->outputs[i].empty()) last_used = i + 1;
  for (size_t i = 0; i < last_used; ++i) {
    size_t j = 0;
    while (j < m.outputs.size() && m.outputs[j] != node->outputs[i]) ++j;
    if (node->outputs[i].empty() || j == m.outputs.size()) GTEST_SKIP() << "output " << i << " not checkable";
    Tensor t;
    ASSERT_TRUE(onnx_test::ReadTensorFile((data / ("output_" + std::to_string(j) + ".pb")).string(), &t));
    outputs.push_back(TestTensor::Empty(t.dtype, t.dims));
    expected.push_back(t);
  }

  for (int mode = 0; mode < 2; ++mode) {
    std::vector<TestTensor> inputs;
    for (size_t i = 0; i < node->inputs.size(); ++i) {
      const std::string& name = node->inputs[i];
      if (name.empty()) {
        inputs.push_back(TestTensor::Absent());
        continue;
      }
      ASSERT_TRUE(values.count(name)) << "unknown input " << name;
      const bool constant = constants.count(name) > 0 || (mode == 1 && i > 0);
      inputs.push_back(onnx_test::ToTestTensor(values[name], constant));
    }
    testing::RunOptions options;
    options.opset = m.opset;
    std::vector<TestTensor> got = outputs;
    Status st = testing::RunKernel(node->op, node->attrs, inputs, &got, options);
    ASSERT_TRUE(st.ok()) << GetParam() << " (" << node->op << ", opset " << m.opset << ", mode " << mode
                         << "): " << st.ToString();
    for (size_t i = 0; i < got.size(); ++i) {
      std::string why;
      EXPECT_TRUE(SameValues(got[i], expected[i], &why))
          << GetParam() << " output " << i << " mode " << mode << ": " << why;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, OnnxNodeCase, ::testing::ValuesIn(ListCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OnnxNodeCase);

}  // namespace
}  // namespace loom
