// Resize of int8 tensors, mode "nearest" only (other modes are Unsupported).
//
// Coordinates are the float kernel's (nn/resize_taps.h, per ONNX's reference):
// every coordinate_transformation_mode and nearest_mode, opset 10's
// asymmetric/floor, tf_crop_and_resize with its roi. scales or sizes (and
// roi, when read) must be constant: Prepare turns them into one table of input
// offsets per axis. The output size per axis is sizes[a], or
// floor(input[a] · scales[a]) computed in float as ONNX shape inference does,
// and must match the node's output shape.
//
// Each output element copies one input element: as bytes when X and Y have
// equal parameters, else through a 256-entry table of
// requant::Rescale(q, MakeRescaleParams(X → Y, full range)). An element
// outside tf_crop_and_resize's crop takes extrapolation_value quantized to Y
// (y_zp + round(value / y_scale), half away from zero, clamped: the bound
// mapping of requant::ActivationRange). Work is split over output rows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/tensor_quant.h"
#include "kernels/cpu/nn/resize_taps.h"

namespace loom {
namespace int8 {
namespace {

constexpr int kMaxResizeRank = 8;

class ResizeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;

 private:
  // Coordinate modes and the per-axis sizes from the constant inputs.
  Status ParseAxes(const KernelSetup& setup, nn::ResizeOptions* opts, nn::ResizeAxis* axes, float* extrapolation);

