// ConvInteger: Conv on (x - x_zero_point) and (w - w_zero_point) with int32
// output; x and w uint8 or int8 (independently), x_zero_point per tensor,
// w_zero_point per tensor or per output channel. Attributes and geometry are
// Conv's (kernels/cpu/nn/conv_geometry.h): 1-D to 3-D, groups, strides,
// dilations, pads, auto_pad. As in ONNX's reference, padding is applied after
// the zero point is subtracted, so padded taps contribute 0.
//
// Algorithm: the weights become int16 rows W'[m][k] (k over channel-in-group
// and kernel taps, ONNX's weight order), converted once in Prepare when w and
// its zero point are constant, else into shared scratch at the start of Run.
// The output positions of each (image, group) are cut into tiles; a task
// gathers its tile into a per-thread int16 im2col buffer col[p][k] (zero point
// subtracted, 0 for padded taps), and every output is DotI16(W'[m], col[p]).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/quant/int_dot.h"

namespace loom {
namespace quant {
namespace {

using nn::WindowGeometry;

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

// Gathers output positions [p0, p0 + count) of one (image, group) into
// col[j][k], k = ((c * kd_n + kd) * kh_n + kh) * kw_n + kw. `x` points at the
// group's first input channel.
template <typename T>
void GatherColumns(const WindowGeometry& g, const T* x, int64_t channels, int32_t zero_point, int64_t p0,
                   int64_t count, int16_t* col) {
  const int64_t in_size = g.InSize();
  for (int64_t j = 0; j < count; ++j) {
    const int64_t p = p0 + j;
    const int64_t ow = p % g.out[2], oh = (p / g.out[2]) % g.out[1], od = p / (g.out[2] * g.out[1]);
    const int64_t d0 = od * g.stride[0] - g.pad_begin[0], h0 = oh * g.stride[1] - g.pad_begin[1],
                  w0 = ow * g.stride[2] - g.pad_begin[2];
    int16_t* dst = col;
    for (int64_t c = 0; c < channels; ++c) {
      const T* plane = x + c * in_size;
      for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
        const int64_t id = d0 + kd * g.dilation[0];
        for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
          const int64_t ih = h0 + kh * g.dilation[1];
          if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
            std::fill(dst, dst + g.kernel[2], int16_t{0});
            dst += g.kernel[2];
            continue;
          }
          const T* row = plane + (id * g.in[1] + ih) * g.in[2];
          for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
            const int64_t iw = w0 + kw * g.dilation[2];
            *dst++ = iw >= 0 && iw < g.in[2] ? static_cast<int16_t>(row[iw] - zero_point) : int16_t{0};
          }
        }
      }
    }
    col = dst;
  }
}

class ConvIntegerKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return (packed_w_.empty() ? w_bytes_ : 0) + static_cast<size_t>(num_threads) * tile_bytes_;
  }
  Status Run(const KernelArgs& args) const override;

 private:
  // W'[m][k] = w[m][k] - w_zero_point[m] for output channels [m0, m1).
  void ConvertWeights(const void* w, const void* w_zp, int64_t m0, int64_t m1, int16_t* dst) const;

  WindowGeometry g_;
  bool x_signed_ = false, w_signed_ = false;
  bool has_x_zp_ = false;
  int64_t w_zp_count_ = 0;  // 0: absent, 1: per tensor, else per output channel
  int64_t batch_ = 0, in_channels_ = 0, out_channels_ = 0, group_ = 1;
  int64_t cin_g_ = 0, cout_g_ = 0, k_ = 0;  // k_ = cin_g_ * kernel size
  int64_t tile_ = 1;                        // output positions per task
  std::vector<int16_t> packed_w_;           // W' when w is constant
  size_t w_bytes_ = 0;                      // scratch for W' otherwise
  size_t tile_bytes_ = 0;                   // per-thread im2col tile
};

