// Conv (1-D, 2-D, 3-D; groups, dilations, strides, pads, auto_pad, optional
// bias, Loom's fused activation and, for float32, Loom's fused residual:
// with the int attribute loom.residual = 1 a 4th input R of Y's shape and
// dtype is added before the activation, Y = act(conv(X, W) + B + R); R must
// not overlap Y).
//
// float32 picks one of three paths in Prepare:
//   pointwise  1x1 kernel, stride 1, no padding: Y_g = W_g * X_g, a plain GEMM
//              reading X in place.
//   depthwise  one input channel per group, 1-D/2-D: 3x3 and 5x5 with
//              strides 1/2 and no dilation run the vector kernels of
//              conv_depthwise.h; other windows a direct loop per output
//              row over a zero-padded copy of the input plane (per-thread
//              scratch), all taps fused.
//   im2col     everything else: GEMM with an implicit im2col. X is copied into
//              a zero-padded buffer once per (image, group) so the GEMM
//              packs B with a branch-free gather: element (k, n) of the
//              virtual column matrix is padded[tap_offset[k] + column_offset[n]],
//              a contiguous copy when the panel's columns are adjacent.
// Constant weights are packed once in Prepare. float64 uses an explicit
// im2col buffer and the plain double GEMM. Every float32 path adds R in its
// output epilogue, before the activation.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/conv_depthwise.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/nn/conv_winograd.h"
#include "kernels/cpu/nn/gemm_f32.h"
#include "kernels/cpu/nn/residual_input.h"

namespace loom {
namespace nn {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

// Explicit im2col of `channels` planes of x into col[K][out_size] (zeros
// outside the input).
template <typename T>
void Im2Col(const WindowGeometry& g, const T* x, int64_t channels, T* col) {
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const T* plane = x + c * g.InSize();
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t id = od * g.stride[0] - g.pad_begin[0] + kd * g.dilation[0];
            for (int64_t oh = 0; oh < g.out[1]; ++oh) {
              const int64_t ih = oh * g.stride[1] - g.pad_begin[1] + kh * g.dilation[1];
              if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                for (int64_t ow = 0; ow < g.out[2]; ++ow) *col++ = T(0);
                continue;
              }
              const T* src = plane + (id * g.in[1] + ih) * g.in[2];
              for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                const int64_t iw = ow * g.stride[2] - g.pad_begin[2] + kw * g.dilation[2];
                *col++ = iw >= 0 && iw < g.in[2] ? src[iw] : T(0);
              }
            }
          }
        }
}

// One output row of a depthwise conv over a zero-padded input plane `in`
// (row stride `wp`): out[ow] = bias + sum over taps of w[kh][kw] *
// in[(oh*sh + kh*dh) * wp + ow*sw + kw*dw]. K > 0 fixes a K x K kernel at
// compile time so the tap loops unroll (and the ow loop vectorizes at unit
// stride); K == 0 is the generic form.
template <int K>
void DepthwiseRow(const float* in, int64_t wp, const float* w, int64_t kh_n, int64_t kw_n, int64_t dh, int64_t dw,
                  int64_t sw, float bias, int64_t ow_n, float* out) {
  if (K > 0 && dw == 1 && dh == 1) {
    float wk[K > 0 ? K * K : 1];
    for (int i = 0; i < K * K; ++i) wk[i] = w[i];
    if (sw == 1) {
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        float acc = bias;
        for (int kh = 0; kh < K; ++kh)
          for (int kw = 0; kw < K; ++kw) acc += wk[kh * K + kw] * in[kh * wp + ow + kw];
        out[ow] = acc;
      }
    } else {
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        float acc = bias;
        for (int kh = 0; kh < K; ++kh)
          for (int kw = 0; kw < K; ++kw) acc += wk[kh * K + kw] * in[kh * wp + ow * sw + kw];
        out[ow] = acc;
      }
    }
    return;
  }
  for (int64_t ow = 0; ow < ow_n; ++ow) out[ow] = bias;
  for (int64_t kh = 0; kh < kh_n; ++kh) {
    const float* row = in + kh * dh * wp;
    for (int64_t kw = 0; kw < kw_n; ++kw) {
      const float wv = w[kh * kw_n + kw];
      const float* s = row + kw * dw;
      if (sw == 1) {
        for (int64_t ow = 0; ow < ow_n; ++ow) out[ow] += wv * s[ow];
      } else {
        for (int64_t ow = 0; ow < ow_n; ++ow) out[ow] += wv * s[ow * sw];
      }
    }
  }
}

class ConvKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override;
  Status Run(const KernelArgs& args) const override;
  std::vector<DerivedConstant> DerivedConstants() const override;
  bool ReadsConstantInput(size_t i) const override { return !(i == 1 && w_derived_); }

 private:
  enum class Path { kPointwise, kDepthwise, kIm2col };

  void RunF32(const KernelArgs& args) const;
  void RunDepthwise(const KernelArgs& args) const;
  void RunF64(const KernelArgs& args) const;
  // Copies channels of x into the zero-padded buffer.
  void PadInput(const float* x, float* dst, ThreadPool* pool) const;

  DType dtype_ = DType::kFloat32;
  WindowGeometry g_;
  Path path_ = Path::kIm2col;
  int64_t batch_ = 0, in_channels_ = 0, out_channels_ = 0, group_ = 1;
  int64_t cin_g_ = 0, cout_g_ = 0, k_ = 0;  // k_ = cin_g_ * kernel size
  bool has_bias_ = false;
  bool has_residual_ = false;  // input 3 is R (loom.residual)
  Activation act_;
  std::vector<PackedMatrixF32> packed_w_;  // per group, when W is constant
  // im2col path: padded dims (= input dims without padding) and offsets.
  int64_t padded_[kMaxSpatialRank] = {1, 1, 1};
  size_t padded_bytes_ = 0;             // 0 when no padding copy is needed
  std::vector<int32_t> tap_offset_;     // k_ entries
  std::vector<int32_t> column_offset_;  // out size entries
  // depthwise path: floats of one zero-padded input plane per thread (0 without padding).
  size_t padded_plane_floats_ = 0;
  bool fast_depthwise_ = false;  // dw_ runs the depthwise path
  DepthwiseConvF32 dw_;
  // Winograd path (conv_winograd.h): 3x3 stride-1 convs with constant W, when chosen.
  std::unique_ptr<WinogradConvF32> winograd_;
  // The packed or transformed weights as a derived constant (kernel.h):
  // empty key when this node has none.
  std::string derived_key_;
  size_t derived_bytes_ = 0;
  bool w_derived_ = false;  // a derived constant replaces W: W is never read
};

