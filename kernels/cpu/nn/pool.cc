// MaxPool (optional Indices), AveragePool and LpPool over 1-D, 2-D and 3-D
// windows with strides, dilations, pads, auto_pad and ceil_mode.
//
// Prepare turns the window geometry into per-axis tables: for output index o
// the valid taps are k in [lo[o], hi[o]) (the input positions inside the
// tensor), so Run's loops have no bounds checks; the per-axis count of taps
// inside the padded extent gives AveragePool's count_include_pad divisor.
// Work is split over (batch, channel) planes.
//
// fp32 MaxPool without Indices and AveragePool over 1-D and 2-D windows with
// dilations 1 take the vectorized path of pool_f32_isa.h instead, chosen here
// at Prepare (same results: max exactly, average up to summation order).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/nn/pool_f32_isa.h"

namespace loom {
namespace nn {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

class PoolKernel final : public Kernel {
 public:
  explicit PoolKernel(PoolKind kind) : kind_(kind) {}
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return fast_ ? static_cast<size_t>(num_threads) * fast_plan_.ScratchFloats() * sizeof(float) : 0;
  }
  Status Run(const KernelArgs& args) const override;

 private:
  void RunFast(const KernelArgs& args) const;
  template <typename T> void RunMax(const KernelArgs& args) const;
  template <typename T> void RunAverageOrLp(const KernelArgs& args) const;

  PoolKind kind_;
  DType dtype_ = DType::kFloat32;
  WindowGeometry g_;
  int64_t planes_ = 0;  // N * C
  int64_t channels_ = 0;
  bool count_include_pad_ = false;
  bool column_major_ = false;  // MaxPool storage_order = 1
  bool with_indices_ = false;
  int64_t p_ = 2;  // LpPool
  // Per axis, per output index: valid tap range and taps inside the padding.
  std::vector<int64_t> lo_[kMaxSpatialRank], hi_[kMaxSpatialRank], padded_count_[kMaxSpatialRank];
  // The vectorized fp32 path (pool_f32_isa.h), when it applies.
  bool fast_ = false;
  Pool2dF32Plan fast_plan_;
  const PoolF32Isa* fast_isa_ = nullptr;
};

Status PoolKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() != 1 || !setup.HasInput(0)) return setup.Invalid("expects 1 input");
  const TensorInfo& x = setup.inputs[0];
  dtype_ = x.dtype;
  const bool float_type = dtype_ == DType::kFloat32 || dtype_ == DType::kFloat64;
  const bool int8_type = dtype_ == DType::kInt8 || dtype_ == DType::kUInt8;
  if (!float_type && !(kind_ == PoolKind::kMax && int8_type))
    return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  if (x.rank() < 3) return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected at least 3");
  std::vector<int64_t> spatial(x.shape.begin() + 2, x.shape.end());
  WindowOptions opts;
  opts.allow_ceil_mode = kind_ != PoolKind::kLp || setup.opset >= 18;
  RETURN_IF_ERROR(ParseWindowGeometry(setup, spatial, nullptr, opts, &g_));
  channels_ = x.shape[1];
  planes_ = x.shape[0] * x.shape[1];
  Shape out_shape = {x.shape[0], x.shape[1]};
  for (int64_t d : g_.OutDims()) out_shape.push_back(d);
  if (setup.outputs.empty() || setup.outputs.size() > (kind_ == PoolKind::kMax ? 2u : 1u))
    return setup.Invalid("unexpected number of outputs: " + std::to_string(setup.outputs.size()));
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, out_shape));
  with_indices_ = setup.outputs.size() == 2 && setup.outputs[1].present;
  if (with_indices_) RETURN_IF_ERROR(CheckOutput(setup, 1, DType::kInt64, out_shape));

  int64_t v = 0;
  if (kind_ == PoolKind::kMax) {
    RETURN_IF_ERROR(ReadIntAttr(setup, "storage_order", 0, &v));
    if (v != 0 && v != 1) return setup.Invalid("storage_order " + std::to_string(v) + " is not 0 or 1");
    column_major_ = v == 1;
  }
  if (kind_ == PoolKind::kAverage) {
    RETURN_IF_ERROR(ReadIntAttr(setup, "count_include_pad", 0, &v));
    count_include_pad_ = v != 0;
  }
  if (kind_ == PoolKind::kLp) {
    const Attribute* a = setup.attrs.Find("p");
    if (a && a->kind == Attribute::Kind::kFloat) {  // opset 1 had a float p
      if (a->f != std::floor(a->f) || a->f < 1.f || a->f > 1e6f)
        return setup.Unsupported("attribute p=" + std::to_string(a->f));
      p_ = static_cast<int64_t>(a->f);
    } else {
      RETURN_IF_ERROR(ReadIntAttr(setup, "p", 2, &p_));
    }
    if (p_ < 1) return setup.Invalid("attribute p=" + std::to_string(p_) + " must be >= 1");
  }
  for (int a = 0; a < kMaxSpatialRank; ++a) {
    lo_[a].resize(g_.out[a]);
    hi_[a].resize(g_.out[a]);
    padded_count_[a].resize(g_.out[a]);
    for (int64_t o = 0; o < g_.out[a]; ++o) {
      const WindowTaps t = g_.Taps(a, o);
      lo_[a][o] = t.lo;
      hi_[a][o] = t.hi;
      padded_count_[a][o] = t.padded;
    }
  }
  fast_ = false;
  if (dtype_ == DType::kFloat32 && (kind_ == PoolKind::kAverage || (kind_ == PoolKind::kMax && !with_indices_))) {
    fast_ = MakePool2dF32Plan(g_, kind_ == PoolKind::kMax, count_include_pad_, &fast_plan_);
    if (fast_) fast_isa_ = &ActivePoolF32Isa();
  }
  return Status::Ok();
}

