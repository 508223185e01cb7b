#include "tests/conformance/case_runner.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "builder/builder.h"
#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace conformance {
namespace {

namespace fs = std::filesystem;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

CaseResult Fail(const std::string& message) { return {Outcome::kFail, message, ""}; }

std::vector<fs::path> DataSets(const std::string& case_dir) {
  std::vector<fs::path> sets;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(case_dir, ec)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(entry.path());
    }
  }
  std::sort(sets.begin(), sets.end());
  return sets;
}

// Reads <dir>/<prefix>_0.pb, _1.pb, ... until the next index is missing.
Status ReadNumbered(const fs::path& dir, const std::string& prefix, std::vector<HostTensor>* out) {
  for (int i = 0;; ++i) {
    fs::path path = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(path)) return Status::Ok();
    HostTensor t;
    Status s = ReadTensorProto(path.string(), &t);
    if (!s.ok()) return s.WithContext(path.filename().string());
    out->push_back(std::move(t));
  }
}

// The plan input a test input binds to: by TensorProto name when it names a
// plan input, else by position. Null if there is none.
const TensorDesc* InputFor(const Engine& engine, const HostTensor& t, size_t position) {
  const TensorDesc* desc = engine.FindInput(t.name);
  if (desc == nullptr && position < engine.inputs().size()) desc = &engine.inputs()[position];
  return desc;
}

// ONNX's test data stores bfloat16 tensors as uint16 (numpy has no
// bfloat16): reinterpret them where the plan expects bfloat16.
void AdaptBFloat16(DType plan_dtype, HostTensor* t) {
  if (plan_dtype == DType::kBFloat16 && t->dtype == DType::kUInt16) t->dtype = DType::kBFloat16;
}

// Shapes of the test inputs that differ from the plan's, by input name.
std::map<std::string, Shape> DifferingShapes(const Engine& engine, const std::vector<HostTensor>& inputs) {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc* desc = InputFor(engine, inputs[i], i);
    if (desc != nullptr && desc->shape != inputs[i].shape) shapes[desc->name] = inputs[i].shape;
  }
  return shapes;
}

Status BindInputs(const Engine& engine, std::vector<HostTensor>* inputs, ExecutionContext* ctx) {
  for (size_t i = 0; i < inputs->size(); ++i) {
    HostTensor& t = (*inputs)[i];
    const TensorDesc* desc = InputFor(engine, t, i);
    if (desc == nullptr) {
      return Status::InvalidArgument("test data has input_" + std::to_string(i) + ".pb ('" + t.name +
                                     "') but the plan has " + std::to_string(engine.inputs().size()) + " inputs");
    }
    AdaptBFloat16(desc->dtype, &t);
    if (desc->dtype != t.dtype || desc->shape != t.shape) {
      return Status::InvalidArgument("input '" + desc->name + "': test data is " + DTypeName(t.dtype) + " " +
                                     ShapeToString(t.shape) + ", plan expects " + DTypeName(desc->dtype) + " " +
                                     ShapeToString(desc->shape));
    }
    RETURN_IF_ERROR(ctx->SetInput(desc->name, t.data.data(), t.data.size()));
  }
  return Status::Ok();
}

Status CheckOutputs(const Engine& engine, std::vector<HostTensor>* expected_outputs, const ExecutionContext& ctx,
                    const Tolerance& tolerance) {
  std::vector<HostTensor>& expected = *expected_outputs;
  if (expected.size() != engine.outputs().size()) {
    return Status::InvalidArgument("test data has " + std::to_string(expected.size()) + " outputs, the plan has " +
                                   std::to_string(engine.outputs().size()));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const TensorDesc& desc = engine.outputs()[i];
    AdaptBFloat16(desc.dtype, &expected[i]);
    TensorRef actual{desc.dtype, desc.shape, ctx.OutputData(desc.name)};
    Status s = CompareTensors(expected[i], actual, tolerance);
    if (!s.ok()) return s.WithContext("output " + std::to_string(i) + " '" + desc.name + "'");
  }
  return Status::Ok();
}