  int rank_ = 0;
  Shape out_shape_;
  bool rescale_ = false;
  Table table_{};
  int8_t extrapolation_ = 0;
  // Per axis (concatenated), per output index: the input offset (index ·
  // axis stride), or -1 outside the crop.
  std::vector<int64_t> offsets_;
  int64_t axis_begin_[kMaxResizeRank] = {};
};

Status ResizeKernel::ParseAxes(const KernelSetup& setup, nn::ResizeOptions* opts, nn::ResizeAxis* axes,
                               float* extrapolation) {
  std::string mode;
  RETURN_IF_ERROR(ReadStringAttr(setup, "mode", "nearest", &mode));
  if (mode != "nearest") return setup.Unsupported("int8 Resize mode '" + mode + "' (nearest only)");
  opts->mode = nn::ResizeMode::kNearest;
  *extrapolation = 0.f;
  int scales_index = -1, sizes_index = -1, roi_index = -1;
  if (setup.opset < 11) {
    opts->coord = nn::CoordMode::kAsymmetric;
    opts->nearest = nn::NearestMode::kFloor;
    if (setup.inputs.size() != 2 || !setup.HasInput(1)) return setup.Invalid("expects inputs X and scales");
    scales_index = 1;
  } else {
    std::string coord, nearest;
    RETURN_IF_ERROR(ReadStringAttr(setup, "coordinate_transformation_mode", "half_pixel", &coord));
    if (coord == "half_pixel") opts->coord = nn::CoordMode::kHalfPixel;
    else if (coord == "pytorch_half_pixel") opts->coord = nn::CoordMode::kPytorchHalfPixel;
    else if (coord == "align_corners") opts->coord = nn::CoordMode::kAlignCorners;
    else if (coord == "asymmetric") opts->coord = nn::CoordMode::kAsymmetric;
    else if (coord == "tf_half_pixel_for_nn") opts->coord = nn::CoordMode::kTfHalfPixelForNn;
    else if (coord == "tf_crop_and_resize") opts->coord = nn::CoordMode::kTfCropAndResize;
    else return setup.Invalid("attribute coordinate_transformation_mode '" + coord + "' is unknown");
    RETURN_IF_ERROR(ReadStringAttr(setup, "nearest_mode", "round_prefer_floor", &nearest));
    if (nearest == "round_prefer_floor") opts->nearest = nn::NearestMode::kRoundPreferFloor;
    else if (nearest == "round_prefer_ceil") opts->nearest = nn::NearestMode::kRoundPreferCeil;
    else if (nearest == "floor") opts->nearest = nn::NearestMode::kFloor;
    else if (nearest == "ceil") opts->nearest = nn::NearestMode::kCeil;
    else return setup.Invalid("attribute nearest_mode '" + nearest + "' is unknown");
    RETURN_IF_ERROR(ReadFloatAttr(setup, "extrapolation_value", 0.f, extrapolation));
    const Attribute* aa = setup.attrs.Find("antialias");
    if (aa && (aa->kind != Attribute::Kind::kInt || aa->i != 0)) return setup.Unsupported("attribute antialias");
    if (setup.attrs.Has("axes")) return setup.Unsupported("attribute axes");
    const Attribute* kp = setup.attrs.Find("keep_aspect_ratio_policy");
    if (kp && (kp->kind != Attribute::Kind::kString || kp->s != "stretch"))
      return setup.Unsupported("attribute keep_aspect_ratio_policy");
    if (setup.inputs.size() > 4) return setup.Invalid("expects at most 4 inputs");
    if (setup.HasInput(1)) roi_index = 1;
    if (setup.HasInput(2)) scales_index = 2;
    if (setup.HasInput(3)) sizes_index = 3;
  }
  // An empty scales or sizes tensor means "not given"; an empty roi means none.
  if (scales_index >= 0) {
    const TensorInfo& t = setup.inputs[scales_index];
    if (t.dtype != DType::kFloat32) return setup.Invalid(std::string("scales has dtype ") + DTypeName(t.dtype));
    if (t.num_elements() == 0) scales_index = -1;
    else if (t.rank() != 1 || t.num_elements() != rank_)
      return setup.Invalid("scales has shape " + ShapeToString(t.shape) + ", expected [" + std::to_string(rank_) + "]");
  }
  if (sizes_index >= 0) {
    const TensorInfo& t = setup.inputs[sizes_index];
    if (t.dtype != DType::kInt64) return setup.Invalid(std::string("sizes has dtype ") + DTypeName(t.dtype));
    if (t.num_elements() == 0) sizes_index = -1;
    else if (t.rank() != 1 || t.num_elements() != rank_)
      return setup.Invalid("sizes has shape " + ShapeToString(t.shape) + ", expected [" + std::to_string(rank_) + "]");
  }
  if ((scales_index >= 0) == (sizes_index >= 0))
    return setup.Invalid("exactly one of scales and sizes must be given (non-empty)");
  const int size_input = scales_index >= 0 ? scales_index : sizes_index;
  if (!setup.inputs[size_input].const_data)
    return setup.Unsupported(std::string("int8 Resize with non-constant ") + (scales_index >= 0 ? "scales" : "sizes"));
  const float* scales =
      scales_index >= 0 ? static_cast<const float*>(setup.inputs[scales_index].const_data) : nullptr;
  const int64_t* sizes =
      sizes_index >= 0 ? static_cast<const int64_t*>(setup.inputs[sizes_index].const_data) : nullptr;
  const void* roi = nullptr;
  DType roi_dtype = DType::kFloat32;
  if (roi_index >= 0 && opts->coord == nn::CoordMode::kTfCropAndResize) {  // only tf_crop_and_resize reads roi
    const TensorInfo& t = setup.inputs[roi_index];
    roi_dtype = t.dtype;
    if (t.dtype != DType::kFloat32 && t.dtype != DType::kFloat64)
      return setup.Unsupported(std::string("roi dtype ") + DTypeName(t.dtype));
    if (t.num_elements() != 0) {
      if (t.num_elements() != 2 * rank_)
        return setup.Invalid("roi has " + std::to_string(t.num_elements()) + " values, expected " +
                             std::to_string(2 * rank_));
      if (!t.const_data) return setup.Unsupported("int8 Resize with a non-constant roi");
      roi = t.const_data;
    }
  }

  const Shape& in_shape = setup.inputs[0].shape;
  int64_t stride = 1;
  for (int a = rank_ - 1; a >= 0; --a) {
    nn::ResizeAxis& ax = axes[a];
    ax = nn::ResizeAxis();
    ax.in = in_shape[a];
    ax.stride = stride;
    stride *= in_shape[a];
    if (sizes) {
      if (sizes[a] < 0) return setup.Invalid("sizes[" + std::to_string(a) + "] = " + std::to_string(sizes[a]));
      ax.out = sizes[a];
      ax.scale = ax.in > 0 ? static_cast<double>(static_cast<float>(ax.out) / static_cast<float>(ax.in)) : 1.0;
    } else {
      const float s = scales[a];
      if (!(s > 0.f) || std::isinf(s))
        return setup.Invalid("scales[" + std::to_string(a) + "] = " + std::to_string(s) + " must be positive");
      const float prod = static_cast<float>(ax.in) * s;
      if (prod > 9.0e15f) return setup.Invalid("output dim too large on axis " + std::to_string(a));
      ax.out = static_cast<int64_t>(std::floor(prod));
      ax.scale = s;
    }
    if (ax.in == 0 && ax.out != 0) return setup.Invalid("cannot resize an empty axis " + std::to_string(a));
    if (roi) {
      auto roi_value = [&](int i) {
        return roi_dtype == DType::kFloat64 ? static_cast<const double*>(roi)[i] : static_cast<const float*>(roi)[i];
      };
      ax.roi_start = roi_value(a);
      ax.roi_end = roi_value(a + rank_);
    }
  }
  return Status::Ok();
}

Status ResizeKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.empty() || !setup.HasInput(0) || setup.outputs.size() != 1)
    return setup.Invalid("expects input X and 1 output");
  ActQuant xq, yq;
  RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input X", &xq));
  RETURN_IF_ERROR(ReadActQuant(setup, setup.outputs[0], "output Y", &yq));
  rank_ = setup.inputs[0].rank();
  if (rank_ < 1) return setup.Invalid("X must have at least 1 dim");
  if (rank_ > kMaxResizeRank) return setup.Unsupported("rank " + std::to_string(rank_) + " above 8");
  nn::ResizeOptions opts;
  nn::ResizeAxis axes[kMaxResizeRank];
  float extrapolation = 0.f;
  RETURN_IF_ERROR(ParseAxes(setup, &opts, axes, &extrapolation));
  out_shape_.clear();
  for (int a = 0; a < rank_; ++a) out_shape_.push_back(axes[a].out);
  if (setup.outputs[0].shape != out_shape_)
    return setup.Invalid("output shape " + ShapeToString(setup.outputs[0].shape) + " differs from the resized shape " +
                         ShapeToString(out_shape_));
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, out_shape_));

  rescale_ = xq != yq;
  if (rescale_) RETURN_IF_ERROR(RequantStatus(setup, MakeRescaleTable(xq, yq, requant::Range(), &table_)));
  extrapolation_ = static_cast<int8_t>(
      requant::ActivationRange(true, yq.scale, yq.zero_point, extrapolation, extrapolation).min);
  offsets_.clear();
  std::vector<nn::ResizeTap> taps;
  for (int a = 0; a < rank_; ++a) {
    axis_begin_[a] = static_cast<int64_t>(offsets_.size());
    taps.assign(static_cast<size_t>(axes[a].out), nn::ResizeTap());
    nn::BuildResizeTaps(opts, axes[a], taps.data());
    for (const nn::ResizeTap& t : taps) offsets_.push_back(t.count == 0 ? -1 : t.offset[0]);
  }
  return Status::Ok();
}

