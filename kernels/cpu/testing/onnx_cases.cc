#include "kernels/cpu/testing/onnx_cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/cpu/testing/kernel_tester.h"
#include "tools/tensor_io/host_tensor.h"
#include "tools/tensor_io/model_proto.h"
#include "tools/tensor_io/onnx_testdata_root.h"
#include "tools/tensor_io/tensor_compare.h"

namespace loom {
namespace testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

std::string DefaultDomain(const std::string& domain) { return domain == "ai.onnx" ? "" : domain; }

// "suite/case" for every case folder with a model, sorted.
std::vector<std::string> ListCases(const std::string& root) {
  std::vector<std::string> cases;
  for (const char* suite : kSuites) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(root) / suite, ec)) {
      const std::string name = std::string(suite) + "/" + entry.path().filename().string();
      if (fs::exists(entry.path() / "model.onnx")) cases.push_back(name);
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

// The node a case tests: the one that is not a Constant (or a lone Constant).
const OnnxNode* TargetNode(const OnnxModel& m) {
  const OnnxNode* target = nullptr;
  for (const OnnxNode& n : m.nodes) {
    if (n.op_type == "Constant" && m.nodes.size() > 1) continue;
    if (target != nullptr) return nullptr;
    target = &n;
  }
  return target;
}

TestTensor ToTestTensor(DType dtype, const Shape& shape, const std::vector<uint8_t>& bytes, bool constant) {
  TestTensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.bytes = bytes;
  t.constant = constant;
  return t;
}

std::vector<fs::path> DataSets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(entry.path());
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// The values that are constant in the graph: initializers and the outputs of
// the Constant nodes feeding `node`.
Status GraphConstants(const OnnxModel& model, const OnnxNode& node, std::map<std::string, TestTensor>* out) {
  for (const HostTensor& t : model.initializers) (*out)[t.name] = ToTestTensor(t.dtype, t.shape, t.data, true);
  for (const OnnxNode& n : model.nodes) {
    if (&n == &node) continue;
    const Attribute* value = n.attrs.Find("value");
    if (value == nullptr || value->tensor == nullptr || n.outputs.empty()) {
      return Status::Unsupported("a Constant without a value tensor");
    }
    (*out)[n.outputs[0]] = ToTestTensor(value->tensor->dtype, value->tensor->dims, value->tensor->data, true);
  }
  return Status::Ok();
}

// Reads a tensor of a data set. ONNX's test data stores bfloat16 tensors as
// uint16 (numpy has no bfloat16): they take the dtype the graph declares.
Status ReadValue(const fs::path& set, const std::string& file, const OnnxValueInfo& declared, HostTensor* t) {
  if (declared.elem_type == 0) return Status::Unsupported("'" + declared.name + "' is not a tensor");
  RETURN_IF_ERROR(ReadTensorProto((set / file).string(), t));
  const auto dtype = static_cast<DType>(declared.elem_type);
  if (dtype == DType::kBFloat16 && t->dtype == DType::kUInt16) t->dtype = dtype;
  if (dtype == t->dtype) return Status::Ok();
  return Status::InvalidArgument(file + " is " + DTypeName(t->dtype) + ", the graph declares " + DTypeName(dtype));
}

// Adds a data set's graph inputs to `values` and reads the expected value of
// each node output (up to the last present one) from the graph outputs.
Status ReadDataSet(const fs::path& set, const OnnxModel& model, const OnnxNode& node,
                   std::map<std::string, TestTensor>* values, std::vector<HostTensor>* expected) {
  size_t file = 0;
  for (const OnnxValueInfo& in : model.inputs) {
    if (values->count(in.name)) continue;  // an initializer listed as input (IR < 4)
    HostTensor t;
    RETURN_IF_ERROR(ReadValue(set, "input_" + std::to_string(file++) + ".pb", in, &t));
    (*values)[in.name] = ToTestTensor(t.dtype, t.shape, t.data, false);
  }
  size_t num_outputs = node.outputs.size();
  while (num_outputs > 0 && node.outputs[num_outputs - 1].empty()) --num_outputs;
  for (size_t i = 0; i < num_outputs; ++i) {
    size_t j = 0;
    while (j < model.outputs.size() && model.outputs[j].name != node.outputs[i]) ++j;
    if (j == model.outputs.size()) return Status::Unsupported("output '" + node.outputs[i] + "' is not a graph output");
    expected->emplace_back();
    RETURN_IF_ERROR(ReadValue(set, "output_" + std::to_string(j) + ".pb", model.outputs[j], &expected->back()));
  }
  return Status::Ok();
}

// Runs `node` once and compares its outputs; `constant_inputs` makes the
// inputs after the first constants.
Status RunNode(const OnnxNode& node, const std::map<std::string, TestTensor>& values,
               const std::vector<HostTensor>& expected, bool constant_inputs, RunOptions options) {
  std::vector<TestTensor> inputs, outputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    auto it = values.find(node.inputs[i]);
    if (node.inputs[i].empty()) {
      inputs.push_back(TestTensor::Absent());
    } else if (it == values.end()) {
      return Status::InvalidArgument("input '" + node.inputs[i] + "' is neither a graph input nor a constant");
    } else {
      inputs.push_back(it->second);
      inputs.back().constant |= constant_inputs && i > 0;
    }
  }
  for (const HostTensor& e : expected) outputs.push_back(TestTensor::Empty(e.dtype, e.shape));
  options.threads = constant_inputs ? 2 : 1;
  RETURN_IF_ERROR(RunKernel(node.op_type, node.attrs, inputs, &outputs, options));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Status same = CompareTensors(expected[i], {outputs[i].dtype, outputs[i].shape, outputs[i].bytes.data()});
    if (!same.ok()) return same.WithContext("output " + std::to_string(i));
  }
  return Status::Ok();
}