Status ConvKernel::Prepare(const KernelSetup& setup) {
  w_derived_ = false;
  if (setup.inputs.size() < 2 || setup.inputs.size() > 4 || !setup.HasInput(0) || !setup.HasInput(1))
    return setup.Invalid("expects inputs X, W, optional B and optional residual R, got " +
                         std::to_string(setup.inputs.size()));
  if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  dtype_ = x.dtype;
  if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_) + " for X");
  if (w.dtype != dtype_)
    return setup.Invalid(std::string("W has dtype ") + DTypeName(w.dtype) + ", expected " + DTypeName(dtype_));
  ConvChannels channels;
  RETURN_IF_ERROR(ParseConvChannels(setup, x, w, "X", "W", &channels));
  batch_ = channels.batch;
  in_channels_ = channels.in;
  out_channels_ = channels.out;
  group_ = channels.group;
  cin_g_ = channels.in_per_group;
  cout_g_ = channels.out_per_group;
  if (setup.HasInput(2)) {
    const TensorInfo& b = setup.inputs[2];
    if (b.dtype != dtype_) return setup.Invalid(std::string("B has dtype ") + DTypeName(b.dtype));
    if (b.shape != Shape{out_channels_})
      return setup.Invalid("B has shape " + ShapeToString(b.shape) + ", expected " + std::to_string(out_channels_));
    has_bias_ = true;
  }
  std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  for (int64_t d : kernel)
    if (d < 1) return setup.Invalid("W has an empty kernel dim: " + ShapeToString(w.shape));
  RETURN_IF_ERROR(ParseWindowGeometry(setup, spatial, &kernel, WindowOptions(), &g_));
  Shape out_shape = {batch_, out_channels_};
  for (int64_t d : g_.OutDims()) out_shape.push_back(d);
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, out_shape));
  RETURN_IF_ERROR(ParseActivation(setup, &act_));
  RETURN_IF_ERROR(ParseResidual(setup, 3, dtype_, out_shape, &has_residual_));
  if (has_residual_ && dtype_ != DType::kFloat32) return setup.Unsupported("a residual input for float64");
  k_ = cin_g_ * g_.KernelSize();
  if (dtype_ == DType::kFloat64) return Status::Ok();

  bool unit = g_.KernelSize() == 1 && !g_.HasPadding();
  for (int a = 0; a < kMaxSpatialRank; ++a) unit = unit && g_.stride[a] == 1;
  if (unit) {
    path_ = Path::kPointwise;
  } else if (cin_g_ == 1 && g_.rank <= 2) {
    path_ = Path::kDepthwise;
    if (g_.rank == 2 && DepthwiseConvF32::Supports(g_.kernel[1], g_.kernel[2], g_.stride[1], g_.stride[2],
                                                   g_.dilation[1], g_.dilation[2])) {
      DepthwiseF32Geometry dg;
      dg.batch = batch_;
      dg.channels = out_channels_;
      dg.multiplier = cout_g_;
      dg.in_h = g_.in[1];
      dg.in_w = g_.in[2];
      dg.out_h = g_.out[1];
      dg.out_w = g_.out[2];
      dg.kernel = static_cast<int>(g_.kernel[1]);
      dg.stride_h = static_cast<int>(g_.stride[1]);
      dg.stride_w = static_cast<int>(g_.stride[2]);
      dg.pad_top = g_.pad_begin[1];
      dg.pad_left = g_.pad_begin[2];
      dw_ = DepthwiseConvF32(dg, act_, DepthwiseF32IsaForWidth(dg.out_w));
      fast_depthwise_ = true;
      return Status::Ok();
    }
    padded_[1] = g_.in[1] + g_.pad_begin[1] + g_.pad_end[1];
    padded_[2] = g_.in[2] + g_.pad_begin[2] + g_.pad_end[2];
    padded_plane_floats_ =
        g_.HasPadding() ? AlignUp(static_cast<size_t>(padded_[1] * padded_[2]) * sizeof(float)) / sizeof(float) : 0;
    return Status::Ok();
  } else {
    path_ = Path::kIm2col;
    int64_t plane = 1;
    for (int a = 0; a < kMaxSpatialRank; ++a) {
      padded_[a] = g_.in[a] + g_.pad_begin[a] + g_.pad_end[a];
      plane *= padded_[a];
    }
    if (static_cast<double>(plane) * cin_g_ >= static_cast<double>(std::numeric_limits<int32_t>::max()))
      return setup.Unsupported("input group of " + std::to_string(plane * cin_g_) + " elements (above 2^31)");
    if (g_.HasPadding()) padded_bytes_ = AlignUp(static_cast<size_t>(plane * cin_g_) * sizeof(float));
    tap_offset_.resize(static_cast<size_t>(k_));
    size_t t = 0;
    for (int64_t c = 0; c < cin_g_; ++c)
      for (int64_t kd = 0; kd < g_.kernel[0]; ++kd)
        for (int64_t kh = 0; kh < g_.kernel[1]; ++kh)
          for (int64_t kw = 0; kw < g_.kernel[2]; ++kw)
            tap_offset_[t++] = static_cast<int32_t>(c * plane + kd * g_.dilation[0] * padded_[1] * padded_[2] +
                                                    kh * g_.dilation[1] * padded_[2] + kw * g_.dilation[2]);
    column_offset_.resize(static_cast<size_t>(g_.OutSize()));
    t = 0;
    for (int64_t od = 0; od < g_.out[0]; ++od)
      for (int64_t oh = 0; oh < g_.out[1]; ++oh)
        for (int64_t ow = 0; ow < g_.out[2]; ++ow)
          column_offset_[t++] = static_cast<int32_t>(od * g_.stride[0] * padded_[1] * padded_[2] +
                                                     oh * g_.stride[1] * padded_[2] + ow * g_.stride[2]);
  }
  // Winograd hook: replaces the im2col path when it applies and is chosen.
  winograd_.reset();
  if (path_ == Path::kIm2col && w.const_data && group_ == 1 && g_.IsWinograd3x3()) {
    const WinogradConvShape ws = WinogradShapeOf(batch_, in_channels_, out_channels_, g_);
    if (const int tile = ChooseWinogradTile(ws)) {
      winograd_ = std::make_unique<WinogradConvF32>();
      derived_key_ = WinogradConvF32::FilterKey(ws, tile);
      derived_bytes_ = WinogradConvF32::FilterBytes(ws, tile);
      const void* derived = setup.FindDerived(derived_key_, derived_bytes_);
      const bool transform = setup.pack_constants && derived == nullptr;
      winograd_->Prepare(ws, tile, transform ? static_cast<const float*>(w.const_data) : nullptr, act_);
      if (derived) winograd_->UseTransformedFilters(static_cast<const float*>(derived));
      w_derived_ = derived != nullptr;
      return Status::Ok();
    }
  }
  if (w.const_data && setup.pack_constants) {
    const float* wd = static_cast<const float*>(w.const_data);
    if (group_ == 1) {  // one packed matrix: a derived constant the plan may hold
      derived_key_ = "conv.weights " + PackedMatrixF32::LayoutKeyA(cout_g_, k_);
      derived_bytes_ = PackedMatrixF32::FloatsA(cout_g_, k_) * sizeof(float);
      if (const void* derived = setup.FindDerived(derived_key_, derived_bytes_)) {
        packed_w_ = {PackedMatrixF32::ViewA(static_cast<const float*>(derived), cout_g_, k_)};
        w_derived_ = true;
        return Status::Ok();
      }
    }
    packed_w_.resize(static_cast<size_t>(group_));
    for (int64_t gi = 0; gi < group_; ++gi) packed_w_[gi].PackA(wd + gi * cout_g_ * k_, k_, false, cout_g_, k_);
  }
  return Status::Ok();
}