void PoolKernel::RunFast(const KernelArgs& args) const {
  const float* x = args.in<float>(0);
  float* y = args.out<float>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize(), scratch_floats = fast_plan_.ScratchFloats();
  ParallelFor(args.pool, planes_, 1, [&](int64_t begin, int64_t end, int thread) {
    float* scratch = static_cast<float*>(args.scratch) + thread * scratch_floats;
    for (int64_t plane = begin; plane < end; ++plane)
      fast_isa_->pool2d(fast_plan_, x + plane * in_size, y + plane * out_size, scratch);
  });
}

template <typename T>
void PoolKernel::RunMax(const KernelArgs& args) const {
  const T* x = args.in<T>(0);
  T* y = args.out<T>(0);
  int64_t* indices = with_indices_ ? args.out<int64_t>(1) : nullptr;
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  ParallelFor(args.pool, planes_, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* in = x + plane * in_size;
      T* out = y + plane * out_size;
      int64_t* idx_out = indices ? indices + plane * out_size : nullptr;
      int64_t o = 0;
      for (int64_t od = 0; od < g_.out[0]; ++od)
        for (int64_t oh = 0; oh < g_.out[1]; ++oh)
          for (int64_t ow = 0; ow < g_.out[2]; ++ow, ++o) {
            const int64_t sd = od * g_.stride[0] - g_.pad_begin[0], sh = oh * g_.stride[1] - g_.pad_begin[1],
                          sw = ow * g_.stride[2] - g_.pad_begin[2];
            T best = std::numeric_limits<T>::lowest();
            int64_t best_pos = -1;
            for (int64_t kd = lo_[0][od]; kd < hi_[0][od]; ++kd) {
              const int64_t id = sd + kd * g_.dilation[0];
              for (int64_t kh = lo_[1][oh]; kh < hi_[1][oh]; ++kh) {
                const int64_t ih = sh + kh * g_.dilation[1];
                const T* row = in + (id * g_.in[1] + ih) * g_.in[2];
                for (int64_t kw = lo_[2][ow]; kw < hi_[2][ow]; ++kw) {
                  const int64_t iw = sw + kw * g_.dilation[2];
                  if (row[iw] > best || best_pos < 0) {
                    best = row[iw];
                    best_pos = (id * g_.in[1] + ih) * g_.in[2] + iw;
                  }
                }
              }
            }
            out[o] = best;
            if (idx_out) {
              int64_t pos = best_pos < 0 ? 0 : best_pos;
              if (column_major_) {
                const int64_t iw = pos % g_.in[2], ih = (pos / g_.in[2]) % g_.in[1], id = pos / (g_.in[2] * g_.in[1]);
                // Spatial dims reversed: the first spatial dim varies fastest.
                if (g_.rank == 3) pos = id + ih * g_.in[0] + iw * g_.in[0] * g_.in[1];
                else if (g_.rank == 2) pos = ih + iw * g_.in[1];
                else pos = iw;
              }
              idx_out[o] = plane * in_size + pos;
            }
          }
    }
  });
}

