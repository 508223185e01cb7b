// Resize (opset 10, 11, 13+) and Upsample (opset 7-9).
//
// The output size per axis is sizes[a], or floor(input[a] * scales[a])
// computed in float as ONNX shape inference does; it must match the node's
// static output shape. Opset 10 Resize and Upsample use asymmetric
// coordinates with floor rounding for nearest. Constant scales/sizes/roi are
// turned into per-axis tap tables in Prepare; otherwise Run reads them,
// checks them against the static output shape and builds the tables in
// scratch. Nearest copies elements of any dtype by size; linear and cubic
// support float32 and float64. Work is split over output rows (all axes but
// the last).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/float16.h"
#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/resize_taps.h"

namespace loom {
namespace nn {
namespace {

constexpr int kMaxResizeRank = 8;

class ResizeKernel final : public Kernel {
 public:
  explicit ResizeKernel(bool upsample) : upsample_(upsample) {}
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int) const override {
    return tables_.empty() ? static_cast<size_t>(total_out_) * sizeof(ResizeTap) : 0;
  }
  Status Run(const KernelArgs& args) const override;
  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override;

 private:
  // Attributes, input roles and dtypes (everything but the output).
  Status ParseConfig(const KernelSetup& setup);
  // Per-axis parameters (including the output dim) from scale/size/roi
  // values. Allocates nothing unless it fails.
  Status ComputeAxes(const float* scales, const int64_t* sizes, const void* roi, ResizeAxis* axes) const;
  bool MatchesOutput(const ResizeAxis* axes) const;
  Shape AxesShape(const ResizeAxis* axes) const;
  void BuildTables(const ResizeAxis* axes, ResizeTap* tables) const;
  template <typename E> void RunNearest(const KernelArgs& args, const ResizeTap* tables) const;
  template <typename T> void RunInterp(const KernelArgs& args, const ResizeTap* tables) const;

  bool upsample_;
  DType dtype_ = DType::kFloat32;
  Shape in_shape_, out_shape_;
  int rank_ = 0;
  ResizeOptions opts_;
  double extrapolation_ = 0.0;
  uint64_t extrapolation_bits_ = 0;  // extrapolation_ in dtype_, for nearest
  int roi_index_ = -1, scales_index_ = -1, sizes_index_ = -1;
  bool use_sizes_ = false;
  DType roi_dtype_ = DType::kFloat32;
  std::vector<float> attr_scales_;  // Upsample-7
  int64_t total_out_ = 0;           // sum of output dims (table entries)
  std::vector<ResizeTap> tables_;   // filled when inputs are constant
};

Status ResizeKernel::ParseConfig(const KernelSetup& setup) {
  if (setup.inputs.empty() || !setup.HasInput(0)) return setup.Invalid("missing input X");
  const TensorInfo& x = setup.inputs[0];
  dtype_ = x.dtype;
  if (DTypeSize(dtype_) == 0) return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  rank_ = x.rank();
  if (rank_ < 1) return setup.Invalid("X must have at least 1 dim");
  if (rank_ > kMaxResizeRank) return setup.Unsupported("rank " + std::to_string(rank_) + " above 8");
  in_shape_ = x.shape;

  std::string mode, coord, nearest;
  RETURN_IF_ERROR(ReadStringAttr(setup, "mode", "nearest", &mode));
  if (mode == "nearest") {
    opts_.mode = ResizeMode::kNearest;
  } else if (mode == "linear" || (upsample_ && mode == "bilinear")) {
    opts_.mode = ResizeMode::kLinear;
  } else if (mode == "cubic" && !upsample_ && setup.opset >= 11) {
    opts_.mode = ResizeMode::kCubic;
  } else {
    return setup.Invalid("attribute mode '" + mode + "' is not nearest, linear or cubic");
  }
  const bool legacy = upsample_ || setup.opset < 11;
  if (legacy) {
    opts_.coord = CoordMode::kAsymmetric;
    opts_.nearest = NearestMode::kFloor;
  } else {
    RETURN_IF_ERROR(ReadStringAttr(setup, "coordinate_transformation_mode", "half_pixel", &coord));
    if (coord == "half_pixel") opts_.coord = CoordMode::kHalfPixel;
    else if (coord == "pytorch_half_pixel") opts_.coord = CoordMode::kPytorchHalfPixel;
    else if (coord == "align_corners") opts_.coord = CoordMode::kAlignCorners;
    else if (coord == "asymmetric") opts_.coord = CoordMode::kAsymmetric;
    else if (coord == "tf_half_pixel_for_nn") opts_.coord = CoordMode::kTfHalfPixelForNn;
    else if (coord == "tf_crop_and_resize") opts_.coord = CoordMode::kTfCropAndResize;
    else return setup.Invalid("attribute coordinate_transformation_mode '" + coord + "' is unknown");
    RETURN_IF_ERROR(ReadStringAttr(setup, "nearest_mode", "round_prefer_floor", &nearest));
    if (nearest == "round_prefer_floor") opts_.nearest = NearestMode::kRoundPreferFloor;
    else if (nearest == "round_prefer_ceil") opts_.nearest = NearestMode::kRoundPreferCeil;
    else if (nearest == "floor") opts_.nearest = NearestMode::kFloor;
    else if (nearest == "ceil") opts_.nearest = NearestMode::kCeil;
    else return setup.Invalid("attribute nearest_mode '" + nearest + "' is unknown");
    float cubic_a = 0.f, extrapolation = 0.f;
    RETURN_IF_ERROR(ReadFloatAttr(setup, "cubic_coeff_a", -0.75f, &cubic_a));
    RETURN_IF_ERROR(ReadFloatAttr(setup, "extrapolation_value", 0.f, &extrapolation));
    opts_.cubic_a = cubic_a;
    extrapolation_ = extrapolation;
    int64_t exclude_outside = 0;
    RETURN_IF_ERROR(ReadIntAttr(setup, "exclude_outside", 0, &exclude_outside));
    opts_.exclude_outside = exclude_outside != 0;
    const Attribute* aa = setup.attrs.Find("antialias");
    if (aa && (aa->kind != Attribute::Kind::kInt || aa->i != 0)) return setup.Unsupported("attribute antialias");
    if (setup.attrs.Has("axes")) return setup.Unsupported("attribute axes");
    const Attribute* kp = setup.attrs.Find("keep_aspect_ratio_policy");
    if (kp && (kp->kind != Attribute::Kind::kString || kp->s != "stretch"))
      return setup.Unsupported("attribute keep_aspect_ratio_policy");
  }
  if (opts_.mode != ResizeMode::kNearest && dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_) + " with mode " + mode);

