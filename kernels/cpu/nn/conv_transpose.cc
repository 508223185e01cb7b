// ConvTranspose (1-D, 2-D, 3-D; groups, dilations, strides, pads, auto_pad,
// output_padding, output_shape, optional bias, Loom's fused activation).
//
// Per image and group: col = W_g^T * X_g (a GEMM with M = Mg * kernel size,
// K = input channels per group, N = input spatial size; constant weights are
// packed once), then col2im scatters every column entry to output position
// i * stride - pad_begin + k * dilation, adding to a bias-initialized output.
// The activation runs over each finished output plane. col2im is split over
// output channels, which own disjoint output planes.
//
// Output size: with output_shape, the pads follow from it
//   total = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out
//   SAME_UPPER: begin = floor(total / 2), else begin = total - floor(total / 2);
// with SAME_UPPER/SAME_LOWER and no output_shape, out = in * stride likewise;
// otherwise out = stride * (in - 1) + output_padding + extent - begin - end.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/gemm_f32.h"

namespace loom {
namespace nn {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

class ConvTransposeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    const size_t col = AlignUp(static_cast<size_t>(rows_ * in_size_) * DTypeSize(dtype_));
    return col + (dtype_ == DType::kFloat32 ? GemmF32ScratchBytes(num_threads) : 0);
  }
  Status Run(const KernelArgs& args) const override;

 private:
  Status ParseGeometry(const KernelSetup& setup, const Shape& x, const Shape& w);
  template <typename T> void Col2Im(const T* col, const T* bias, T* y, ThreadPool* pool) const;
  template <typename T> void RunTyped(const KernelArgs& args) const;

  DType dtype_ = DType::kFloat32;
  int rank_ = 0;
  int64_t in_[3] = {1, 1, 1}, out_[3] = {1, 1, 1}, kernel_[3] = {1, 1, 1};
  int64_t stride_[3] = {1, 1, 1}, dilation_[3] = {1, 1, 1}, pad_begin_[3] = {0, 0, 0};
  int64_t batch_ = 0, in_channels_ = 0, out_channels_ = 0, group_ = 1, cin_g_ = 0, cout_g_ = 0;
  int64_t kernel_size_ = 1, in_size_ = 1, out_size_ = 1;
  int64_t rows_ = 0;  // cout_g_ * kernel_size_
  bool has_bias_ = false;
  Activation act_;
  std::vector<PackedMatrixF32> packed_w_;  // per group: W_g^T
};

Status ConvTransposeKernel::ParseGeometry(const KernelSetup& setup, const Shape& x, const Shape& w) {
  const size_t r = x.size() - 2;
  if (r < 1 || r > 3) return setup.Unsupported(std::to_string(r) + " spatial dims (1 to 3 supported)");
  rank_ = static_cast<int>(r);
  std::vector<int64_t> kernel(w.begin() + 2, w.end()), strides, dilations, pads, out_pad, out_shape;
  RETURN_IF_ERROR(ReadIntsAttr(setup, "kernel_shape", r, kernel, &kernel));
  if (kernel != std::vector<int64_t>(w.begin() + 2, w.end()))
    return setup.Invalid("kernel_shape does not match the weight's spatial dims " + ShapeToString(w));
  RETURN_IF_ERROR(ReadIntsAttr(setup, "strides", r, std::vector<int64_t>(r, 1), &strides));
  RETURN_IF_ERROR(ReadIntsAttr(setup, "dilations", r, std::vector<int64_t>(r, 1), &dilations));
  RETURN_IF_ERROR(ReadIntsAttr(setup, "pads", 2 * r, std::vector<int64_t>(2 * r, 0), &pads));
  RETURN_IF_ERROR(ReadIntsAttr(setup, "output_padding", r, std::vector<int64_t>(r, 0), &out_pad));
  RETURN_IF_ERROR(ReadIntsAttr(setup, "output_shape", &out_shape));
  if (out_shape.size() == r + 2) {
    out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  } else if (!out_shape.empty() && out_shape.size() != r) {
    return setup.Invalid("attribute 'output_shape' has " + std::to_string(out_shape.size()) + " values, expected " +
                         std::to_string(r));
  }
  std::string auto_pad;
  RETURN_IF_ERROR(ReadStringAttr(setup, "auto_pad", "NOTSET", &auto_pad));
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    return setup.Invalid("attribute auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  const int off = 3 - rank_;
  for (size_t i = 0; i < r; ++i) {
    const int a = off + static_cast<int>(i);
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1 || out_pad[i] < 0 || pads[i] < 0 || pads[i + r] < 0)
      return setup.Invalid("kernel, strides and dilations must be >= 1, pads and output_padding >= 0");
    if (kernel[i] > (1 << 24) || strides[i] > (1 << 24) || dilations[i] > (1 << 24) || out_pad[i] > (1 << 24) ||
        pads[i] > (1 << 24) || pads[i + r] > (1 << 24))
      return setup.Unsupported("window attribute value above 2^24");
    in_[a] = x[2 + i];
    kernel_[a] = kernel[i];
    stride_[a] = strides[i];
    dilation_[a] = dilations[i];
    const int64_t full = strides[i] * (in_[a] - 1) + out_pad[i] + (kernel[i] - 1) * dilations[i] + 1;
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out_[a] = !out_shape.empty() ? out_shape[i] : in_[a] * strides[i];
      if (out_[a] < 0) return setup.Invalid("output_shape has a negative value");
      const int64_t total = full - out_[a];  // negative when output_shape asks for more
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor(total / 2)
      pad_begin_[a] = auto_pad == "SAME_UPPER" ? half : total - half;
    } else {
      const bool valid = auto_pad == "VALID";
      pad_begin_[a] = valid ? 0 : pads[i];
      out_[a] = full - (valid ? 0 : pads[i] + pads[i + r]);
      if (out_[a] < 0) return setup.Invalid("pads exceed the output size");
    }
  }
  return Status::Ok();
}