Status ConvIntegerKernel::Prepare(const KernelSetup& setup) {
  RETURN_IF_ERROR(CheckNode(setup, 2, 4, 1, 1));
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  RETURN_IF_ERROR(CheckInt8Operand(setup, 0, "x"));
  RETURN_IF_ERROR(CheckInt8Operand(setup, 1, "w"));
  x_signed_ = x.dtype == DType::kInt8;
  w_signed_ = w.dtype == DType::kInt8;
  if (x.rank() < 3) return setup.Invalid("x has " + std::to_string(x.rank()) + " dims, expected at least 3");
  if (w.rank() != x.rank())
    return setup.Invalid("w has " + std::to_string(w.rank()) + " dims, expected " + std::to_string(x.rank()));
  RETURN_IF_ERROR(ReadIntAttr(setup, "group", 1, &group_));
  batch_ = x.shape[0];
  in_channels_ = x.shape[1];
  out_channels_ = w.shape[0];
  if (group_ < 1) return setup.Invalid("group " + std::to_string(group_) + " < 1");
  if (in_channels_ % group_ != 0 || out_channels_ % group_ != 0)
    return setup.Invalid("channels (x: " + std::to_string(in_channels_) + ", w: " + std::to_string(out_channels_) +
                         ") are not divisible by group " + std::to_string(group_));
  cin_g_ = in_channels_ / group_;
  cout_g_ = out_channels_ / group_;
  if (w.shape[1] != cin_g_)
    return setup.Invalid("w has " + std::to_string(w.shape[1]) + " input channels per group, expected " +
                         std::to_string(cin_g_));

  has_x_zp_ = setup.HasInput(2);
  if (has_x_zp_) {
    const TensorInfo& zp = setup.inputs[2];
    RETURN_IF_ERROR(CheckZeroPointDType(setup, 2, "x_zero_point", x.dtype, "x"));
    if (zp.rank() > 1 || zp.num_elements() != 1)
      return setup.Invalid("x_zero_point has shape " + ShapeToString(zp.shape) + ", expected a scalar");
  }
  w_zp_count_ = 0;
  if (setup.HasInput(3)) {
    const TensorInfo& zp = setup.inputs[3];
    RETURN_IF_ERROR(CheckZeroPointDType(setup, 3, "w_zero_point", w.dtype, "w"));
    if (zp.rank() > 1 || (zp.num_elements() != 1 && zp.num_elements() != out_channels_))
      return setup.Invalid("w_zero_point has shape " + ShapeToString(zp.shape) + ", expected a scalar or [" +
                           std::to_string(out_channels_) + "] (per output channel)");
    w_zp_count_ = zp.num_elements();
  }

  std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  for (int64_t d : kernel)
    if (d < 1) return setup.Invalid("w has an empty kernel dim: " + ShapeToString(w.shape));
  RETURN_IF_ERROR(nn::ParseWindowGeometry(setup, spatial, &kernel, nn::WindowOptions(), &g_));
  Shape out_shape = {batch_, out_channels_};
  for (int64_t d : g_.OutDims()) out_shape.push_back(d);
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt32, out_shape));

  k_ = cin_g_ * g_.KernelSize();
  // About 32 KiB of int16 columns per tile, 8 to 256 positions.
  const int64_t fit = std::max<int64_t>(8, 16384 / std::max<int64_t>(1, k_));
  tile_ = std::max<int64_t>(1, std::min<int64_t>({g_.OutSize(), 256, fit}));
  tile_bytes_ = AlignUp(static_cast<size_t>(tile_ * k_) * sizeof(int16_t));
  w_bytes_ = AlignUp(static_cast<size_t>(out_channels_ * k_) * sizeof(int16_t));
  packed_w_.clear();
  const bool w_zp_const = !setup.HasInput(3) || setup.inputs[3].const_data;
  if (w.const_data && w_zp_const) {
    packed_w_.resize(static_cast<size_t>(out_channels_ * k_));
    ConvertWeights(w.const_data, setup.HasInput(3) ? setup.inputs[3].const_data : nullptr, 0, out_channels_,
                   packed_w_.data());
  }
  return Status::Ok();
}

void ConvIntegerKernel::ConvertWeights(const void* w, const void* w_zp, int64_t m0, int64_t m1, int16_t* dst) const {
  const int64_t elem = w_signed_ ? sizeof(int8_t) : sizeof(uint8_t);
  for (int64_t m = m0; m < m1; ++m) {
    const int32_t zp = w_zp_count_ == 0 ? 0 : Load8(w_zp, w_signed_, w_zp_count_ == 1 ? 0 : m);
    SubtractZeroPoint(static_cast<const char*>(w) + m * k_ * elem, w_signed_, zp, k_, dst + m * k_);
  }
}

Status ConvIntegerKernel::Run(const KernelArgs& args) const {
  const void* x = args.inputs[0];
  int32_t* y = args.out<int32_t>(0);
  char* scratch = static_cast<char*>(args.scratch);
  const int16_t* wq = packed_w_.data();
  char* tiles = scratch;
  if (packed_w_.empty()) {
    int16_t* dst = reinterpret_cast<int16_t*>(scratch);
    const void* w = args.inputs[1];
    const void* w_zp = w_zp_count_ ? args.inputs[3] : nullptr;
    ParallelFor(args.pool, out_channels_, 16,
                [&](int64_t begin, int64_t end, int) { ConvertWeights(w, w_zp, begin, end, dst); });
    wq = dst;
    tiles += w_bytes_;
  }
  const int32_t x_zp = has_x_zp_ ? Load8(args.inputs[2], x_signed_, 0) : 0;
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  const int64_t tiles_per_plane = (out_size + tile_ - 1) / tile_;
  const int64_t tasks = batch_ * group_ * tiles_per_plane;
  ParallelFor(args.pool, tasks, 1, [&](int64_t begin, int64_t end, int thread) {
    int16_t* col = reinterpret_cast<int16_t*>(tiles + static_cast<size_t>(thread) * tile_bytes_);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t tile = task % tiles_per_plane, ng = task / tiles_per_plane;
      const int64_t gi = ng % group_, n = ng / group_;
      const int64_t p0 = tile * tile_, count = std::min(tile_, out_size - p0);
      const int64_t x_offset = (n * in_channels_ + gi * cin_g_) * in_size;
      if (x_signed_) {
        GatherColumns(g_, static_cast<const int8_t*>(x) + x_offset, cin_g_, x_zp, p0, count, col);
      } else {
        GatherColumns(g_, static_cast<const uint8_t*>(x) + x_offset, cin_g_, x_zp, p0, count, col);
      }
      for (int64_t m = gi * cout_g_; m < (gi + 1) * cout_g_; ++m) {
        const int16_t* wrow = wq + m * k_;
        int32_t* out = y + (n * out_channels_ + m) * out_size + p0;
        for (int64_t j = 0; j < count; ++j) out[j] = DotI16(wrow, col + j * k_, k_);
      }
    }
  });
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeConvIntegerKernel() { return std::make_unique<ConvIntegerKernel>(); }

}  // namespace quant
}  // namespace loom