  // Input roles.
  attr_scales_.clear();
  roi_index_ = scales_index_ = sizes_index_ = -1;
  if (upsample_ && setup.opset < 9) {
    if (setup.inputs.size() != 1) return setup.Invalid("Upsample-7 expects 1 input");
    const Attribute* s = setup.attrs.Find("scales");
    if (!s || s->kind != Attribute::Kind::kFloats) return setup.Invalid("missing floats attribute scales");
    attr_scales_ = s->floats;
    if (static_cast<int>(attr_scales_.size()) != rank_)
      return setup.Invalid("attribute scales has " + std::to_string(attr_scales_.size()) + " values, expected " +
                           std::to_string(rank_));
    use_sizes_ = false;
    return Status::Ok();
  }
  if (legacy) {
    if (setup.inputs.size() != 2 || !setup.HasInput(1)) return setup.Invalid("expects inputs X and scales");
    scales_index_ = 1;
  } else {
    if (setup.inputs.size() > 4) return setup.Invalid("expects at most 4 inputs");
    if (setup.HasInput(1)) roi_index_ = 1;
    if (setup.HasInput(2)) scales_index_ = 2;
    if (setup.HasInput(3)) sizes_index_ = 3;
  }
  // An empty scales tensor means "use sizes"; an empty roi means none.
  if (scales_index_ >= 0) {
    const TensorInfo& s = setup.inputs[scales_index_];
    if (s.dtype != DType::kFloat32) return setup.Invalid(std::string("scales has dtype ") + DTypeName(s.dtype));
    if (s.num_elements() == 0) scales_index_ = -1;
    else if (s.num_elements() != rank_ || s.rank() != 1)
      return setup.Invalid("scales has shape " + ShapeToString(s.shape) + ", expected [" + std::to_string(rank_) + "]");
  }
  if (sizes_index_ >= 0) {
    const TensorInfo& s = setup.inputs[sizes_index_];
    if (s.dtype != DType::kInt64) return setup.Invalid(std::string("sizes has dtype ") + DTypeName(s.dtype));
    if (s.num_elements() == 0) sizes_index_ = -1;
    else if (s.num_elements() != rank_ || s.rank() != 1)
      return setup.Invalid("sizes has shape " + ShapeToString(s.shape) + ", expected [" + std::to_string(rank_) + "]");
  }
  if ((scales_index_ >= 0) == (sizes_index_ >= 0))
    return setup.Invalid("exactly one of scales and sizes must be given (non-empty)");
  use_sizes_ = sizes_index_ >= 0;
  if (roi_index_ >= 0) {
    const TensorInfo& r = setup.inputs[roi_index_];
    roi_dtype_ = r.dtype;
    if (r.dtype != DType::kFloat32 && r.dtype != DType::kFloat64)
      return setup.Unsupported(std::string("roi dtype ") + DTypeName(r.dtype));
    if (r.num_elements() == 0 || opts_.coord != CoordMode::kTfCropAndResize) {
      roi_index_ = -1;  // only tf_crop_and_resize reads roi
    } else if (r.num_elements() != 2 * rank_) {
      return setup.Invalid("roi has " + std::to_string(r.num_elements()) + " values, expected " +
                           std::to_string(2 * rank_));
    }
  }
  return Status::Ok();
}

Status ResizeKernel::ComputeAxes(const float* scales, const int64_t* sizes, const void* roi,
                                 ResizeAxis* axes) const {
  int64_t stride = 1;
  for (int a = rank_ - 1; a >= 0; --a) {
    ResizeAxis& ax = axes[a];
    ax = ResizeAxis();
    ax.in = in_shape_[a];
    ax.stride = stride;
    stride *= in_shape_[a];
    if (sizes) {
      if (sizes[a] < 0)
        return Status::InvalidArgument("sizes[" + std::to_string(a) + "] = " + std::to_string(sizes[a]) +
                                       " is negative");
      ax.out = sizes[a];
      ax.scale = ax.in > 0 ? static_cast<double>(static_cast<float>(ax.out) / static_cast<float>(ax.in)) : 1.0;
    } else {
      const float s = scales[a];
      if (!(s > 0.f) || std::isinf(s))
        return Status::InvalidArgument("scales[" + std::to_string(a) + "] = " + std::to_string(s) +
                                       " must be positive");
      if (upsample_ && s < 1.f) return Status::InvalidArgument("scales[" + std::to_string(a) + "] < 1");
      const float prod = static_cast<float>(ax.in) * s;
      if (prod > 9.0e15f) return Status::InvalidArgument("output dim too large on axis " + std::to_string(a));
      ax.out = static_cast<int64_t>(std::floor(prod));
      ax.scale = s;
    }
    if (ax.in == 0 && ax.out != 0) return Status::InvalidArgument("cannot resize an empty axis " + std::to_string(a));
    if (roi) {
      if (roi_dtype_ == DType::kFloat64) {
        ax.roi_start = static_cast<const double*>(roi)[a];
        ax.roi_end = static_cast<const double*>(roi)[a + rank_];
      } else {
        ax.roi_start = static_cast<const float*>(roi)[a];
        ax.roi_end = static_cast<const float*>(roi)[a + rank_];
      }
    }
  }
  return Status::Ok();
}

bool ResizeKernel::MatchesOutput(const ResizeAxis* axes) const {
  for (int a = 0; a < rank_; ++a)
    if (axes[a].out != out_shape_[a]) return false;
  return true;
}

Shape ResizeKernel::AxesShape(const ResizeAxis* axes) const {
  Shape s;
  for (int a = 0; a < rank_; ++a) s.push_back(axes[a].out);
  return s;
}

void ResizeKernel::BuildTables(const ResizeAxis* axes, ResizeTap* tables) const {
  for (int a = 0; a < rank_; ++a) {
    BuildResizeTaps(opts_, axes[a], tables);
    tables += axes[a].out;
  }
}

Status ResizeKernel::Prepare(const KernelSetup& setup) {
  RETURN_IF_ERROR(ParseConfig(setup));
  if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
  if (setup.outputs[0].rank() != rank_)
    return setup.Invalid("output has shape " + ShapeToString(setup.outputs[0].shape) + ", expected rank " +
                         std::to_string(rank_));
  out_shape_ = setup.outputs[0].shape;
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, out_shape_));
  total_out_ = 0;
  for (int64_t d : out_shape_) total_out_ += d;
  // Extrapolation value in the element type, for nearest's byte copies.
  extrapolation_bits_ = 0;
  const double e = extrapolation_;
  auto put = [&](auto v) { std::memcpy(&extrapolation_bits_, &v, sizeof(v)); };
  switch (dtype_) {
    case DType::kFloat32: put(static_cast<float>(e)); break;
    case DType::kFloat64: put(e); break;
    case DType::kFloat16: put(FloatToHalf(static_cast<float>(e))); break;
    case DType::kBFloat16: put(FloatToBFloat16(static_cast<float>(e))); break;
    case DType::kInt8: put(static_cast<int8_t>(e)); break;
    case DType::kUInt8: case DType::kBool: put(static_cast<uint8_t>(e)); break;
    case DType::kInt16: put(static_cast<int16_t>(e)); break;
    case DType::kUInt16: put(static_cast<uint16_t>(e)); break;
    case DType::kInt32: put(static_cast<int32_t>(e)); break;
    case DType::kUInt32: put(static_cast<uint32_t>(e)); break;
    case DType::kInt64: put(static_cast<int64_t>(e)); break;
    case DType::kUInt64: put(static_cast<uint64_t>(e)); break;
    default: return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  }
  tables_.clear();
  const float* scales = nullptr;
  const int64_t* sizes = nullptr;
  const void* roi = nullptr;
  bool constant = true;
  if (!attr_scales_.empty()) scales = attr_scales_.data();
  if (scales_index_ >= 0) scales = static_cast<const float*>(setup.inputs[scales_index_].const_data);
  if (sizes_index_ >= 0) sizes = static_cast<const int64_t*>(setup.inputs[sizes_index_].const_data);
  if (roi_index_ >= 0) {
    roi = setup.inputs[roi_index_].const_data;
    constant = roi != nullptr;
  }
  constant = constant && (use_sizes_ ? sizes != nullptr : scales != nullptr);
  if (!constant) return Status::Ok();
  ResizeAxis axes[kMaxResizeRank];
  Status st = ComputeAxes(scales, sizes, roi, axes);
  if (!st.ok()) return setup.Invalid(st.message());
  if (!MatchesOutput(axes))
    return setup.Invalid("output shape " + ShapeToString(out_shape_) + " differs from the resized shape " +
                         ShapeToString(AxesShape(axes)));
  tables_.resize(static_cast<size_t>(total_out_));
  BuildTables(axes, tables_.data());
  return Status::Ok();
}

