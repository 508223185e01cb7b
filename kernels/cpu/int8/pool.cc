// MaxPool, AveragePool and GlobalAveragePool on int8 tensors.
//
// The window geometry is the float kernels' (nn/conv_geometry.h: 1-3 spatial
// dims, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode). As in
// nn/pool.cc, Prepare turns it into per-axis tap ranges: for output index o
// the taps inside the input are k in [lo[o], hi[o]), so Run has no bounds
// checks. Work is split over (batch, channel) planes.
//
//   MaxPool            the max of the raw values, which commutes with
//                      dequantization, so X and Y must have equal parameters
//                      (else Unsupported). The Indices output is Unsupported.
//                      A window without a tap inside the input gives -128.
//                      Each output row reduces its (d, h) taps to one row
//                      first; on AVX2 CPUs, for w strides 1 and 2, that row
//                      sits in a buffer bordered by -128 and its windows are
//                      reduced 32 outputs at a time (max_pool_avx2.h).
//   AveragePool        acc = Σ (q − x_zp) over the taps inside the input (a
//                      padded position is a real 0 and adds nothing), divided
//                      by ONNX's count: with count_include_pad the taps inside
//                      the padded extent (not those past it that ceil_mode
//                      adds), else the taps inside the input. The division is
//                      part of the output stage:
//                        y = requant::Requantize(acc, stage[count]),
//                        stage[count] = requant::MakeOutputStage(x_scale,
//                                         1.f / count, y_scale, y_zp, full range)
//                      i.e. the multiplier of (double)x_scale · (float)(1/count)
//                      / y_scale. Prepare makes one stage per distinct count
//                      and maps every output position to its stage.
//   GlobalAveragePool  the same with one window per plane, count = its size.
// X and Y parameters may differ for the averages. The int32 accumulator
// bounds the window: 255 · window size must stay below 2^31 (else Unsupported).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/max_pool_avx2.h"
#include "kernels/cpu/int8/tensor_quant.h"
#include "kernels/cpu/nn/conv_geometry.h"

namespace loom {
namespace int8 {
namespace {

using nn::kMaxSpatialRank;

constexpr int64_t kMaxWindow = std::numeric_limits<int32_t>::max() / 255;
// Widest input row MaxPool reduces through its per-row buffer (wider rows
// take the direct loop).
constexpr int64_t kRowMaxWidth = 4096;
// The AVX2 path's row buffer: -128, the reduced row from offset pad_begin[2], -128.
constexpr int64_t kRowBufferBytes = 2 * kRowMaxWidth;

// The output stage dividing an accumulator of x-scaled values by `count`.
Status MakeAverageStage(const KernelSetup& setup, const ActQuant& x, const ActQuant& y, int64_t count,
                        requant::OutputStage* stage) {
  const float inverse = 1.f / static_cast<float>(count > 0 ? count : 1);  // count 0: acc is 0 anyway
  return RequantStatus(setup, requant::MakeOutputStage(x.scale, inverse, y.scale, y.zero_point, requant::Range(),
                                                       stage));
}

// acc[i] = max(acc[i], row[i]) for i < n, sixteen at a time (GCC vector
// extensions: SIMD where the target has it).
void MaxInto(const int8_t* row, int64_t n, int8_t* acc) {
  using I8x16 = int8_t __attribute__((vector_size(16)));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    I8x16 a, b;
    std::memcpy(&a, acc + i, sizeof(a));
    std::memcpy(&b, row + i, sizeof(b));
    a = a > b ? a : b;
    std::memcpy(acc + i, &a, sizeof(a));
  }
  for (; i < n; ++i) acc[i] = std::max(acc[i], row[i]);
}

class PoolKernel final : public Kernel {
 public:
  explicit PoolKernel(bool average) : average_(average) {}
  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;

 private:
  void RunMax(const KernelArgs& args) const;
  void RunAverage(const KernelArgs& args) const;

  // MaxPool: the max over output position ow's w taps of a reduced row.
  int8_t RowWindowMax(const int8_t* row_max, int64_t ow) const {
    const int64_t sw = ow * g_.stride[2] - g_.pad_begin[2], dw = g_.dilation[2];
    int8_t best = -128;
    for (int64_t kw = lo_[2][ow]; kw < hi_[2][ow]; ++kw) best = std::max(best, row_max[sw + kw * dw]);
    return best;
  }

