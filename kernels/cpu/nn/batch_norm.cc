// BatchNormalization, inference form: y = scale * (x - mean) / sqrt(var + eps) + B
// per channel, folded into y = x * a[c] + b[c]. The coefficients are computed
// once in Prepare when all four parameters are constant, otherwise in Run
// into scratch. Opset < 9 `spatial = 0` gives per-element parameters of shape
// X.shape[1:]. Training (training_mode = 1 or the running/saved statistics
// outputs) is unsupported.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace nn {
namespace {

class BatchNormKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int) const override {
    return const_coeffs_.empty() ? 2 * static_cast<size_t>(channels_ * per_channel_) * DTypeSize(dtype_) : 0;
  }
  Status Run(const KernelArgs& args) const override;

 private:
  template <typename T> void Coefficients(const T* scale, const T* bias, const T* mean, const T* var, T* a, T* b) const;
  template <typename T> void RunTyped(const KernelArgs& args) const;

  DType dtype_ = DType::kFloat32;
  int64_t batch_ = 0, channels_ = 0, plane_ = 1;
  int64_t per_channel_ = 1;  // plane_ when spatial = 0, else 1
  double epsilon_ = 1e-5;
  std::vector<uint8_t> const_coeffs_;  // a then b, when parameters are constant
};

Status BatchNormKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() != 5) return setup.Invalid("expects 5 inputs, got " + std::to_string(setup.inputs.size()));
  for (size_t i = 0; i < 5; ++i)
    if (!setup.HasInput(i)) return setup.Invalid("input " + std::to_string(i) + " is missing");
  const TensorInfo& x = setup.inputs[0];
  dtype_ = x.dtype;
  if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  const Attribute* tm = setup.attrs.Find("training_mode");
  if (tm && (tm->kind != Attribute::Kind::kInt || tm->i != 0)) return setup.Unsupported("training_mode=1");
  for (size_t i = 1; i < setup.outputs.size(); ++i)
    if (setup.outputs[i].present) return setup.Unsupported("training outputs (running or saved mean/var)");
  float epsilon = 0.f;
  RETURN_IF_ERROR(ReadFloatAttr(setup, "epsilon", 1e-5f, &epsilon));
  epsilon_ = epsilon;
  if (x.rank() < 2) return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected at least 2");
  batch_ = x.shape[0];
  channels_ = x.shape[1];
  plane_ = 1;
  for (int i = 2; i < x.rank(); ++i) plane_ *= x.shape[i];
  bool spatial = true;
  if (setup.opset < 9) {
    int64_t sp = 1;
    RETURN_IF_ERROR(ReadIntAttr(setup, "spatial", 1, &sp));
    spatial = sp != 0;
  }
  per_channel_ = spatial ? 1 : plane_;
  const Shape param_shape = spatial ? Shape{channels_} : Shape(x.shape.begin() + 1, x.shape.end());
  const char* names[] = {"X", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) {
    const TensorInfo& p = setup.inputs[i];
    if (p.dtype != dtype_)
      return setup.Invalid(std::string(names[i]) + " has dtype " + DTypeName(p.dtype) + ", expected " + DTypeName(dtype_));
    if (p.shape != param_shape)
      return setup.Invalid(std::string(names[i]) + " has shape " + ShapeToString(p.shape) + ", expected " +
                           ShapeToString(param_shape));
  }
  if (setup.outputs.empty()) return setup.Invalid("expects an output");
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, x.shape));
  const_coeffs_.clear();
  bool all_const = true;
  for (size_t i = 1; i < 5; ++i) all_const = all_const && setup.inputs[i].const_data;
  if (all_const) {
    const size_t n = static_cast<size_t>(channels_ * per_channel_);
    const_coeffs_.resize(2 * n * DTypeSize(dtype_));
    if (dtype_ == DType::kFloat32) {
      float* a = reinterpret_cast<float*>(const_coeffs_.data());
      Coefficients<float>(static_cast<const float*>(setup.inputs[1].const_data),
                          static_cast<const float*>(setup.inputs[2].const_data),
                          static_cast<const float*>(setup.inputs[3].const_data),
                          static_cast<const float*>(setup.inputs[4].const_data), a, a + n);
    } else {
      double* a = reinterpret_cast<double*>(const_coeffs_.data());
      Coefficients<double>(static_cast<const double*>(setup.inputs[1].const_data),
                           static_cast<const double*>(setup.inputs[2].const_data),
                           static_cast<const double*>(setup.inputs[3].const_data),
                           static_cast<const double*>(setup.inputs[4].const_data), a, a + n);
    }
  }
  return Status::Ok();
}

template <typename T>
void BatchNormKernel::Coefficients(const T* scale, const T* bias, const T* mean, const T* var, T* a, T* b) const {
  const int64_t n = channels_ * per_channel_;
  for (int64_t i = 0; i < n; ++i) {
    const double inv = 1.0 / std::sqrt(static_cast<double>(var[i]) + epsilon_);
    a[i] = static_cast<T>(scale[i] * inv);
    b[i] = static_cast<T>(bias[i] - mean[i] * scale[i] * inv);
  }
}

template <typename T>
void BatchNormKernel::RunTyped(const KernelArgs& args) const {
  const size_t n = static_cast<size_t>(channels_ * per_channel_);
  const T* a;
  if (!const_coeffs_.empty()) {
    a = reinterpret_cast<const T*>(const_coeffs_.data());
  } else {
    T* s = static_cast<T*>(args.scratch);
    Coefficients<T>(args.in<T>(1), args.in<T>(2), args.in<T>(3), args.in<T>(4), s, s + n);
    a = s;
  }
  const T* b = a + n;
  const T* x = args.in<T>(0);
  T* y = args.out<T>(0);
  ParallelFor(args.pool, batch_ * channels_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, plane_)),
              [&](int64_t begin, int64_t end, int) {
                for (int64_t row = begin; row < end; ++row) {
                  const int64_t c = row % channels_;
                  const T* in = x + row * plane_;
                  T* out = y + row * plane_;
                  if (per_channel_ == 1) {
                    const T av = a[c], bv = b[c];
                    for (int64_t i = 0; i < plane_; ++i) out[i] = in[i] * av + bv;
                  } else {
                    const T* ac = a + c * plane_;
                    const T* bc = b + c * plane_;
                    for (int64_t i = 0; i < plane_; ++i) out[i] = in[i] * ac[i] + bc[i];
                  }
                }
              });
}

Status BatchNormKernel::Run(const KernelArgs& args) const {
  if (dtype_ == DType::kFloat64) {
    RunTyped<double>(args);
  } else {
    RunTyped<float>(args);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeBatchNormalizationKernel() { return std::make_unique<BatchNormKernel>(); }

}  // namespace nn
}  // namespace loom