Status ResizeKernel::InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const {
  ResizeKernel k(upsample_);
  RETURN_IF_ERROR(k.ParseConfig(setup));
  const float* scales = k.attr_scales_.empty() ? nullptr : k.attr_scales_.data();
  const int64_t* sizes = nullptr;
  if (k.scales_index_ >= 0) scales = static_cast<const float*>(setup.inputs[k.scales_index_].const_data);
  if (k.sizes_index_ >= 0) sizes = static_cast<const int64_t*>(setup.inputs[k.sizes_index_].const_data);
  if (k.use_sizes_ ? !sizes : !scales) return setup.Unsupported("output shape depends on non-constant scales/sizes");
  ResizeAxis axes[kMaxResizeRank];
  Status st = k.ComputeAxes(scales, sizes, nullptr, axes);
  if (!st.ok()) return setup.Invalid(st.message());
  shapes->assign(1, k.AxesShape(axes));
  return Status::Ok();
}

template <typename E>
void ResizeKernel::RunNearest(const KernelArgs& args, const ResizeTap* tables) const {
  const E* x = static_cast<const E*>(args.inputs[0]);
  E* y = static_cast<E*>(args.outputs[0]);
  E extrap;
  std::memcpy(&extrap, &extrapolation_bits_, sizeof(E));
  const int last = rank_ - 1;
  const int64_t width = out_shape_[last];
  const int64_t rows = width ? NumElements(out_shape_) / width : 0;
  const ResizeTap* axis_tab[kMaxResizeRank];
  for (int a = 0, off = 0; a < rank_; off += static_cast<int>(out_shape_[a]), ++a) axis_tab[a] = tables + off;
  ParallelFor(args.pool, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, width)),
              [&](int64_t begin, int64_t end, int) {
                for (int64_t row = begin; row < end; ++row) {
                  E* out = y + row * width;
                  int64_t rem = row, base = 0;
                  bool outside = false;
                  for (int a = last - 1; a >= 0; --a) {
                    const ResizeTap& t = axis_tab[a][rem % out_shape_[a]];
                    rem /= out_shape_[a];
                    if (t.count == 0) outside = true;
                    base += t.offset[0];
                  }
                  const ResizeTap* lt = axis_tab[last];
                  for (int64_t j = 0; j < width; ++j)
                    out[j] = outside || lt[j].count == 0 ? extrap : x[base + lt[j].offset[0]];
                }
              });
}

