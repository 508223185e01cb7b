// LayerNormalization (opset 17): each row X[i, axis:] is standardized,
// y = (x - mean) / sqrt(var + epsilon) * Scale + B, with optional Mean and
// InvStdDev outputs of shape X.shape[:axis] + [1] * (rank - axis). Statistics
// are accumulated in double (at least the stash_type precision). Scale and B
// broadcast over the normalized dims X.shape[axis:]; a shape other than the
// full normalized shape is expanded through an index table built in Prepare.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace nn {
namespace {

// Offsets into a tensor of shape `p` broadcast to `norm` (trailing alignment),
// for every row-major position of `norm`. Fails if `p` does not broadcast.
bool BroadcastTable(const Shape& p, const Shape& norm, std::vector<int64_t>* table) {
  if (p.size() > norm.size()) {
    for (size_t i = 0; i + norm.size() < p.size(); ++i)
      if (p[i] != 1) return false;
  }
  const size_t r = norm.size();
  Shape ps(r, 1);
  for (size_t i = 0; i < std::min(r, p.size()); ++i) ps[r - 1 - i] = p[p.size() - 1 - i];
  std::vector<int64_t> stride(r, 0);
  int64_t s = 1;
  for (size_t i = r; i-- > 0;) {
    if (ps[i] != 1 && ps[i] != norm[i]) return false;
    stride[i] = ps[i] == 1 ? 0 : s;
    s *= ps[i];
  }
  const int64_t n = NumElements(norm);
  table->assign(static_cast<size_t>(n), 0);
  std::vector<int64_t> idx(r, 0);
  for (int64_t t = 0; t < n; ++t) {
    int64_t off = 0;
    for (size_t i = 0; i < r; ++i) off += idx[i] * stride[i];
    (*table)[t] = off;
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < norm[i]) break;
      idx[i] = 0;
    }
  }
  return true;
}

class LayerNormKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;

 private:
  template <typename T, typename U> void RunTyped(const KernelArgs& args) const;

  DType dtype_ = DType::kFloat32;
  DType stat_dtype_ = DType::kFloat32;
  int64_t outer_ = 0, inner_ = 0;
  double epsilon_ = 1e-5;
  bool has_bias_ = false, has_mean_ = false, has_inv_std_ = false;
  std::vector<int64_t> scale_map_, bias_map_;  // empty: identity
};