template <typename T>
void PoolKernel::RunAverageOrLp(const KernelArgs& args) const {
  const T* x = args.in<T>(0);
  T* y = args.out<T>(0);
  const int64_t in_size = g_.InSize(), out_size = g_.OutSize();
  const bool lp = kind_ == PoolKind::kLp;
  const T p = static_cast<T>(p_);
  ParallelFor(args.pool, planes_, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const T* in = x + plane * in_size;
      T* out = y + plane * out_size;
      int64_t o = 0;
      for (int64_t od = 0; od < g_.out[0]; ++od)
        for (int64_t oh = 0; oh < g_.out[1]; ++oh)
          for (int64_t ow = 0; ow < g_.out[2]; ++ow, ++o) {
            const int64_t sd = od * g_.stride[0] - g_.pad_begin[0], sh = oh * g_.stride[1] - g_.pad_begin[1],
                          sw = ow * g_.stride[2] - g_.pad_begin[2];
            T sum = 0;
            for (int64_t kd = lo_[0][od]; kd < hi_[0][od]; ++kd) {
              const int64_t id = sd + kd * g_.dilation[0];
              for (int64_t kh = lo_[1][oh]; kh < hi_[1][oh]; ++kh) {
                const T* row = in + (id * g_.in[1] + sh + kh * g_.dilation[1]) * g_.in[2] + sw;
                const int64_t kw_end = hi_[2][ow];
                if (lp) {
                  if (p_ == 2) {
                    for (int64_t kw = lo_[2][ow]; kw < kw_end; ++kw) sum += row[kw * g_.dilation[2]] * row[kw * g_.dilation[2]];
                  } else {
                    for (int64_t kw = lo_[2][ow]; kw < kw_end; ++kw) sum += std::pow(std::fabs(row[kw * g_.dilation[2]]), p);
                  }
                } else {
                  for (int64_t kw = lo_[2][ow]; kw < kw_end; ++kw) sum += row[kw * g_.dilation[2]];
                }
              }
            }
            if (lp) {
              out[o] = p_ == 1 ? sum : (p_ == 2 ? std::sqrt(sum) : std::pow(sum, T(1) / p));
              continue;
            }
            int64_t count;
            if (count_include_pad_) {
              count = padded_count_[0][od] * padded_count_[1][oh] * padded_count_[2][ow];
            } else {
              count = (hi_[0][od] - lo_[0][od]) * (hi_[1][oh] - lo_[1][oh]) * (hi_[2][ow] - lo_[2][ow]);
            }
            out[o] = count > 0 ? sum / static_cast<T>(count) : T(0);
          }
    }
  });
}

Status PoolKernel::Run(const KernelArgs& args) const {
  if (fast_) {
    RunFast(args);
  } else if (kind_ == PoolKind::kMax) {
    switch (dtype_) {
      case DType::kFloat32: RunMax<float>(args); break;
      case DType::kFloat64: RunMax<double>(args); break;
      case DType::kInt8: RunMax<int8_t>(args); break;
      case DType::kUInt8: RunMax<uint8_t>(args); break;
      default: break;
    }
  } else if (dtype_ == DType::kFloat64) {
    RunAverageOrLp<double>(args);
  } else {
    RunAverageOrLp<float>(args);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeMaxPoolKernel() { return std::make_unique<PoolKernel>(PoolKind::kMax); }
std::unique_ptr<Kernel> MakeAveragePoolKernel() { return std::make_unique<PoolKernel>(PoolKind::kAverage); }
std::unique_ptr<Kernel> MakeLpPoolKernel() { return std::make_unique<PoolKernel>(PoolKind::kLp); }

}  // namespace nn
}  // namespace loom
