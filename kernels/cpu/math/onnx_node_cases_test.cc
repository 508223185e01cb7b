// Runs the math kernels on ONNX's own backend node test cases (when the
// libonnx-testdata package is installed; skipped otherwise) and compares
// with the expected outputs. Every case runs twice: with all inputs as
// run-time data, and with the inputs after the first as constants (the two
// Prepare paths). Cases the kernels refuse as unsupported must be exactly the
// known list below, so a regression in either direction fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/float16.h"
#include "kernels/cpu/math/math_test_util.h"
#include "kernels/cpu/math/onnx_testdata.h"

namespace loom {
namespace math {
namespace {

namespace fs = std::filesystem;
using testing::RunOptions;
using testing::TestTensor;

const char kNodeDir[] = "/usr/share/libonnx-testdata/data/node";

const std::set<std::string>& MathOps() {
  static const std::set<std::string> ops = {"Abs",
                                            "Neg",
                                            "Reciprocal",
                                            "Sqrt",
                                            "Exp",
                                            "Log",
                                            "Floor",
                                            "Ceil",
                                            "Round",
                                            "Sign",
                                            "Erf",
                                            "Sin",
                                            "Cos",
                                            "Tan",
                                            "Asin",
                                            "Acos",
                                            "Atan",
                                            "Sinh",
                                            "Cosh",
                                            "Asinh",
                                            "Acosh",
                                            "Atanh",
                                            "Not",
                                            "IsNaN",
                                            "IsInf",
                                            "Softsign",
                                            "Relu",
                                            "LeakyRelu",
                                            "PRelu",
                                            "Clip",
                                            "Sigmoid",
                                            "Tanh",
                                            "HardSigmoid",
                                            "HardSwish",
                                            "Elu",
                                            "Selu",
                                            "Celu",
                                            "Softplus",
                                            "ThresholdedRelu",
                                            "Shrink",
                                            "Add",
                                            "Sub",
                                            "Mul",
                                            "Div",
                                            "Pow",
                                            "Mod",
                                            "Max",
                                            "Min",
                                            "Sum",
                                            "Mean",
                                            "BitShift",
                                            "And",
                                            "Or",
                                            "Xor",
                                            "Equal",
                                            "Greater",
                                            "Less",
                                            "GreaterOrEqual",
                                            "LessOrEqual",
                                            "Where",
                                            "Cast",
                                            "CastLike",
                                            "ReduceSum",
                                            "ReduceMean",
                                            "ReduceMax",
                                            "ReduceMin",
                                            "ReduceProd",
                                            "ReduceL1",
                                            "ReduceL2",
                                            "ReduceLogSum",
                                            "ReduceLogSumExp",
                                            "ReduceSumSquare",
                                            "ArgMax",
                                            "ArgMin",
                                            "Softmax",
                                            "LogSoftmax",
                                            "Hardmax",
                                            "CumSum",
                                            "Einsum"};
  return ops;
}

// Cases refused as unsupported, by design: float16/bfloat16 arithmetic and
// strings.
const std::set<std::string>& ExpectedUnsupported() {
  static const std::set<std::string> cases = {
      "test_max_float16",
      "test_min_float16",
      "test_mod_mixed_sign_float16",
      "test_cast_FLOAT_to_STRING",
      "test_cast_STRING_to_FLOAT",
      "test_castlike_FLOAT_to_STRING",
      "test_castlike_FLOAT_to_STRING_expanded",
      "test_castlike_STRING_to_FLOAT",
      "test_castlike_STRING_to_FLOAT_expanded",
  };
  return cases;
}

double ElementAsDouble(const TestTensor& t, size_t i) {
  const uint8_t* p = t.bytes.data() + i * DTypeSize(t.dtype);
  auto get = [&](auto x) {
    std::memcpy(&x, p, sizeof(x));
    return static_cast<double>(x);
  };
  switch (t.dtype) {
    case DType::kFloat32:
      return get(float{});
    case DType::kFloat64:
      return get(double{});
    case DType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return HalfToFloat(h);
    }
    case DType::kBFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return BFloat16ToFloat(h);
    }
    case DType::kInt8:
      return get(int8_t{});
    case DType::kInt16:
      return get(int16_t{});
    case DType::kInt32:
      return get(int32_t{});
    case DType::kInt64:
      return get(int64_t{});
    case DType::kUInt8:
    case DType::kBool:
      return get(uint8_t{});
    case DType::kUInt16:
      return get(uint16_t{});
    case DType::kUInt32:
      return get(uint32_t{});
    case DType::kUInt64:
      return get(uint64_t{});
    default:
      return NAN;
  }
}

TestTensor ToTestTensor(const onnx_testdata::Tensor& t, bool constant) {
  TestTensor out;
  out.dtype = t.dtype;
  out.shape = t.dims;
  out.bytes = t.bytes;
  out.constant = constant;
  return out;
}

// Runs one case directory; returns "" on success, "unsupported" or a failure message.
std::string RunCase(const fs::path& dir, const onnx_testdata::Model& model, bool const_inputs) {
  const onnx_testdata::Node& node = model.nodes[0];
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  for (const fs::path& set : sets) {
    std::map<std::string, onnx_testdata::Tensor> values;
    for (const onnx_testdata::Tensor& init : model.initializers) values[init.name] = init;
    size_t graph_input = 0;
    for (const onnx_testdata::ValueInfo& in : model.inputs) {
      if (values.count(in.name)) continue;  // an initializer listed as input
      onnx_testdata::Tensor t;
      const fs::path file = set / ("input_" + std::to_string(graph_input++) + ".pb");
      if (!onnx_testdata::ReadTensorFile(file.string(), &t)) return "unsupported";  // e.g. strings
      onnx_testdata::ApplyDeclaredType(in, &t);
      values[in.name] = t;
    }
    std::vector<TestTensor> inputs;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i].empty()) {
        inputs.push_back(TestTensor::Absent());
        continue;
      }
      if (!values.count(node.inputs[i])) return "missing input " + node.inputs[i];
      inputs.push_back(ToTestTensor(values[node.inputs[i]], const_inputs && i > 0));
    }
    std::vector<TestTensor> expected, outputs;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      onnx_testdata::Tensor t;
      if (!onnx_testdata::ReadTensorFile((set / ("output_" + std::to_string(i) + ".pb")).string(), &t)) {
        return "unsupported";
      }
      if (i < model.outputs.size()) onnx_testdata::ApplyDeclaredType(model.outputs[i], &t);
      expected.push_back(ToTestTensor(t, false));
      outputs.push_back(TestTensor::Empty(t.dtype, t.dims));
    }
    RunOptions options;
    options.opset = model.opset;
    const Status s = testing::RunKernel(node.op_type, node.attrs, inputs, &outputs, options);
    if (s.code() == StatusCode::kUnsupported) return "unsupported";
    if (!s.ok()) return s.message();
    for (size_t o = 0; o < outputs.size(); ++o) {
      const TestTensor& got = outputs[o];
      const TestTensor& want = expected[o];
      const size_t n = static_cast<size_t>(NumElements(want.shape));
      const bool exact = !IsFloatingPoint(want.dtype);
      // ONNX 1.12's data truncates float -> bfloat16; Loom rounds to nearest
      // even (as later ONNX releases do), so allow one bfloat16 ulp.
      const double rtol = want.dtype == DType::kBFloat16 ? 1.0 / 128 : want.dtype == DType::kFloat16 ? 1e-3 : 1e-5;
      for (size_t i = 0; i < n; ++i) {
        const double g = ElementAsDouble(got, i), w = ElementAsDouble(want, i);
        const bool same =
            (std::isnan(g) && std::isnan(w)) || g == w || (!exact && std::fabs(g - w) <= 1e-6 + rtol * std::fabs(w));
        if (!same) {
          return set.filename().string() + " output " + std::to_string(o) + " element " + std::to_string(i) + ": got " +
                 std::to_string(g) + ", expected " + std::to_string(w);
        }
      }
    }
  }
  return "";
}