Status ResizeKernel::Run(const KernelArgs& args) const {
  const int64_t total = NumElements(out_shape_);
  if (total == 0) return Status::Ok();
  const int8_t* x = args.in<int8_t>(0);
  int8_t* y = args.out<int8_t>(0);
  const int last = rank_ - 1;
  const int64_t width = out_shape_[last];
  const int64_t rows = total / width;
  const int64_t* last_offsets = offsets_.data() + axis_begin_[last];
  const int8_t* table = table_.v + 128;
  ParallelFor(args.pool, rows, std::max<int64_t>(1, 4096 / width), [&](int64_t begin, int64_t end, int) {
    for (int64_t row = begin; row < end; ++row) {
      int8_t* out = y + row * width;
      int64_t rem = row, base = 0;
      bool outside = false;
      for (int a = last - 1; a >= 0; --a) {
        const int64_t off = offsets_[axis_begin_[a] + rem % out_shape_[a]];
        rem /= out_shape_[a];
        outside = outside || off < 0;
        base += off;
      }
      if (outside) {
        std::fill(out, out + width, extrapolation_);
        continue;
      }
      const int8_t* in = x + base;
      if (rescale_) {
        for (int64_t j = 0; j < width; ++j) out[j] = last_offsets[j] < 0 ? extrapolation_ : table[in[last_offsets[j]]];
      } else {
        for (int64_t j = 0; j < width; ++j) out[j] = last_offsets[j] < 0 ? extrapolation_ : in[last_offsets[j]];
      }
    }
  });
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeResizeKernel() { return std::make_unique<ResizeKernel>(); }

}  // namespace int8
}  // namespace loom
