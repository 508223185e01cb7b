#include "builder/quantize/quant_scheme.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loom {
namespace quantize {

namespace {

// Elements per channel and channel count of `shape` split at `axis`:
// index = (outer * channels + c) * inner + i.
struct ChannelSplit {
  int64_t outer = 1, channels = 1, inner = 1;
};

ChannelSplit SplitAt(const Shape& shape, int axis) {
  ChannelSplit s;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < axis) s.outer *= shape[static_cast<size_t>(d)];
    if (d == axis) s.channels = shape[static_cast<size_t>(d)];
    if (d > axis) s.inner *= shape[static_cast<size_t>(d)];
  }
  return s;
}

std::vector<int64_t> ChannelSums(const std::vector<int8_t>& w, const Shape& shape, int axis) {
  const ChannelSplit s = SplitAt(shape, axis);
  std::vector<int64_t> sums(static_cast<size_t>(s.channels), 0);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t c = 0; c < s.channels; ++c)
      for (int64_t i = 0; i < s.inner; ++i) sums[static_cast<size_t>(c)] += w[static_cast<size_t>((o * s.channels + c) * s.inner + i)];
  return sums;
}

Status ToInt32(double v, int32_t* out) {
  if (!(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()))
    return Status::InvalidArgument("quantized bias " + std::to_string(v) + " leaves the int32 range");
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

}  // namespace

QuantParams ActivationParams(const ActivationRange& range) {
  QuantParams p;
  if (range.degenerate()) {
    p.scale = {1.f};
    p.zero_point = {0};
    return p;
  }
  const double lo = std::min(0.0, static_cast<double>(range.lo));
  const double hi = std::max(0.0, static_cast<double>(range.hi));
  const float scale = static_cast<float>((hi - lo) / 255.0);
  const double zp = std::nearbyint(-128.0 - lo / scale);
  p.scale = {scale};
  p.zero_point = {static_cast<int64_t>(std::min(127.0, std::max(-128.0, zp)))};
  return p;
}

int8_t QuantizeValue(float x, float scale, int32_t zero_point) {
  const double q = std::nearbyint(static_cast<double>(x) / scale) + zero_point;
  return static_cast<int8_t>(std::min(127.0, std::max(-128.0, q)));
}

Status QuantizeWeights(const float* w, const Shape& shape, int axis, std::vector<int8_t>* q, QuantParams* params) {
  const ChannelSplit s = SplitAt(shape, axis);
  std::vector<float> max_abs(static_cast<size_t>(s.channels), 0.f);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t c = 0; c < s.channels; ++c)
      for (int64_t i = 0; i < s.inner; ++i) {
        const float v = w[(o * s.channels + c) * s.inner + i];
        if (!std::isfinite(v)) return Status::InvalidArgument("weight has a NaN or Inf value");
        max_abs[static_cast<size_t>(c)] = std::max(max_abs[static_cast<size_t>(c)], std::fabs(v));
      }
  params->scale.assign(static_cast<size_t>(s.channels), 1.f);
  params->zero_point.assign(static_cast<size_t>(s.channels), 0);
  params->axis = axis;
  for (size_t c = 0; c < max_abs.size(); ++c)
    if (max_abs[c] > 0) params->scale[c] = max_abs[c] / 127.f;
  q->resize(static_cast<size_t>(s.outer * s.channels * s.inner));
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t c = 0; c < s.channels; ++c)
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t k = (o * s.channels + c) * s.inner + i;
        const double v = std::nearbyint(static_cast<double>(w[k]) / params->scale[static_cast<size_t>(c)]);
        (*q)[static_cast<size_t>(k)] = static_cast<int8_t>(std::min(127.0, std::max(-127.0, v)));
      }
  return Status::Ok();
}

Status QuantizeConstant(const float* x, int64_t n, std::vector<int8_t>* q, QuantParams* params) {
  RangeCollector collector;
  collector.Add(x, static_cast<size_t>(n));
  ActivationRange range;
  if (collector.finite_count() != static_cast<uint64_t>(n))
    return Status::InvalidArgument("constant has a NaN or Inf value");
  if (n > 0) RETURN_IF_ERROR(collector.MinMaxRange(&range));
  *params = ActivationParams(range);
  q->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    (*q)[static_cast<size_t>(i)] = QuantizeValue(x[i], params->scale[0], static_cast<int32_t>(params->zero_point[0]));
  return Status::Ok();
}

Status FoldBias(const float* bias, const std::vector<int8_t>& w, const Shape& w_shape, int axis,
                const QuantParams& w_params, const QuantParams& x, std::vector<int32_t>* out) {
  const std::vector<int64_t> sums = ChannelSums(w, w_shape, axis);
  out->resize(sums.size());
  for (size_t m = 0; m < sums.size(); ++m) {
    const double w_scale = w_params.scale[w_params.per_channel() ? m : 0];
    const double b = bias ? std::nearbyint(static_cast<double>(bias[m]) / (static_cast<double>(x.scale[0]) * w_scale)) : 0;
    RETURN_IF_ERROR(ToInt32(b - static_cast<double>(x.zero_point[0]) * static_cast<double>(sums[m]), &(*out)[m]));
  }
  return Status::Ok();
}

Status FoldQuantizedBias(const int32_t* bias, const std::vector<int8_t>& w, const Shape& w_shape, int axis,
                         const QuantParams& x, std::vector<int32_t>* out) {
  const std::vector<int64_t> sums = ChannelSums(w, w_shape, axis);
  out->resize(sums.size());
  for (size_t m = 0; m < sums.size(); ++m)
    RETURN_IF_ERROR(ToInt32(static_cast<double>(bias[m]) - static_cast<double>(x.zero_point[0]) * sums[m], &(*out)[m]));
  return Status::Ok();
}

}  // namespace quantize
}  // namespace loom