Status LayerNormKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() < 2 || setup.inputs.size() > 3 || !setup.HasInput(0) || !setup.HasInput(1))
    return setup.Invalid("expects inputs X, Scale and optional B");
  const TensorInfo& x = setup.inputs[0];
  dtype_ = x.dtype;
  if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  float epsilon = 0.f;
  RETURN_IF_ERROR(ReadFloatAttr(setup, "epsilon", 1e-5f, &epsilon));
  epsilon_ = epsilon;
  const Attribute* stash = setup.attrs.Find("stash_type");
  if (stash && (stash->kind != Attribute::Kind::kInt || (stash->i != 1 && stash->i != 11)))
    return setup.Unsupported("attribute stash_type (only float32 or float64)");
  const int rank = x.rank();
  if (rank < 1) return setup.Invalid("X must have at least 1 dim");
  int axis = 0;
  RETURN_IF_ERROR(ReadAxisAttr(setup, "axis", -1, rank, &axis));
  const Shape norm(x.shape.begin() + axis, x.shape.end());
  outer_ = 1;
  for (int64_t i = 0; i < axis; ++i) outer_ *= x.shape[i];
  inner_ = NumElements(norm);
  scale_map_.clear();
  bias_map_.clear();
  for (size_t i = 1; i < setup.inputs.size(); ++i) {
    if (!setup.HasInput(i)) continue;
    const TensorInfo& p = setup.inputs[i];
    const char* name = i == 1 ? "Scale" : "B";
    if (p.dtype != dtype_) return setup.Invalid(std::string(name) + " has dtype " + DTypeName(p.dtype));
    std::vector<int64_t>* map = i == 1 ? &scale_map_ : &bias_map_;
    Shape trimmed = p.shape;
    while (!trimmed.empty() && trimmed.front() == 1 && trimmed.size() > norm.size()) trimmed.erase(trimmed.begin());
    if (trimmed == norm) continue;  // identity
    if (!BroadcastTable(p.shape, norm, map))
      return setup.Invalid(std::string(name) + " of shape " + ShapeToString(p.shape) +
                           " does not broadcast to the normalized shape " + ShapeToString(norm));
  }
  has_bias_ = setup.HasInput(2);
  if (setup.outputs.empty() || setup.outputs.size() > 3) return setup.Invalid("expects 1 to 3 outputs");
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, x.shape));
  Shape stat_shape(x.shape.begin(), x.shape.begin() + axis);
  stat_shape.resize(x.shape.size(), 1);
  has_mean_ = setup.outputs.size() > 1 && setup.outputs[1].present;
  has_inv_std_ = setup.outputs.size() > 2 && setup.outputs[2].present;
  stat_dtype_ = DType::kFloat32;
  for (size_t i = 1; i < setup.outputs.size(); ++i) {
    if (!setup.outputs[i].present) continue;
    const DType d = setup.outputs[i].dtype;
    if (d != DType::kFloat32 && d != DType::kFloat64)
      return setup.Unsupported(std::string("statistics dtype ") + DTypeName(d));
    stat_dtype_ = d;
    RETURN_IF_ERROR(CheckOutput(setup, i, d, stat_shape));
  }
  if (has_mean_ && has_inv_std_ && setup.outputs[1].dtype != setup.outputs[2].dtype)
    return setup.Invalid("Mean and InvStdDev have different dtypes");
  return Status::Ok();
}

template <typename T, typename U>
void LayerNormKernel::RunTyped(const KernelArgs& args) const {
  const T* x = args.in<T>(0);
  const T* scale = args.in<T>(1);
  const T* bias = has_bias_ ? args.in<T>(2) : nullptr;
  T* y = args.out<T>(0);
  U* mean_out = has_mean_ ? args.out<U>(1) : nullptr;
  U* inv_out = has_inv_std_ ? args.out<U>(2) : nullptr;
  ParallelFor(args.pool, outer_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, inner_)),
              [&](int64_t begin, int64_t end, int) {
                for (int64_t r = begin; r < end; ++r) {
                  const T* in = x + r * inner_;
                  T* out = y + r * inner_;
                  double sum = 0;
                  for (int64_t i = 0; i < inner_; ++i) sum += in[i];
                  const double mean = inner_ ? sum / static_cast<double>(inner_) : 0.0;
                  double sq = 0;
                  for (int64_t i = 0; i < inner_; ++i) {
                    const double d = in[i] - mean;
                    sq += d * d;
                  }
                  const double var = inner_ ? sq / static_cast<double>(inner_) : 0.0;
                  const double inv = 1.0 / std::sqrt(var + epsilon_);
                  const T m = static_cast<T>(mean), s = static_cast<T>(inv);
                  for (int64_t i = 0; i < inner_; ++i) {
                    const T sc = scale_map_.empty() ? scale[i] : scale[scale_map_[i]];
                    const T b = !bias ? T(0) : bias_map_.empty() ? bias[i] : bias[bias_map_[i]];
                    out[i] = (in[i] - m) * s * sc + b;
                  }
                  if (mean_out) mean_out[r] = static_cast<U>(mean);
                  if (inv_out) inv_out[r] = static_cast<U>(inv);
                }
              });
}

Status LayerNormKernel::Run(const KernelArgs& args) const {
  const bool f64_stats = stat_dtype_ == DType::kFloat64;
  if (dtype_ == DType::kFloat64) {
    if (f64_stats) RunTyped<double, double>(args);
    else RunTyped<double, float>(args);
  } else {
    if (f64_stats) RunTyped<float, double>(args);
    else RunTyped<float, float>(args);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeLayerNormalizationKernel() { return std::make_unique<LayerNormKernel>(); }

}  // namespace nn
}  // namespace loom
