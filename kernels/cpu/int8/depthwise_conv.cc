#include "kernels/cpu/int8/depthwise_conv.h"

#include <cstddef>

#include "kernels/cpu/int8/gemm_s8.h"

namespace loom {
namespace int8 {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

int64_t PaddedHeight(const nn::WindowGeometry& g) { return g.in[1] + g.pad_begin[1] + g.pad_end[1]; }
int64_t PaddedWidth(const nn::WindowGeometry& g) { return g.in[2] + g.pad_begin[2] + g.pad_end[2]; }

// acc[ow] = sum over the K x K taps w of in[kh * wp + ow * sw + kw] (unit
// dilation). int16 operands: the products widen to int32 in the vector
// registers (pmullw/pmulhw, smull) instead of emulated 32-bit multiplies.
template <int K>
void RowTaps(const int16_t* in, int64_t wp, const int8_t* w, int64_t sw, int64_t ow_n, int32_t* acc) {
  int16_t wk[K * K];
  for (int i = 0; i < K * K; ++i) wk[i] = w[i];
  if (sw == 1) {
    for (int64_t ow = 0; ow < ow_n; ++ow) {
      int32_t s = 0;
      for (int kh = 0; kh < K; ++kh)
        for (int kw = 0; kw < K; ++kw) s += wk[kh * K + kw] * in[kh * wp + ow + kw];
      acc[ow] = s;
    }
  } else {
    for (int64_t ow = 0; ow < ow_n; ++ow) {
      int32_t s = 0;
      for (int kh = 0; kh < K; ++kh)
        for (int kw = 0; kw < K; ++kw) s += wk[kh * K + kw] * in[kh * wp + ow * sw + kw];
      acc[ow] = s;
    }
  }
}

// The generic form: any kernel size, dilation and stride.
void RowTapsGeneric(const nn::WindowGeometry& g, const int16_t* in, int64_t wp, const int8_t* w, int32_t* acc) {
  const int64_t ow_n = g.out[2], sw = g.stride[2];
  for (int64_t ow = 0; ow < ow_n; ++ow) acc[ow] = 0;
  for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
    const int16_t* row = in + kh * g.dilation[1] * wp;
    for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
      const int16_t wv = w[kh * g.kernel[2] + kw];
      const int16_t* s = row + kw * g.dilation[2];
      if (sw == 1) {
        for (int64_t ow = 0; ow < ow_n; ++ow) acc[ow] += wv * s[ow];
      } else {
        for (int64_t ow = 0; ow < ow_n; ++ow) acc[ow] += wv * s[ow * sw];
      }
    }
  }
}

}  // namespace

size_t DepthwiseScratchBytes(const nn::WindowGeometry& g) {
  return AlignUp(static_cast<size_t>(PaddedHeight(g) * PaddedWidth(g)) * sizeof(int16_t)) +
         AlignUp(static_cast<size_t>(g.out[2]) * sizeof(int32_t));
}

void DepthwisePlane(const nn::WindowGeometry& g, const int8_t* x, int32_t x_zp, const int8_t* w, int32_t bias,
                    const OutputSteps& steps, int64_t channel, int8_t* y, void* scratch) {
  // The plane as int16 inside a border of the zero point.
  const int64_t hp = PaddedHeight(g), wp = PaddedWidth(g);
  int16_t* in = static_cast<int16_t*>(scratch);
  int32_t* acc =
      reinterpret_cast<int32_t*>(static_cast<char*>(scratch) + AlignUp(static_cast<size_t>(hp * wp) * sizeof(int16_t)));
  const int16_t zp = static_cast<int16_t>(x_zp);
  for (int64_t h = 0; h < hp; ++h) {
    int16_t* dst = in + h * wp;
    const int64_t src_h = h - g.pad_begin[1];
    if (src_h < 0 || src_h >= g.in[1]) {
      for (int64_t i = 0; i < wp; ++i) dst[i] = zp;
      continue;
    }
    const int8_t* src = x + src_h * g.in[2];
    for (int64_t i = 0; i < g.pad_begin[2]; ++i) dst[i] = zp;
    for (int64_t i = 0; i < g.in[2]; ++i) dst[g.pad_begin[2] + i] = src[i];
    for (int64_t i = g.pad_begin[2] + g.in[2]; i < wp; ++i) dst[i] = zp;
  }
  const int64_t kh = g.kernel[1], kw = g.kernel[2], ow_n = g.out[2];
  const bool unit_dilation = g.dilation[1] == 1 && g.dilation[2] == 1;
  for (int64_t oh = 0; oh < g.out[1]; ++oh) {
    const int16_t* src = in + oh * g.stride[1] * wp;
    if (unit_dilation && kh == 3 && kw == 3) {
      RowTaps<3>(src, wp, w, g.stride[2], ow_n, acc);
    } else if (unit_dilation && kh == 5 && kw == 5) {
      RowTaps<5>(src, wp, w, g.stride[2], ow_n, acc);
    } else {
      RowTapsGeneric(g, src, wp, w, acc);
    }
    RequantizeRow(steps, channel, acc, bias, ow_n, y + oh * ow_n);
  }
}

}  // namespace int8
}  // namespace loom