  bool average_;
  nn::WindowGeometry g_;
  int64_t full_begin_ = 0, full_end_ = 0;  // output w positions whose window lies inside the row
  bool vector_rows_ = false;               // MaxPool rows fit the AVX2 path (max_pool_avx2.h)
  int64_t row_buffer_span_ = 0;            // the bytes of its row buffer in use
  int64_t planes_ = 0;  // N * C
  int32_t x_zero_point_ = 0;
  // Per axis, per output index: taps inside the input are [lo, hi).
  std::vector<int64_t> lo_[kMaxSpatialRank], hi_[kMaxSpatialRank];
  std::vector<requant::OutputStage> stages_;  // AveragePool: one per distinct count
  std::vector<int32_t> stage_of_;             // AveragePool: per output position of a plane
};

Status PoolKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() != 1 || !setup.HasInput(0) || setup.outputs.empty())
    return setup.Invalid("expects 1 input and an output");
  ActQuant xq, yq;
  RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input X", &xq));
  RETURN_IF_ERROR(ReadActQuant(setup, setup.outputs[0], "output Y", &yq));
  if (setup.outputs.size() > (average_ ? 1u : 2u))
    return setup.Invalid("unexpected number of outputs: " + std::to_string(setup.outputs.size()));
  if (setup.outputs.size() == 2 && setup.outputs[1].present) return setup.Unsupported("output Indices (int8)");
  if (!average_ && xq != yq) return setup.Unsupported("int8 MaxPool with X and Y quantization differing");
  const TensorInfo& x = setup.inputs[0];
  if (x.rank() < 3) return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected at least 3");
  RETURN_IF_ERROR(CheckShape(setup, "input X", x.shape));
  const std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  nn::WindowOptions opts;
  opts.allow_ceil_mode = true;
  RETURN_IF_ERROR(nn::ParseWindowGeometry(setup, spatial, nullptr, opts, &g_));
  Shape out_shape = {x.shape[0], x.shape[1]};
  for (int64_t d : g_.OutDims()) out_shape.push_back(d);
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, out_shape));
  planes_ = x.shape[0] * x.shape[1];
  x_zero_point_ = xq.zero_point;

  int64_t v = 0;
  bool count_include_pad = false;
  if (average_) {
    RETURN_IF_ERROR(ReadIntAttr(setup, "count_include_pad", 0, &v));
    count_include_pad = v != 0;
    if (g_.KernelSize() > kMaxWindow)
      return setup.Unsupported("int8 AveragePool window of " + std::to_string(g_.KernelSize()) + " taps");
  } else {
    RETURN_IF_ERROR(ReadIntAttr(setup, "storage_order", 0, &v));  // only orders Indices, which is not produced
    if (v != 0 && v != 1) return setup.Invalid("storage_order " + std::to_string(v) + " is not 0 or 1");
  }

  std::vector<int64_t> padded[kMaxSpatialRank];  // taps inside the padded extent
  for (int a = 0; a < kMaxSpatialRank; ++a) {
    lo_[a].assign(g_.out[a], 0);
    hi_[a].assign(g_.out[a], 0);
    padded[a].assign(g_.out[a], 0);
    for (int64_t o = 0; o < g_.out[a]; ++o) {
      const nn::WindowTaps t = g_.Taps(a, o);
      lo_[a][o] = t.lo;
      hi_[a][o] = t.hi;
      padded[a][o] = t.padded;
    }
  }
  // The w windows wholly inside the input are consecutive (their starts increase).
  auto full = [&](int64_t o) { return lo_[2][o] == 0 && hi_[2][o] == g_.kernel[2]; };
  full_begin_ = 0;
  while (full_begin_ < g_.out[2] && !full(full_begin_)) ++full_begin_;
  full_end_ = full_begin_;
  while (full_end_ < g_.out[2] && full(full_end_)) ++full_end_;
  stages_.clear();
  stage_of_.clear();
  row_buffer_span_ = std::max(g_.pad_begin[2] + g_.in[2],
                              internal::WindowMaxSpan(g_.out[2], g_.stride[2], g_.kernel[2], g_.dilation[2]));
  vector_rows_ = (g_.stride[2] == 1 || g_.stride[2] == 2) && g_.in[2] <= kRowMaxWidth &&
                 row_buffer_span_ <= kRowBufferBytes && g_.kernel[0] * g_.kernel[1] <= internal::kMaxPoolRowTaps;
  if (!average_) return Status::Ok();
  std::map<int64_t, int32_t> stage_of_count;
  stage_of_.reserve(static_cast<size_t>(g_.OutSize()));
  for (int64_t od = 0; od < g_.out[0]; ++od)
    for (int64_t oh = 0; oh < g_.out[1]; ++oh)
      for (int64_t ow = 0; ow < g_.out[2]; ++ow) {
        const int64_t count =
            count_include_pad ? padded[0][od] * padded[1][oh] * padded[2][ow]
                              : (hi_[0][od] - lo_[0][od]) * (hi_[1][oh] - lo_[1][oh]) * (hi_[2][ow] - lo_[2][ow]);
        auto it = stage_of_count.find(count);
        if (it == stage_of_count.end()) {
          requant::OutputStage stage;
          RETURN_IF_ERROR(MakeAverageStage(setup, xq, yq, count, &stage));
          it = stage_of_count.emplace(count, static_cast<int32_t>(stages_.size())).first;
          stages_.push_back(stage);
        }
        stage_of_.push_back(it->second);
      }
  return Status::Ok();
}