template <typename T>
void ResizeKernel::RunInterp(const KernelArgs& args, const ResizeTap* tables) const {
  const T* x = args.in<T>(0);
  T* y = args.out<T>(0);
  const int last = rank_ - 1;
  const int64_t width = out_shape_[last];
  const int64_t rows = width ? NumElements(out_shape_) / width : 0;
  const ResizeTap* axis_tab[kMaxResizeRank];
  for (int a = 0, off = 0; a < rank_; off += static_cast<int>(out_shape_[a]), ++a) axis_tab[a] = tables + off;
  const T extrap = static_cast<T>(extrapolation_);
  ParallelFor(args.pool, rows, std::max<int64_t>(1, 1024 / std::max<int64_t>(1, width)),
              [&](int64_t begin, int64_t end, int) {
                for (int64_t row = begin; row < end; ++row) {
                  T* out = y + row * width;
                  const ResizeTap* outer[kMaxResizeRank];
                  int64_t rem = row;
                  bool outside = false;
                  for (int a = last - 1; a >= 0; --a) {
                    outer[a] = &axis_tab[a][rem % out_shape_[a]];
                    rem /= out_shape_[a];
                    if (outer[a]->count == 0) outside = true;
                  }
                  if (outside) {
                    for (int64_t j = 0; j < width; ++j) out[j] = extrap;
                    continue;
                  }
                  for (int64_t j = 0; j < width; ++j) out[j] = T(0);
                  // Every combination of the outer axes' taps.
                  int idx[kMaxResizeRank] = {0};
                  const ResizeTap* lt = axis_tab[last];
                  while (true) {
                    double w = 1.0;
                    int64_t base = 0;
                    for (int a = 0; a < last; ++a) {
                      w *= outer[a]->weight[idx[a]];
                      base += outer[a]->offset[idx[a]];
                    }
                    const T* in = x + base;
                    for (int64_t j = 0; j < width; ++j) {
                      const ResizeTap& t = lt[j];
                      double s = 0;
                      for (int k = 0; k < t.count; ++k) s += t.weight[k] * static_cast<double>(in[t.offset[k]]);
                      out[j] = static_cast<T>(out[j] + w * s);
                    }
                    int a = last - 1;
                    for (; a >= 0; --a) {
                      if (++idx[a] < outer[a]->count) break;
                      idx[a] = 0;
                    }
                    if (a < 0) break;
                  }
                  for (int64_t j = 0; j < width; ++j)
                    if (lt[j].count == 0) out[j] = extrap;
                }
              });
}