Status ConvTransposeKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() < 2 || setup.inputs.size() > 3 || !setup.HasInput(0) || !setup.HasInput(1))
    return setup.Invalid("expects inputs X, W and optional B");
  if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  dtype_ = x.dtype;
  if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  if (w.dtype != dtype_) return setup.Invalid(std::string("W has dtype ") + DTypeName(w.dtype));
  if (x.rank() < 3 || w.rank() != x.rank())
    return setup.Invalid("X " + ShapeToString(x.shape) + " and W " + ShapeToString(w.shape) +
                         " must have the same rank >= 3");
  RETURN_IF_ERROR(ReadIntAttr(setup, "group", 1, &group_));
  batch_ = x.shape[0];
  in_channels_ = x.shape[1];
  if (group_ < 1 || in_channels_ % group_ != 0 || w.shape[0] != in_channels_)
    return setup.Invalid("W has " + std::to_string(w.shape[0]) + " input channels, X has " +
                         std::to_string(in_channels_) + ", group " + std::to_string(group_));
  cin_g_ = in_channels_ / group_;
  cout_g_ = w.shape[1];
  out_channels_ = cout_g_ * group_;
  for (int i = 2; i < w.rank(); ++i)
    if (w.shape[i] < 1) return setup.Invalid("W has an empty kernel dim: " + ShapeToString(w.shape));
  has_bias_ = setup.HasInput(2);
  if (has_bias_) {
    const TensorInfo& b = setup.inputs[2];
    if (b.dtype != dtype_ || b.shape != Shape{out_channels_})
      return setup.Invalid("B must be " + std::string(DTypeName(dtype_)) + " of shape " + std::to_string(out_channels_));
  }
  RETURN_IF_ERROR(ParseGeometry(setup, x.shape, w.shape));
  Shape out_shape = {batch_, out_channels_};
  for (int a = 3 - rank_; a < 3; ++a) out_shape.push_back(out_[a]);
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, out_shape));
  RETURN_IF_ERROR(ParseActivation(setup, &act_));
  kernel_size_ = kernel_[0] * kernel_[1] * kernel_[2];
  in_size_ = in_[0] * in_[1] * in_[2];
  out_size_ = out_[0] * out_[1] * out_[2];
  rows_ = cout_g_ * kernel_size_;
  packed_w_.clear();
  if (dtype_ == DType::kFloat32 && w.const_data && setup.pack_constants) {
    const float* wd = static_cast<const float*>(w.const_data);
    packed_w_.resize(static_cast<size_t>(group_));
    for (int64_t g = 0; g < group_; ++g) packed_w_[g].PackA(wd + g * cin_g_ * rows_, rows_, true, rows_, cin_g_);
  }
  return Status::Ok();
}

