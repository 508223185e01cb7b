// Test helpers of the quant group: random 8-bit data as test tensors, and
// the naive references of the integer cores (int_conv.h, int_matmul.h) that
// the ConvInteger / MatMulInteger and QLinearConv / QLinearMatMul tests share.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/attributes.h"
#include "kernels/common/requantize.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace quant {

// Random values of `dtype` (uint8 or int8) as int32.
inline std::vector<int32_t> Random8(DType dtype, int64_t n, std::mt19937* gen) {
  std::uniform_int_distribution<int> dist(dtype == DType::kInt8 ? -128 : 0, dtype == DType::kInt8 ? 127 : 255);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& x : v) x = dist(*gen);
  return v;
}

// A uint8 or int8 test tensor holding `v`.
inline testing::TestTensor Make8(DType dtype, Shape shape, const std::vector<int32_t>& v, bool constant = false) {
  if (dtype == DType::kInt8)
    return testing::TestTensor::Of<int8_t>(shape, std::vector<int8_t>(v.begin(), v.end()), constant);
  return testing::TestTensor::Of<uint8_t>(shape, std::vector<uint8_t>(v.begin(), v.end()), constant);
}

// --- Convolution -------------------------------------------------------------

struct ConvCase {
  Shape x;  // N, C, spatial...
  int64_t out_channels;
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides, dilations, pads;  // pads: begins then ends
  int64_t group = 1;
  std::string auto_pad = "NOTSET";                // SAME_*/VALID ignore pads
};

// Explicit pads of `c` (resolving auto_pad) per spatial axis.
inline void ResolvePads(const ConvCase& c, std::vector<int64_t>* begin, std::vector<int64_t>* end) {
  const size_t r = c.kernel.size();
  begin->assign(r, 0);
  end->assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    if (c.auto_pad == "NOTSET") {
      (*begin)[i] = c.pads[i];
      (*end)[i] = c.pads[i + r];
    } else if (c.auto_pad != "VALID") {
      const int64_t in = c.x[2 + i], s = c.strides[i], ext = (c.kernel[i] - 1) * c.dilations[i] + 1;
      const int64_t out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + ext - in);
      (*begin)[i] = c.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      (*end)[i] = total - (*begin)[i];
    }
  }
}

// Direct convolution of (x - x_zp) and (w - w_zp[m]) with plain loops over a
// general N-D index; taps outside the input contribute 0.
inline std::vector<int32_t> ReferenceConv(const ConvCase& c, const std::vector<int32_t>& x,
                                          const std::vector<int32_t>& w, int32_t x_zp,
                                          const std::vector<int32_t>& w_zp, Shape* out_shape) {
  const size_t r = c.kernel.size();
  std::vector<int64_t> pb, pe, out(r);
  ResolvePads(c, &pb, &pe);
  int64_t out_size = 1, k_size = 1, in_size = 1;
  for (size_t i = 0; i < r; ++i) {
    const int64_t ext = (c.kernel[i] - 1) * c.dilations[i] + 1;
    out[i] = (c.x[2 + i] + pb[i] + pe[i] - ext) / c.strides[i] + 1;
    out_size *= out[i];
    k_size *= c.kernel[i];
    in_size *= c.x[2 + i];
  }
  *out_shape = {c.x[0], c.out_channels};
  for (int64_t o : out) out_shape->push_back(o);
  const int64_t cin = c.x[1], cg = cin / c.group, mg = c.out_channels / c.group;
  std::vector<int32_t> y;
  std::vector<int64_t> pos(r), tap(r);
  for (int64_t n = 0; n < c.x[0]; ++n)
    for (int64_t m = 0; m < c.out_channels; ++m) {
      const int32_t wz = w_zp.empty() ? 0 : w_zp[w_zp.size() == 1 ? 0 : m];
      for (int64_t p = 0; p < out_size; ++p) {
        int32_t acc = 0;
        for (int64_t ci = 0; ci < cg; ++ci)
          for (int64_t t = 0; t < k_size; ++t) {
            // Decompose output position p and tap t (last axis fastest).
            int64_t pr = p, tr = t, in_index = 0;
            bool inside = true;
            for (size_t i = r; i-- > 0;) {
              pos[i] = pr % out[i];
              pr /= out[i];
              tap[i] = tr % c.kernel[i];
              tr /= c.kernel[i];
            }
            for (size_t i = 0; i < r; ++i) {
              const int64_t coord = pos[i] * c.strides[i] - pb[i] + tap[i] * c.dilations[i];
              inside = inside && coord >= 0 && coord < c.x[2 + i];
              in_index = in_index * c.x[2 + i] + coord;
            }
            if (!inside) continue;
            const int64_t g = m / mg;
            const int32_t xv = x[(n * cin + g * cg + ci) * in_size + in_index] - x_zp;
            const int32_t wv = w[(m * cg + ci) * k_size + t] - wz;
            acc += xv * wv;
          }
        y.push_back(acc);
      }
    }
  return y;
}