std::vector<DerivedConstant> ConvKernel::DerivedConstants() const {
  if (winograd_ && winograd_->transformed_filters())
    return {{derived_key_, winograd_->transformed_filters(), derived_bytes_}};
  if (!derived_key_.empty() && packed_w_.size() == 1) return {{derived_key_, packed_w_[0].data(), derived_bytes_}};
  return {};
}

size_t ConvKernel::ScratchBytes(int num_threads) const {
  if (dtype_ == DType::kFloat64) return static_cast<size_t>(k_ * g_.OutSize()) * sizeof(double);
  if (fast_depthwise_) return dw_.ScratchBytes(num_threads);
  if (path_ == Path::kDepthwise) return static_cast<size_t>(num_threads) * padded_plane_floats_ * sizeof(float);
  if (winograd_) return winograd_->ScratchBytes(num_threads);
  return padded_bytes_ + GemmF32ScratchBytes(num_threads);
}

void ConvKernel::PadInput(const float* x, float* dst, ThreadPool* pool) const {
  const int64_t rows = cin_g_ * padded_[0] * padded_[1];
  ParallelFor(pool, rows, 64, [&](int64_t begin, int64_t end, int) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t h = r % padded_[1], d = (r / padded_[1]) % padded_[0], c = r / (padded_[0] * padded_[1]);
      float* out = dst + r * padded_[2];
      const int64_t ih = h - g_.pad_begin[1], id = d - g_.pad_begin[0];
      if (ih < 0 || ih >= g_.in[1] || id < 0 || id >= g_.in[0]) {
        std::memset(out, 0, static_cast<size_t>(padded_[2]) * sizeof(float));
        continue;
      }
      const float* src = x + ((c * g_.in[0] + id) * g_.in[1] + ih) * g_.in[2];
      for (int64_t i = 0; i < g_.pad_begin[2]; ++i) out[i] = 0.f;
      std::memcpy(out + g_.pad_begin[2], src, static_cast<size_t>(g_.in[2]) * sizeof(float));
      for (int64_t i = g_.pad_begin[2] + g_.in[2]; i < padded_[2]; ++i) out[i] = 0.f;
    }
  });
}

