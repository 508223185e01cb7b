#include "builder/onnx/shape_inference.h"

#include <exception>

#include "builder/onnx/model_checks.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace loom {
namespace onnx_import {

namespace {

Status TryInfer(onnx::ModelProto* model, bool check_type, int error_mode) {
  try {
    onnx::ShapeInferenceOptions options(check_type, error_mode, /*data_prop=*/true);
    onnx::shape_inference::InferShapes(*model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("ONNX shape inference: " + OneLine(e.what()));
  } catch (...) {
    return Status::InvalidArgument("ONNX shape inference failed");
  }
  return Status::Ok();
}

}  // namespace

Status InferOnnxShapes(onnx::ModelProto* model, std::vector<std::string>* notes) {
  // A failed run leaves what it inferred before failing; the next, more
  // lenient run merges with it (same facts), so no copy of the model is needed.
  Status s = TryInfer(model, true, 1);
  if (s.ok()) return s;
  // Lenient: node errors are skipped; then without type checks (exporters of
  // old opsets sometimes used types the opset's schema did not list yet).
  if (!TryInfer(model, true, 0).ok() && !TryInfer(model, false, 0).ok()) return s;
  notes->push_back(s.message() + " (continuing with partial shapes)");
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace loom