TEST(OnnxNodeCasesTest, MathKernelsMatchOnnxBackendData) {
  if (!fs::is_directory(kNodeDir)) GTEST_SKIP() << kNodeDir << " not installed (libonnx-testdata)";
  int passed = 0;
  std::set<std::string> unsupported;
  for (const auto& entry : fs::directory_iterator(kNodeDir)) {
    const fs::path dir = entry.path();
    std::string bytes;
    onnx_testdata::Model model;
    if (!onnx_testdata::ReadFile((dir / "model.onnx").string(), &bytes) || !onnx_testdata::ParseModel(bytes, &model)) {
      continue;  // e.g. attributes of a kind the reader skips
    }
    if (model.nodes.size() != 1 || !MathOps().count(model.nodes[0].op_type)) continue;
    if (!model.nodes[0].domain.empty() && model.nodes[0].domain != "ai.onnx") continue;
    const std::string name = dir.filename().string();
    for (bool const_inputs : {false, true}) {
      const std::string result = RunCase(dir, model, const_inputs);
      if (result == "unsupported") {
        unsupported.insert(name);
      } else {
        EXPECT_EQ(result, "") << name << (const_inputs ? " (constant inputs)" : " (run-time inputs)");
        if (result.empty()) ++passed;
      }
    }
  }
  EXPECT_GT(passed, 500);
  for (const std::string& name : unsupported) {
    EXPECT_TRUE(ExpectedUnsupported().count(name)) << name << " is unexpectedly unsupported";
  }
  for (const std::string& name : ExpectedUnsupported()) {
    EXPECT_TRUE(unsupported.count(name)) << name << " is now supported: update the list";
  }
  std::cout << "ONNX node cases: " << passed << " runs passed, " << unsupported.size() << " cases unsupported\n";
}

}  // namespace
}  // namespace math
}  // namespace loom