Status ResizeKernel::Run(const KernelArgs& args) const {
  const ResizeTap* tables = tables_.data();
  if (tables_.empty()) {
    const float* scales = !attr_scales_.empty() ? attr_scales_.data()
                          : scales_index_ >= 0  ? static_cast<const float*>(args.inputs[scales_index_])
                                                : nullptr;
    const int64_t* sizes = sizes_index_ >= 0 ? static_cast<const int64_t*>(args.inputs[sizes_index_]) : nullptr;
    const void* roi = roi_index_ >= 0 ? args.inputs[roi_index_] : nullptr;
    ResizeAxis axes[kMaxResizeRank];
    RETURN_IF_ERROR(ComputeAxes(scales, sizes, roi, axes));
    if (!MatchesOutput(axes))
      return Status::InvalidArgument("runtime scales/sizes give shape " + ShapeToString(AxesShape(axes)) +
                                     ", the plan has " + ShapeToString(out_shape_));
    ResizeTap* scratch = static_cast<ResizeTap*>(args.scratch);
    BuildTables(axes, scratch);
    tables = scratch;
  }
  if (NumElements(out_shape_) == 0) return Status::Ok();
  if (opts_.mode == ResizeMode::kNearest) {
    switch (DTypeSize(dtype_)) {
      case 1: RunNearest<uint8_t>(args, tables); break;
      case 2: RunNearest<uint16_t>(args, tables); break;
      case 4: RunNearest<uint32_t>(args, tables); break;
      case 8: RunNearest<uint64_t>(args, tables); break;
      default: break;
    }
  } else if (dtype_ == DType::kFloat64) {
    RunInterp<double>(args, tables);
  } else {
    RunInterp<float>(args, tables);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeResizeKernel() { return std::make_unique<ResizeKernel>(false); }
std::unique_ptr<Kernel> MakeUpsampleKernel() { return std::make_unique<ResizeKernel>(true); }

}  // namespace nn
}  // namespace loom