void PoolKernel::RunMax(const KernelArgs& args) const {
  const int8_t* x = args.in<int8_t>(0);
  int8_t* y = args.out<int8_t>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  const bool vector = vector_rows_ && UseInt8Avx2();
  ParallelFor(args.pool, planes_, 1, [&](int64_t begin, int64_t end, int) {
    // The max over an output row's (d, h) taps of each input column, formed
    // row by row with element-wise maxima (which vectorize), then the
    // (short) max over its w taps per output position.
    alignas(32) int8_t row_buffer[kRowBufferBytes];
    int8_t* row_max = row_buffer;
    if (vector) std::fill(row_buffer, row_buffer + row_buffer_span_, static_cast<int8_t>(-128));
    for (int64_t plane = begin; plane < end; ++plane) {
      const int8_t* in = x + plane * in_size;
      int8_t* out = y + plane * out_size;
      int64_t o = 0;
      for (int64_t od = 0; od < g_.out[0]; ++od)
        for (int64_t oh = 0; oh < g_.out[1]; ++oh) {
          const int64_t sd = od * g_.stride[0] - g_.pad_begin[0], sh = oh * g_.stride[1] - g_.pad_begin[1];
          const int64_t width = g_.in[2];
          if (width <= kRowMaxWidth) {
#if defined(__x86_64__) || defined(__i386__)
            if (vector) {
              const int8_t* rows[internal::kMaxPoolRowTaps];
              int count = 0;
              for (int64_t kd = lo_[0][od]; kd < hi_[0][od]; ++kd)
                for (int64_t kh = lo_[1][oh]; kh < hi_[1][oh]; ++kh)
                  rows[count++] = in + ((sd + kd * g_.dilation[0]) * g_.in[1] + sh + kh * g_.dilation[1]) * width;
              internal::MaxPoolRowAvx2(rows, count, width, row_buffer, g_.pad_begin[2], g_.out[2],
                                       static_cast<int>(g_.stride[2]), static_cast<int>(g_.kernel[2]),
                                       static_cast<int>(g_.dilation[2]), out + o);
              o += g_.out[2];
              continue;
            }
#endif
            std::fill(row_max, row_max + width, static_cast<int8_t>(-128));
            for (int64_t kd = lo_[0][od]; kd < hi_[0][od]; ++kd) {
              const int64_t id = sd + kd * g_.dilation[0];
              for (int64_t kh = lo_[1][oh]; kh < hi_[1][oh]; ++kh)
                MaxInto(in + (id * g_.in[1] + sh + kh * g_.dilation[1]) * width, width, row_max);
            }
            const int64_t dw = g_.dilation[2];
            int64_t ow = 0;
            for (; ow < g_.out[2] && ow < full_begin_; ++ow, ++o) out[o] = RowWindowMax(row_max, ow);
            if (g_.stride[2] == 2 && g_.kernel[2] == 3 && dw == 1) {
              // The common 3-wide, stride-2 window over its full span, branch free.
              const int8_t* r = row_max + 2 * ow - g_.pad_begin[2];
              for (; ow < full_end_; ++ow, ++o, r += 2) out[o] = std::max(std::max(r[0], r[1]), r[2]);
            }
            for (; ow < g_.out[2]; ++ow, ++o) out[o] = RowWindowMax(row_max, ow);
            continue;
          }
          for (int64_t ow = 0; ow < g_.out[2]; ++ow, ++o) {
            const int64_t sw = ow * g_.stride[2] - g_.pad_begin[2];
            const int64_t kw_lo = lo_[2][ow], kw_hi = hi_[2][ow], dw = g_.dilation[2];
            int8_t best = -128;
            for (int64_t kd = lo_[0][od]; kd < hi_[0][od]; ++kd) {
              const int64_t id = sd + kd * g_.dilation[0];
              for (int64_t kh = lo_[1][oh]; kh < hi_[1][oh]; ++kh) {
                const int8_t* row = in + (id * g_.in[1] + sh + kh * g_.dilation[1]) * width;
                for (int64_t kw = kw_lo; kw < kw_hi; ++kw) best = std::max(best, row[sw + kw * dw]);
              }
            }
            out[o] = best;
          }
        }
    }
  });
}