// OK when every run matches; Unsupported when a run is refused as such.
Status RunCase(const fs::path& dir, const OnnxModel& model, const OnnxNode& node) {
  if (!node.unreadable_attrs.empty()) {
    return Status::Unsupported("attribute '" + node.unreadable_attrs[0] + "' is of a kind Attributes cannot hold");
  }
  std::map<std::string, TestTensor> constants;
  RETURN_IF_ERROR(GraphConstants(model, node, &constants));
  RunOptions options;
  options.domain = DefaultDomain(node.domain);
  options.opset = model.opsets.count(options.domain) ? static_cast<int>(model.opsets.at(options.domain)) : 0;
  const std::vector<fs::path> sets = DataSets(dir);
  if (sets.empty()) return Status::NotFound("no test_data_set_* folder");
  Status unsupported;
  for (const fs::path& set : sets) {
    std::map<std::string, TestTensor> values = constants;
    std::vector<HostTensor> expected;
    Status s = ReadDataSet(set, model, node, &values, &expected);
    if (!s.ok()) return s.WithContext(set.filename().string());
    for (bool constant_inputs : {false, true}) {
      s = RunNode(node, values, expected, constant_inputs, options);
      if (s.ok()) continue;
      s = s.WithContext(set.filename().string() + (constant_inputs ? " (constant inputs)" : " (run-time inputs)"));
      if (s.code() != StatusCode::kUnsupported) return s;
      unsupported = s;
    }
  }
  return unsupported;
}

}  // namespace

void RunOnnxCases(void (*register_group)(KernelRegistry*), const std::set<std::string>& expected_unsupported,
                  const std::set<std::string>& not_run) {
  const std::string root = OnnxTestDataRoot();
  if (!fs::is_directory(root)) GTEST_SKIP() << "ONNX test data not found at " << root << " (set LOOM_ONNX_TESTDATA)";
  KernelRegistry group;
  register_group(&group);
  std::set<std::pair<std::string, std::string>> ops;  // (domain, op)
  for (const KernelDef& def : group.all()) ops.insert({def.domain, def.op});

  std::set<std::string> cases, unsupported;
  int ran = 0, passed = 0;
  for (const std::string& name : ListCases(root)) {
    OnnxModel model;
    const Status read = ReadModelProto((fs::path(root) / name / "model.onnx").string(), &model);
    if (!read.ok()) {
      ADD_FAILURE() << name << ": " << read.ToString();
      continue;
    }
    const OnnxNode* node = TargetNode(model);
    if (node == nullptr || !ops.count({DefaultDomain(node->domain), node->op_type})) continue;
    cases.insert(name);
    if (not_run.count(name)) continue;
    ++ran;
    const Status s = RunCase(fs::path(root) / name, model, *node);
    const bool listed = expected_unsupported.count(name) > 0;
    if (s.ok()) {
      ++passed;
      EXPECT_FALSE(listed) << name << " passes but is listed as unsupported: remove it from the list";
    } else if (s.code() == StatusCode::kUnsupported) {
      unsupported.insert(name);
      EXPECT_TRUE(listed) << name << " is unexpectedly unsupported: " << s.ToString();
    } else {
      ADD_FAILURE() << name << " (" << node->op_type << "): " << s.ToString();
    }
  }
  for (const std::string& name : expected_unsupported) {
    EXPECT_TRUE(cases.count(name)) << name << " is listed as unsupported but is not a case of this group";
  }
  for (const std::string& name : not_run) EXPECT_TRUE(cases.count(name)) << name << " is not a case of this group";
  std::printf("ONNX cases from %s: %d ran, %d passed, %zu unsupported, %zu failed, %zu not run\n", root.c_str(), ran,
              passed, unsupported.size(), ran - passed - unsupported.size(), not_run.size());
}

}  // namespace testing
}  // namespace loom