template <typename T>
void ConvTransposeKernel::Col2Im(const T* col, const T* bias, T* y, ThreadPool* pool) const {
  ParallelFor(pool, cout_g_, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t m = begin; m < end; ++m) {
      T* out = y + m * out_size_;
      const T b = bias ? bias[m] : T(0);
      for (int64_t i = 0; i < out_size_; ++i) out[i] = b;
      const T* row = col + m * kernel_size_ * in_size_;
      for (int64_t kd = 0; kd < kernel_[0]; ++kd)
        for (int64_t kh = 0; kh < kernel_[1]; ++kh)
          for (int64_t kw = 0; kw < kernel_[2]; ++kw, row += in_size_) {
            // Input columns iw whose output position lands inside [0, out).
            const int64_t shift = kw * dilation_[2] - pad_begin_[2], s = stride_[2];
            int64_t lo = shift >= 0 ? 0 : (-shift + s - 1) / s;
            int64_t hi = out_[2] - 1 - shift >= 0 ? (out_[2] - 1 - shift) / s + 1 : 0;
            hi = std::min(hi, in_[2]);
            if (lo >= hi) continue;
            for (int64_t id = 0; id < in_[0]; ++id) {
              const int64_t od = id * stride_[0] - pad_begin_[0] + kd * dilation_[0];
              if (od < 0 || od >= out_[0]) continue;
              for (int64_t ih = 0; ih < in_[1]; ++ih) {
                const int64_t oh = ih * stride_[1] - pad_begin_[1] + kh * dilation_[1];
                if (oh < 0 || oh >= out_[1]) continue;
                const T* src = row + (id * in_[1] + ih) * in_[2];
                T* dst = out + (od * out_[1] + oh) * out_[2] + (lo * s + shift);
                const int64_t count = hi - lo;
                if (s == 1) {
                  for (int64_t j = 0; j < count; ++j) dst[j] += src[lo + j];
                } else {
                  for (int64_t j = 0; j < count; ++j) dst[j * s] += src[lo + j];
                }
              }
            }
          }
      ApplyActivation(act_, out, out_size_);
    }
  });
}

template <typename T>
void ConvTransposeKernel::RunTyped(const KernelArgs& args) const {
  const T* x = args.in<T>(0);
  const T* w = args.in<T>(1);
  const T* bias = has_bias_ ? args.in<T>(2) : nullptr;
  T* y = args.out<T>(0);
  T* col = static_cast<T*>(args.scratch);
  void* gemm_scratch = static_cast<char*>(args.scratch) + AlignUp(static_cast<size_t>(rows_ * in_size_) * sizeof(T));
  for (int64_t n = 0; n < batch_; ++n) {
    for (int64_t g = 0; g < group_; ++g) {
      const T* xg = x + (n * in_channels_ + g * cin_g_) * in_size_;
      if constexpr (std::is_same<T, float>::value) {
        GemmF32Params p;
        p.m = rows_;
        p.n = in_size_;
        p.k = cin_g_;
        if (!packed_w_.empty()) {
          p.packed_a = &packed_w_[g];
        } else {
          p.a = w + g * cin_g_ * rows_;
          p.lda = rows_;
          p.trans_a = true;
        }
        p.b = xg;
        p.ldb = in_size_;
        p.c = col;
        p.ldc = in_size_;
        GemmF32(p, gemm_scratch, args.pool);
      } else {
        GemmF64Params p;
        p.m = rows_;
        p.n = in_size_;
        p.k = cin_g_;
        p.a = w + g * cin_g_ * rows_;
        p.lda = rows_;
        p.trans_a = true;
        p.b = xg;
        p.ldb = in_size_;
        p.c = col;
        p.ldc = in_size_;
        GemmF64(p, args.pool);
      }
      Col2Im<T>(col, bias ? bias + g * cout_g_ : nullptr, y + (n * out_channels_ + g * cout_g_) * out_size_, args.pool);
    }
  }
}

Status ConvTransposeKernel::Run(const KernelArgs& args) const {
  if (dtype_ == DType::kFloat64) {
    RunTyped<double>(args);
  } else {
    RunTyped<float>(args);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeConvTransposeKernel() { return std::make_unique<ConvTransposeKernel>(); }

}  // namespace nn
}  // namespace loom
