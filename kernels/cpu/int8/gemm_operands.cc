#include "kernels/cpu/int8/gemm_operands.h"

#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace int8 {

Status ReadGemmOperands(const KernelSetup& s, GemmOperands* out) {
  const TensorInfo& a = s.inputs[0];
  const TensorInfo& b = s.inputs[1];
  if (a.rank() != 2 || b.rank() != 2)
    return s.Invalid("A and B must be 2-D, got " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape));
  int64_t trans_a = 0, trans_b = 0;
  float alpha = 1.f, beta = 1.f;
  RETURN_IF_ERROR(ReadIntAttr(s, "transA", 0, &trans_a));
  RETURN_IF_ERROR(ReadIntAttr(s, "transB", 0, &trans_b));
  RETURN_IF_ERROR(ReadFloatAttr(s, "alpha", 1.f, &alpha));
  RETURN_IF_ERROR(ReadFloatAttr(s, "beta", 1.f, &beta));
  if (trans_a != 0) return s.Unsupported("transA = " + std::to_string(trans_a) + " on int8");
  if (alpha != 1.f || beta != 1.f)
    return s.Unsupported("alpha " + std::to_string(alpha) + " and beta " + std::to_string(beta) +
                         " on int8 (both must be 1)");
  GemmOperands g;
  g.trans_b = trans_b != 0;
  g.m = a.shape[0];
  g.k = a.shape[1];
  g.n = g.trans_b ? b.shape[0] : b.shape[1];
  const int64_t kb = g.trans_b ? b.shape[1] : b.shape[0];
  if (kb != g.k)
    return s.Invalid("inner dims differ: A is " + ShapeToString(a.shape) + ", op(B) is " + std::to_string(kb) + "x" +
                     std::to_string(g.n));
  RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, {g.m, g.n}));
  g.spec.weight_axis = g.trans_b ? 0 : 1;
  g.spec.channels = g.n;
  g.spec.bias_may_be_row = true;
  *out = g;
  return Status::Ok();
}

}  // namespace int8
}  // namespace loom