inline Attributes ConvAttrs(const ConvCase& c) {
  Attributes a;
  a.SetInts("strides", c.strides);
  a.SetInts("dilations", c.dilations);
  if (c.auto_pad == "NOTSET") {
    a.SetInts("pads", c.pads);
  } else {
    a.SetString("auto_pad", c.auto_pad);
  }
  if (c.group != 1) a.SetInt("group", c.group);
  return a;
}

// --- Matrix product ----------------------------------------------------------

// numpy matmul of (A - a_zp) and (B - b_zp) with plain loops; a_zp has 1 or M
// values (per row), b_zp 1 or N (per column).
inline std::vector<int32_t> ReferenceMatMul(const Shape& a_shape, const Shape& b_shape, const std::vector<int32_t>& a,
                                            const std::vector<int32_t>& b, const std::vector<int32_t>& a_zp,
                                            const std::vector<int32_t>& b_zp, Shape* out_shape) {
  Shape as = a_shape, bs = b_shape;
  if (a_shape.size() == 1) as.insert(as.begin(), 1);
  if (b_shape.size() == 1) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const size_t rank = std::max(as.size(), bs.size()) - 2;
  Shape ab(rank, 1), bb(rank, 1), batch(rank);
  for (size_t i = 0; i + 2 < as.size(); ++i) ab[rank - (as.size() - 2) + i] = as[i];
  for (size_t i = 0; i + 2 < bs.size(); ++i) bb[rank - (bs.size() - 2) + i] = bs[i];
  for (size_t i = 0; i < rank; ++i) batch[i] = std::max(ab[i], bb[i]);
  *out_shape = batch;
  if (a_shape.size() > 1) out_shape->push_back(m);
  if (b_shape.size() > 1) out_shape->push_back(n);
  std::vector<int32_t> y;
  const int64_t total = NumElements(batch);
  for (int64_t t = 0; t < total; ++t) {
    int64_t rest = t, ai = 0, bi = 0, astride = 1, bstride = 1;
    for (size_t i = rank; i-- > 0;) {
      const int64_t idx = rest % batch[i];
      rest /= batch[i];
      ai += (ab[i] == 1 ? 0 : idx) * astride;
      bi += (bb[i] == 1 ? 0 : idx) * bstride;
      astride *= ab[i];
      bstride *= bb[i];
    }
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        int32_t acc = 0;
        for (int64_t q = 0; q < k; ++q) {
          const int32_t av = a[(ai * m + r) * k + q] - (a_zp.empty() ? 0 : a_zp[a_zp.size() == 1 ? 0 : r]);
          const int32_t bv = b[(bi * k + q) * n + c] - (b_zp.empty() ? 0 : b_zp[b_zp.size() == 1 ? 0 : c]);
          acc += av * bv;
        }
        y.push_back(acc);
      }
  }
  return y;
}

// --- QLinear output ------------------------------------------------------------

// The QLinear ops' output for accumulator `acc` (bias included) in Loom's
// fixed-point arithmetic, which the kernels reproduce bit for bit.
inline int32_t ReferenceQLinearOutput(int32_t acc, float a_scale, float b_scale, float y_scale, int32_t y_zp,
                                      DType y) {
  requant::OutputStage stage;
  const requant::Range range = {y == DType::kInt8 ? -128 : 0, y == DType::kInt8 ? 127 : 255};
  if (!requant::MakeOutputStage(a_scale, b_scale, y_scale, y_zp, range, &stage).ok()) return -1000;
  return requant::Requantize(acc, stage);
}

// ONNX's float definition of the same: saturate(round_half_to_even(acc ·
// a_scale · b_scale / y_scale) + y_zp), evaluated in double.
inline int32_t OnnxQLinearOutput(int32_t acc, float a_scale, float b_scale, float y_scale, int32_t y_zp, DType y) {
  const double v = std::nearbyint(static_cast<double>(acc) * a_scale * b_scale / y_scale) + y_zp;
  return static_cast<int32_t>(std::clamp(v, y == DType::kInt8 ? -128.0 : 0.0, y == DType::kInt8 ? 127.0 : 255.0));
}

}  // namespace quant
}  // namespace loom
