#include "kernels/cpu/quant/linear_quant.h"

#include <string>

#include "kernels/common/attribute_readers.h"

namespace loom {
namespace quant {

Status PrepareLinearQuantParams(const KernelSetup& s, LinearQuantParams* p) {
  const TensorInfo& x = s.inputs[0];
  const TensorInfo& scale = s.inputs[1];
  int64_t block_size = 0;
  RETURN_IF_ERROR(ReadIntAttr(s, "block_size", 0, &block_size));
  if (block_size != 0) return s.Unsupported("blocked quantization (block_size " + std::to_string(block_size) + ")");
  if (scale.dtype != DType::kFloat32) {
    if (IsFloatingPoint(scale.dtype)) return s.Unsupported(std::string("scale dtype ") + DTypeName(scale.dtype));
    return s.Invalid(std::string("scale has dtype ") + DTypeName(scale.dtype) + ", expected float32");
  }
  *p = LinearQuantParams{};
  p->inner = x.num_elements();
  if (scale.rank() > 1) {
    return s.Invalid("scale has shape " + ShapeToString(scale.shape) + ", expected a scalar or 1-D");
  }
  if (scale.rank() == 1 && scale.shape[0] != 1) {
    if (s.opset < 13) {
      return s.Invalid("scale has shape " + ShapeToString(scale.shape) + ", expected one element before opset 13");
    }
    int axis = 0;
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 1, x.rank(), &axis));
    if (scale.shape[0] != x.shape[axis]) {
      return s.Invalid("scale has " + std::to_string(scale.shape[0]) + " elements, expected " +
                       std::to_string(x.shape[axis]) + " (input 0 dim " + std::to_string(axis) + ")");
    }
    p->channels = x.shape[axis];
    p->inner = 1;
    for (int d = axis + 1; d < x.rank(); ++d) p->inner *= x.shape[d];
  }
  if (p->inner == 0) p->inner = 1;  // an empty tensor has no runs to walk
  p->const_scale = static_cast<const float*>(scale.const_data);
  if (s.HasInput(2)) {
    const TensorInfo& zp = s.inputs[2];
    const bool both_one = zp.num_elements() == 1 && scale.num_elements() == 1 && zp.rank() <= 1;
    if (zp.shape != scale.shape && !both_one) {
      return s.Invalid("zero point has shape " + ShapeToString(zp.shape) + ", expected the scale's shape " +
                       ShapeToString(scale.shape));
    }
    p->has_zero_point = true;
    p->zero_point_dtype = zp.dtype;
    p->const_zero_point = zp.const_data;
  }
  return Status::Ok();
}

}  // namespace quant
}  // namespace loom