// A built and loaded plan with its execution context.
struct Loaded {
  std::shared_ptr<const Engine> engine;
  std::unique_ptr<ExecutionContext> ctx;
};

// Builds and loads the model; on failure returns false with the case result.
bool BuildAndLoad(const std::string& model, const BuildOptions& options, Loaded* loaded, CaseResult* failure) {
  std::vector<uint8_t> plan;
  BuildReport report;
  Status s = BuildPlan(model, options, &plan, &report);
  if (!s.ok()) {
    std::string message = s.ToString();
    *failure = Lower(message).find("unsupported") != std::string::npos ? CaseResult{Outcome::kUnsupported, message, ""}
                                                                         : Fail("build: " + message);
    return false;
  }
  s = Engine::LoadFromBuffer(plan.data(), plan.size(), &loaded->engine);
  if (!s.ok()) {
    *failure = Fail("load: " + s.ToString());
    return false;
  }
  s = loaded->engine->CreateContext(ContextOptions{}, &loaded->ctx);
  if (!s.ok()) {
    *failure = Fail("context: " + s.ToString());
    return false;
  }
  return true;
}

}  // namespace

CaseResult RunCase(const std::string& case_dir, const Tolerance& tolerance) {
  const std::string model = (fs::path(case_dir) / "model.onnx").string();
  Loaded built;
  CaseResult failure;
  if (!BuildAndLoad(model, BuildOptions{}, &built, &failure)) return failure;

  for (const fs::path& set : DataSets(case_dir)) {
    const std::string set_name = set.filename().string();
    std::vector<HostTensor> inputs, outputs;
    Status s = ReadNumbered(set, "input", &inputs);
    if (s.ok()) s = ReadNumbered(set, "output", &outputs);
    if (!s.ok()) return Fail(set_name + ": reading test data: " + s.ToString());

    // Plans have static shapes: when the test feeds other input shapes than
    // the model declares, build a plan for this data set's shapes.
    Loaded rebuilt;
    Loaded* use = &built;
    BuildOptions options;
    options.input_shapes = DifferingShapes(*built.engine, inputs);
    for (const auto& [name, shape] : options.input_shapes) {
      const Shape& declared = built.engine->FindInput(name)->shape;
      if (declared.size() != shape.size()) {
        return {Outcome::kUnsupported,
                set_name + ": unsupported: test data feeds input '" + name + "' a rank-" +
                    std::to_string(shape.size()) + " tensor (" + ShapeToString(shape) +
                    ") but the model declares rank " + std::to_string(declared.size()) + " (" +
                    ShapeToString(declared) + "); plans have static shapes",
                ""};
      }
    }
    if (!options.input_shapes.empty()) {
      if (!BuildAndLoad(model, options, &rebuilt, &failure)) {
        failure.message = set_name + ": building for the test data's input shapes: " + failure.message;
        return failure;
      }
      use = &rebuilt;
    }
    s = BindInputs(*use->engine, &inputs, use->ctx.get());
    if (!s.ok()) return Fail(set_name + ": " + s.ToString());
    s = use->ctx->Run();
    if (!s.ok()) {
      // A kernel that can only tell at run time (e.g. from an input's value)
      // refuses with an "unsupported" status: the same as a build refusal.
      const Outcome outcome = s.code() == StatusCode::kUnsupported ? Outcome::kUnsupported : Outcome::kFail;
      return {outcome, set_name + ": run: " + s.ToString(), ""};
    }
    s = CheckOutputs(*use->engine, &outputs, *use->ctx, tolerance);
    if (!s.ok()) return Fail(set_name + ": " + s.ToString());
  }
  return {Outcome::kPass, "", ""};
}

}  // namespace conformance
}  // namespace loom
