#include "kernels/cpu/quant/int_conv.h"

#include <algorithm>
#include <string>

#include "kernels/common/attribute_readers.h"

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

}  // namespace

Status IntConv::Prepare(const KernelSetup& setup, const IntConvInputs& inputs, Shape* out_shape) {
  in_ = inputs;
  const TensorInfo& x = setup.inputs[in_.x];
  const TensorInfo& w = setup.inputs[in_.w];
  RETURN_IF_ERROR(CheckInt8Operand(setup, in_.x, "x"));
  RETURN_IF_ERROR(CheckInt8Operand(setup, in_.w, "w"));
  x_signed_ = x.dtype == DType::kInt8;
  w_signed_ = w.dtype == DType::kInt8;
  nn::ConvChannels channels;
  RETURN_IF_ERROR(nn::ParseConvChannels(setup, x, w, "x", "w", &channels));
  batch_ = channels.batch;
  in_channels_ = channels.in;
  out_channels_ = channels.out;
  group_ = channels.group;
  cin_g_ = channels.in_per_group;
  cout_g_ = channels.out_per_group;

  has_x_zp_ = setup.HasInput(in_.x_zero_point);
  if (has_x_zp_) {
    const TensorInfo& zp = setup.inputs[in_.x_zero_point];
    RETURN_IF_ERROR(CheckZeroPointDType(setup, in_.x_zero_point, "x_zero_point", x.dtype, "x"));
    if (zp.rank() > 1 || zp.num_elements() != 1)
      return setup.Invalid("x_zero_point has shape " + ShapeToString(zp.shape) + ", expected a scalar");
  }
  w_zp_count_ = 0;
  const bool has_w_zp = setup.HasInput(in_.w_zero_point);
  if (has_w_zp) {
    const TensorInfo& zp = setup.inputs[in_.w_zero_point];
    RETURN_IF_ERROR(CheckZeroPointDType(setup, in_.w_zero_point, "w_zero_point", w.dtype, "w"));
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
  *out_shape = {batch_, out_channels_};
  for (int64_t d : g_.OutDims()) out_shape->push_back(d);

  k_ = cin_g_ * g_.KernelSize();
  // About 32 KiB of int16 columns per tile, 8 to 256 positions.
  const int64_t fit = std::max<int64_t>(8, 16384 / std::max<int64_t>(1, k_));
  tile_ = std::max<int64_t>(1, std::min<int64_t>({g_.OutSize(), 256, fit}));
  tiles_per_plane_ = (g_.OutSize() + tile_ - 1) / tile_;
  tile_bytes_ = AlignUp(static_cast<size_t>(tile_ * k_) * sizeof(int16_t));
  w_bytes_ = AlignUp(static_cast<size_t>(out_channels_ * k_) * sizeof(int16_t));
  packed_w_.clear();
  const void* w_zp = has_w_zp ? setup.inputs[in_.w_zero_point].const_data : nullptr;
  if (w.const_data && (!has_w_zp || w_zp)) {
    packed_w_.resize(static_cast<size_t>(out_channels_ * k_));
    ConvertWeights(w.const_data, w_zp, 0, out_channels_, packed_w_.data());
  }
  return Status::Ok();
}

void IntConv::ConvertWeights(const void* w, const void* w_zp, int64_t m0, int64_t m1, int16_t* dst) const {
  const int64_t elem = w_signed_ ? sizeof(int8_t) : sizeof(uint8_t);
  for (int64_t m = m0; m < m1; ++m) {
    const int32_t zp = w_zp_count_ == 0 ? 0 : Load8(w_zp, w_signed_, w_zp_count_ == 1 ? 0 : m);
    SubtractZeroPoint(static_cast<const char*>(w) + m * k_ * elem, w_signed_, zp, k_, dst + m * k_);
  }
}

const int16_t* IntConv::Weights(const KernelArgs& args, char* scratch) const {
  if (!packed_w_.empty()) return packed_w_.data();
  int16_t* dst = reinterpret_cast<int16_t*>(scratch);
  const void* w = args.inputs[in_.w];
  const void* w_zp = w_zp_count_ ? args.inputs[in_.w_zero_point] : nullptr;
  ParallelFor(args.pool, out_channels_, 16,
              [&](int64_t begin, int64_t end, int) { ConvertWeights(w, w_zp, begin, end, dst); });
  return dst;
}

int64_t IntConv::GatherTask(const void* x, int32_t x_zp, int64_t task, int16_t* col, int64_t* n, int64_t* group,
                            int64_t* count) const {
  const int64_t tile = task % tiles_per_plane_, ng = task / tiles_per_plane_;
  *group = ng % group_;
  *n = ng / group_;
  const int64_t p0 = tile * tile_;
  *count = std::min(tile_, g_.OutSize() - p0);
  const int64_t x_offset = (*n * in_channels_ + *group * cin_g_) * g_.InSize();
  if (x_signed_) {
    GatherColumns(g_, static_cast<const int8_t*>(x) + x_offset, cin_g_, x_zp, p0, *count, col);
  } else {
    GatherColumns(g_, static_cast<const uint8_t*>(x) + x_offset, cin_g_, x_zp, p0, *count, col);
  }
  return p0;
}

}  // namespace quant
}  // namespace loom
