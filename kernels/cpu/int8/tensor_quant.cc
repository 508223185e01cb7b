#include "kernels/cpu/int8/tensor_quant.h"

#include <cmath>
#include <limits>

#include "kernels/cpu/nn/activation_epilogue.h"

namespace loom {
namespace int8 {

Status ReadActQuant(const KernelSetup& s, const TensorInfo& t, const std::string& what, ActQuant* out) {
  if (!t.present) return s.Unsupported(what + " absent");
  if (t.dtype != DType::kInt8) return s.Unsupported(what + " dtype " + DTypeName(t.dtype) + " (int8 kernel)");
  const QuantParams& q = t.quant;
  if (q.scale.empty()) return s.Unsupported(what + " without quantization parameters");
  if (q.scale.size() != 1 || q.zero_point.size() > 1)
    return s.Unsupported(what + " with per-channel quantization (" + std::to_string(q.scale.size()) + " scales, " +
                         std::to_string(q.zero_point.size()) + " zero points)");
  const float scale = q.scale[0];
  if (!std::isfinite(scale) || !(scale > 0.f))
    return s.Unsupported(what + " scale " + std::to_string(scale) + " (expected finite and > 0)");
  const int64_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
  if (zp < -128 || zp > 127) return s.Unsupported(what + " zero point " + std::to_string(zp) + " outside int8");
  out->scale = scale;
  out->zero_point = static_cast<int32_t>(zp);
  return Status::Ok();
}

Status FusedActivationRange(const KernelSetup& s, const ActQuant& y, requant::Range* out) {
  nn::Activation act;
  RETURN_IF_ERROR(nn::ParseActivation(s, &act));
  const float inf = std::numeric_limits<float>::infinity();
  switch (act.kind) {
    case nn::ActivationKind::kNone:
      *out = requant::ActivationRange(true, y.scale, y.zero_point, -inf, inf);
      return Status::Ok();
    case nn::ActivationKind::kRelu:
      *out = requant::ActivationRange(true, y.scale, y.zero_point, 0.f, inf);
      return Status::Ok();
    case nn::ActivationKind::kClip:
      *out = requant::ActivationRange(true, y.scale, y.zero_point, act.min, act.max);
      return Status::Ok();
    default:
      return s.Unsupported("fused activation '" + s.attrs.GetString("loom.activation", "") + "' on an int8 " + s.op);
  }
}

Status MakeRescaleTable(const ActQuant& in, const ActQuant& out, requant::Range range, Table* table) {
  requant::RescaleParams p;
  RETURN_IF_ERROR(requant::MakeRescaleParams(in.scale, in.zero_point, out.scale, out.zero_point, range, &p));
  for (int q = -128; q <= 127; ++q) table->v[q + 128] = static_cast<int8_t>(requant::Rescale(q, p));
  return Status::Ok();
}

}  // namespace int8
}  // namespace loom
