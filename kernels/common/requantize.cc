#include "kernels/common/requantize.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace loom {
namespace requant {

Status QuantizeMultiplier(double scale, Multiplier* out) {
  auto bad = [&] {
    return Status::InvalidArgument("requantization scale " + std::to_string(scale) + " is not in (0, 2^31)");
  };
  if (!std::isfinite(scale) || scale <= 0 || scale >= 2147483648.0) return bad();
  int exponent = 0;
  const double fraction = std::frexp(scale, &exponent);  // scale = fraction · 2^exponent, fraction in [0.5, 1)
  int64_t multiplier = std::llround(fraction * 2147483648.0);
  if (multiplier == (int64_t{1} << 31)) {  // rounded up to 1.0: renormalise
    multiplier /= 2;
    ++exponent;
  }
  if (exponent > 31) return bad();
  *out = Multiplier();
  if (exponent < -31) return Status::Ok();  // too small for any shift: every value maps to the zero point
  out->multiplier = static_cast<int32_t>(multiplier);
  out->shift = exponent;
  return Status::Ok();
}

Range ActivationRange(bool is_signed, float scale, int32_t zero_point, float lo, float hi) {
  Range r;
  r.min = is_signed ? -128 : 0;
  r.max = is_signed ? 127 : 255;
  auto bound = [&](float real) {
    const double q = static_cast<double>(zero_point) + std::round(static_cast<double>(real) / scale);
    return static_cast<int32_t>(std::clamp<double>(q, r.min, r.max));
  };
  if (std::isfinite(lo)) r.min = std::max(r.min, bound(lo));
  if (std::isfinite(hi)) r.max = std::min(r.max, bound(hi));
  return r;
}

Status MakeAddParams(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point, float out_scale,
                     int32_t out_zero_point, Range range, AddParams* out) {
  const double twice_max = 2.0 * std::max<double>(a_scale, b_scale);
  AddParams p;
  p.a_zero_point = a_zero_point;
  p.b_zero_point = b_zero_point;
  RETURN_IF_ERROR(QuantizeMultiplier(a_scale / twice_max, &p.a));
  RETURN_IF_ERROR(QuantizeMultiplier(b_scale / twice_max, &p.b));
  RETURN_IF_ERROR(QuantizeMultiplier(twice_max / (static_cast<double>(1 << kAddLeftShift) * out_scale), &p.output.m));
  p.output.zero_point = out_zero_point;
  p.output.range = range;
  *out = p;
  return Status::Ok();
}

Status MakeOutputStage(float in_scale, float weight_scale, float out_scale, int32_t out_zero_point, Range range,
                       OutputStage* out) {
  OutputStage s;
  RETURN_IF_ERROR(QuantizeMultiplier(static_cast<double>(in_scale) * weight_scale / out_scale, &s.m));
  s.zero_point = out_zero_point;
  s.range = range;
  *out = s;
  return Status::Ok();
}

Status MakeRescaleParams(float in_scale, int32_t in_zero_point, float out_scale, int32_t out_zero_point, Range range,
                         RescaleParams* out) {
  RescaleParams p;
  p.in_zero_point = in_zero_point;
  RETURN_IF_ERROR(QuantizeMultiplier(static_cast<double>(in_scale) / out_scale, &p.output.m));
  p.output.zero_point = out_zero_point;
  p.output.range = range;
  *out = p;
  return Status::Ok();
}

}  // namespace requant
}  // namespace loom
