// Reads Loom's fused-residual marker of a node (builder/passes/fuse_conv_add.h):
//   loom.residual   int, 1: input `index` is a residual R of the output's
//                   shape and dtype, added to the output before the fused
//                   activation (absent or 0: no residual).
#pragma once

#include <string>

#include "kernels/common/kernel.h"

namespace loom {
namespace nn {

// Sets *has to whether the node carries a residual at input `index`. A
// residual input without the attribute, the attribute without the input, a
// non-int attribute or an R of another dtype or shape than `out_shape` is
// Invalid.
inline Status ParseResidual(const KernelSetup& setup, size_t index, DType dtype, const Shape& out_shape, bool* has) {
  *has = false;
  const Attribute* a = setup.attrs.Find("loom.residual");
  if (a && a->kind != Attribute::Kind::kInt) return setup.Invalid("attribute loom.residual must be an int");
  const bool marked = a && a->i != 0;
  if (!marked) {
    if (setup.HasInput(index)) return setup.Invalid("input " + std::to_string(index) + " needs loom.residual = 1");
    return Status::Ok();
  }
  if (!setup.HasInput(index)) return setup.Invalid("loom.residual without a residual input");
  const TensorInfo& r = setup.inputs[index];
  if (r.dtype != dtype) return setup.Invalid(std::string("residual has dtype ") + DTypeName(r.dtype));
  if (r.shape != out_shape)
    return setup.Invalid("residual has shape " + ShapeToString(r.shape) + ", expected " + ShapeToString(out_shape));
  *has = true;
  return Status::Ok();
}

}  // namespace nn
}  // namespace loom