void ConvKernel::RunF32(const KernelArgs& args) const {
  const float* x = args.in<float>(0);
  const float* w = args.in<float>(1);
  const float* bias = has_bias_ ? args.in<float>(2) : nullptr;
  const float* residual = has_residual_ ? args.in<float>(3) : nullptr;
  float* y = args.out<float>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  float* padded = static_cast<float*>(args.scratch);
  void* gemm_scratch = static_cast<char*>(args.scratch) + padded_bytes_;

  for (int64_t n = 0; n < batch_; ++n) {
    for (int64_t gi = 0; gi < group_; ++gi) {
      const float* xg = x + (n * in_channels_ + gi * cin_g_) * in_size;
      GemmF32Params p;
      p.m = cout_g_;
      p.n = out_size;
      p.k = k_;
      if (!packed_w_.empty()) {
        p.packed_a = &packed_w_[gi];
      } else {
        p.a = w + gi * cout_g_ * k_;
        p.lda = k_;
      }
      p.c = y + (n * out_channels_ + gi * cout_g_) * out_size;
      p.ldc = out_size;
      p.row_bias = bias ? bias + gi * cout_g_ : nullptr;
      p.residual = residual ? residual + (n * out_channels_ + gi * cout_g_) * out_size : nullptr;
      p.act = act_;
      if (path_ == Path::kPointwise) {
        p.b = xg;
        p.ldb = in_size;
        GemmF32(p, gemm_scratch, args.pool);
        continue;
      }
      const float* src = xg;
      if (padded_bytes_) {
        PadInput(xg, padded, args.pool);
        src = padded;
      }
      p.b = src;
      p.b_k_offset = tap_offset_.data();
      p.b_n_offset = column_offset_.data();
      GemmF32(p, gemm_scratch, args.pool);
    }
  }
}

