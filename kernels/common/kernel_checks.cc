#include "kernels/common/kernel_checks.h"

namespace loom {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 56;  // keeps byte sizes far from overflow

std::string CountRange(size_t min, size_t max) {
  if (min == max) return std::to_string(min);
  if (max == SIZE_MAX) return "at least " + std::to_string(min);
  return std::to_string(min) + " to " + std::to_string(max);
}

Status CheckTensor(const KernelSetup& s, const TensorInfo& t, const std::string& what) {
  RETURN_IF_ERROR(CheckShape(s, what, t.shape));
  if (DTypeSize(t.dtype) == 0) return s.Unsupported(what + " dtype " + DTypeName(t.dtype));
  return Status::Ok();
}

}  // namespace

Status CheckNode(const KernelSetup& s, size_t min_inputs, size_t max_inputs, size_t min_outputs, size_t max_outputs) {
  if (s.inputs.size() < min_inputs || s.inputs.size() > max_inputs)
    return s.Invalid("has " + std::to_string(s.inputs.size()) + " inputs, expected " +
                     CountRange(min_inputs, max_inputs));
  if (s.outputs.size() < min_outputs || s.outputs.size() > max_outputs)
    return s.Invalid("has " + std::to_string(s.outputs.size()) + " outputs, expected " +
                     CountRange(min_outputs, max_outputs));
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (!s.inputs[i].present) {
      if (i < min_inputs) return s.Invalid("input " + std::to_string(i) + " is required but absent");
      continue;
    }
    RETURN_IF_ERROR(CheckTensor(s, s.inputs[i], "input " + std::to_string(i)));
  }
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    if (s.outputs[i].present) RETURN_IF_ERROR(CheckTensor(s, s.outputs[i], "output " + std::to_string(i)));
  }
  return Status::Ok();
}

Status CheckShape(const KernelSetup& s, const std::string& what, const Shape& shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank))
    return s.Unsupported(what + " of rank " + std::to_string(shape.size()) + " (at most " + std::to_string(kMaxRank) +
                         ")");
  for (int64_t d : shape)
    if (d < 0) return s.Invalid(what + " has a negative dim in shape " + ShapeToString(shape));
  const int64_t n = NumElements(shape);
  if (n < 0 || n > kMaxElements) return s.Invalid(what + " is too large: shape " + ShapeToString(shape));
  return Status::Ok();
}

Status CheckOutput(const KernelSetup& s, size_t i, DType dtype, const Shape& shape) {
  if (i >= s.outputs.size() || !s.outputs[i].present)
    return s.Invalid("output " + std::to_string(i) + " is required but absent");
  const TensorInfo& t = s.outputs[i];
  if (t.dtype != dtype)
    return s.Invalid("output " + std::to_string(i) + " has dtype " + DTypeName(t.dtype) + ", expected " +
                     DTypeName(dtype));
  if (t.shape != shape)
    return s.Invalid("output " + std::to_string(i) + " has shape " + ShapeToString(t.shape) + ", expected " +
                     ShapeToString(shape));
  return Status::Ok();
}

bool NormalizeAxis(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

std::string IntsToString(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(values[i]);
  }
  return s + "]";
}

}  // namespace loom