void PoolKernel::RunAverage(const KernelArgs& args) const {
  const int8_t* x = args.in<int8_t>(0);
  int8_t* y = args.out<int8_t>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  ParallelFor(args.pool, planes_, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int8_t* in = x + plane * in_size;
      int8_t* out = y + plane * out_size;
      int64_t o = 0;
      for (int64_t od = 0; od < g_.out[0]; ++od)
        for (int64_t oh = 0; oh < g_.out[1]; ++oh)
          for (int64_t ow = 0; ow < g_.out[2]; ++ow, ++o) {
            const int64_t sd = od * g_.stride[0] - g_.pad_begin[0], sh = oh * g_.stride[1] - g_.pad_begin[1],
                          sw = ow * g_.stride[2] - g_.pad_begin[2];
            const int64_t kw_lo = lo_[2][ow], kw_hi = hi_[2][ow], dw = g_.dilation[2];
            int32_t sum = 0;
            for (int64_t kd = lo_[0][od]; kd < hi_[0][od]; ++kd) {
              const int64_t id = sd + kd * g_.dilation[0];
              for (int64_t kh = lo_[1][oh]; kh < hi_[1][oh]; ++kh) {
                const int8_t* row = in + (id * g_.in[1] + sh + kh * g_.dilation[1]) * g_.in[2];
                for (int64_t kw = kw_lo; kw < kw_hi; ++kw) sum += row[sw + kw * dw];
              }
            }
            const int32_t taps = static_cast<int32_t>((hi_[0][od] - lo_[0][od]) * (hi_[1][oh] - lo_[1][oh]) *
                                                      (kw_hi - kw_lo));
            out[o] = static_cast<int8_t>(requant::Requantize(sum - x_zero_point_ * taps, stages_[stage_of_[o]]));
          }
    }
  });
}

Status PoolKernel::Run(const KernelArgs& args) const {
  if (average_) {
    RunAverage(args);
  } else {
    RunMax(args);
  }
  return Status::Ok();
}

class GlobalAveragePoolKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() != 1 || !setup.HasInput(0) || setup.outputs.size() != 1)
      return setup.Invalid("expects 1 input and 1 output");
    ActQuant xq, yq;
    RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input X", &xq));
    RETURN_IF_ERROR(ReadActQuant(setup, setup.outputs[0], "output Y", &yq));
    const TensorInfo& x = setup.inputs[0];
    if (x.rank() < 2) return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected at least 2");
    RETURN_IF_ERROR(CheckShape(setup, "input X", x.shape));
    Shape out_shape = x.shape;
    for (size_t i = 2; i < out_shape.size(); ++i) out_shape[i] = 1;
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, out_shape));
    planes_ = x.shape[0] * x.shape[1];
    plane_size_ = 1;
    for (size_t i = 2; i < x.shape.size(); ++i) plane_size_ *= x.shape[i];
    if (plane_size_ > kMaxWindow)
      return setup.Unsupported("int8 GlobalAveragePool over " + std::to_string(plane_size_) + " values per plane");
    x_zero_point_ = xq.zero_point;
    return MakeAverageStage(setup, xq, yq, plane_size_, &stage_);
  }

  Status Run(const KernelArgs& args) const override {
    const int8_t* x = args.in<int8_t>(0);
    int8_t* y = args.out<int8_t>(0);
    const int32_t n = static_cast<int32_t>(plane_size_);
    ParallelFor(args.pool, planes_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, plane_size_)),
                [&](int64_t begin, int64_t end, int) {
                  for (int64_t plane = begin; plane < end; ++plane) {
                    const int8_t* in = x + plane * plane_size_;
                    int32_t sum = 0;
                    for (int32_t i = 0; i < n; ++i) sum += in[i];
                    y[plane] = static_cast<int8_t>(requant::Requantize(sum - x_zero_point_ * n, stage_));
                  }
                });
    return Status::Ok();
  }

 private:
  int64_t planes_ = 0, plane_size_ = 0;
  int32_t x_zero_point_ = 0;
  requant::OutputStage stage_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMaxPoolKernel() { return std::make_unique<PoolKernel>(false); }
std::unique_ptr<Kernel> MakeAveragePoolKernel() { return std::make_unique<PoolKernel>(true); }
std::unique_ptr<Kernel> MakeGlobalAveragePoolKernel() { return std::make_unique<GlobalAveragePoolKernel>(); }

}  // namespace int8
}  // namespace loom