void ConvKernel::RunDepthwise(const KernelArgs& args) const {
  const float* x = args.in<float>(0);
  const float* w = args.in<float>(1);
  const float* bias = has_bias_ ? args.in<float>(2) : nullptr;
  const float* residual = has_residual_ ? args.in<float>(3) : nullptr;
  float* y = args.out<float>(0);
  if (fast_depthwise_) {
    dw_.Run(x, w, bias, y, args.scratch, args.pool, residual);
    return;
  }
  const int64_t ih_n = g_.in[1], iw_n = g_.in[2], oh_n = g_.out[1], ow_n = g_.out[2];
  const int64_t kh_n = g_.kernel[1], kw_n = g_.kernel[2];
  const int64_t sh = g_.stride[1], sw = g_.stride[2], dh = g_.dilation[1], dw = g_.dilation[2];
  const int64_t hp = padded_[1], wp = padded_[2], pt = g_.pad_begin[1], pl = g_.pad_begin[2];
  const int64_t planes = batch_ * out_channels_;
  ParallelFor(args.pool, planes, 1, [&](int64_t begin, int64_t end, int thread) {
    float* pad = static_cast<float*>(args.scratch) + static_cast<size_t>(thread) * padded_plane_floats_;
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t n = plane / out_channels_, oc = plane % out_channels_;
      const int64_t ic = oc / cout_g_;
      const float* in = x + (n * in_channels_ + ic) * ih_n * iw_n;
      if (padded_plane_floats_) {
        for (int64_t h = 0; h < hp; ++h) {
          float* dst = pad + h * wp;
          const int64_t src_h = h - pt;
          if (src_h < 0 || src_h >= ih_n) {
            std::memset(dst, 0, static_cast<size_t>(wp) * sizeof(float));
            continue;
          }
          for (int64_t i = 0; i < pl; ++i) dst[i] = 0.f;
          std::memcpy(dst + pl, in + src_h * iw_n, static_cast<size_t>(iw_n) * sizeof(float));
          for (int64_t i = pl + iw_n; i < wp; ++i) dst[i] = 0.f;
        }
        in = pad;
      }
      const float* wk = w + oc * kh_n * kw_n;
      float* out = y + plane * oh_n * ow_n;
      const float b = bias ? bias[oc] : 0.f;
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        const float* src = in + oh * sh * wp;
        float* row = out + oh * ow_n;
        if (kh_n == 3 && kw_n == 3) {
          DepthwiseRow<3>(src, wp, wk, 3, 3, dh, dw, sw, b, ow_n, row);
        } else if (kh_n == 5 && kw_n == 5) {
          DepthwiseRow<5>(src, wp, wk, 5, 5, dh, dw, sw, b, ow_n, row);
        } else {
          DepthwiseRow<0>(src, wp, wk, kh_n, kw_n, dh, dw, sw, b, ow_n, row);
        }
        if (residual) {
          const float* r = residual + plane * oh_n * ow_n + oh * ow_n;
          for (int64_t ow = 0; ow < ow_n; ++ow) row[ow] += r[ow];
        }
        ApplyActivation(act_, row, ow_n);
      }
    }
  });
}

void ConvKernel::RunF64(const KernelArgs& args) const {
  const double* x = args.in<double>(0);
  const double* w = args.in<double>(1);
  const double* bias = has_bias_ ? args.in<double>(2) : nullptr;
  double* y = args.out<double>(0);
  double* col = static_cast<double*>(args.scratch);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  for (int64_t n = 0; n < batch_; ++n) {
    for (int64_t gi = 0; gi < group_; ++gi) {
      Im2Col(g_, x + (n * in_channels_ + gi * cin_g_) * in_size, cin_g_, col);
      GemmF64Params p;
      p.m = cout_g_;
      p.n = out_size;
      p.k = k_;
      p.a = w + gi * cout_g_ * k_;
      p.lda = k_;
      p.b = col;
      p.ldb = out_size;
      p.c = y + (n * out_channels_ + gi * cout_g_) * out_size;
      p.ldc = out_size;
      p.row_bias = bias ? bias + gi * cout_g_ : nullptr;
      p.act = act_;
      GemmF64(p, args.pool);
    }
  }
}

Status ConvKernel::Run(const KernelArgs& args) const {
  if (dtype_ == DType::kFloat64) {
    RunF64(args);
  } else if (path_ == Path::kDepthwise) {
    RunDepthwise(args);
  } else if (winograd_) {
    winograd_->Run(args.in<float>(0), has_bias_ ? args.in<float>(2) : nullptr, args.out<float>(0), args.scratch,
                   args.pool, has_residual_ ? args.in<float>(3) : nullptr);
  } else {
    RunF32(args);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeConvKernel() { return std::make_unique<ConvKernel>(); }

}  // namespace nn
}  // namespace loom
