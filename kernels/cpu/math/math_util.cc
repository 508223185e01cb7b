#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {

Status CheckArity(const KernelSetup& setup, size_t min_in, size_t max_in, size_t n_out, size_t required) {
  const size_t n_in = setup.inputs.size();
  if (n_in < min_in || n_in > max_in) {
    const std::string expected =
        min_in == max_in ? std::to_string(min_in) : std::to_string(min_in) + ".." + std::to_string(max_in);
    return setup.Invalid("has " + std::to_string(n_in) + " inputs, expected " + expected);
  }
  for (size_t i = 0; i < required && i < n_in; ++i) {
    if (!setup.inputs[i].present) return setup.Invalid("required input " + std::to_string(i) + " is missing");
  }
  if (setup.outputs.size() != n_out) {
    return setup.Invalid("has " + std::to_string(setup.outputs.size()) + " outputs, expected " + std::to_string(n_out));
  }
  for (const TensorInfo& in : setup.inputs) {
    if (in.present) RETURN_IF_ERROR(CheckShape(setup, "input", in.shape));
  }
  for (const TensorInfo& out : setup.outputs) RETURN_IF_ERROR(CheckShape(setup, "output", out.shape));
  return Status::Ok();
}

Status CheckOutput(const KernelSetup& setup, size_t i, DType dtype, const Shape& shape) {
  const TensorInfo& out = setup.outputs[i];
  if (out.dtype != dtype) {
    return setup.Invalid("output " + std::to_string(i) + " has dtype " + DTypeName(out.dtype) + ", expected " +
                         DTypeName(dtype));
  }
  if (out.shape != shape) {
    return setup.Invalid("output " + std::to_string(i) + " has shape " + ShapeToString(out.shape) + ", expected " +
                         ShapeToString(shape));
  }
  return Status::Ok();
}

Status CheckShape(const KernelSetup& setup, const std::string& what, const Shape& shape) {
  if (shape.size() > static_cast<size_t>(kMaxRank)) {
    return setup.Unsupported(what + " of rank " + std::to_string(shape.size()) + " (at most " +
                             std::to_string(kMaxRank) + ")");
  }
  if (NumElements(shape) < 0) return setup.Invalid(what + " has invalid shape " + ShapeToString(shape));
  return Status::Ok();
}

Status ReadFloatAttr(const KernelSetup& setup, const char* name, float def, float* out) {
  const Attribute* a = setup.attrs.Find(name);
  if (!a) {
    *out = def;
    return Status::Ok();
  }
  if (a->kind == Attribute::Kind::kFloat) {
    *out = a->f;
  } else if (a->kind == Attribute::Kind::kInt) {
    *out = static_cast<float>(a->i);
  } else {
    return setup.Invalid(std::string("attribute ") + name + " is " + AttributeKindName(a->kind) + ", expected float");
  }
  return Status::Ok();
}

Status ReadIntAttr(const KernelSetup& setup, const char* name, int64_t def, int64_t* out) {
  const Attribute* a = setup.attrs.Find(name);
  if (!a) {
    *out = def;
    return Status::Ok();
  }
  if (a->kind != Attribute::Kind::kInt) {
    return setup.Invalid(std::string("attribute ") + name + " is " + AttributeKindName(a->kind) + ", expected int");
  }
  *out = a->i;
  return Status::Ok();
}

Status UnsupportedDType(const KernelSetup& setup, const std::string& tensor, DType dtype) {
  return setup.Unsupported(std::string("dtype ") + DTypeName(dtype) + " for " + tensor);
}

}  // namespace math
}  // namespace loom
