// InstanceNormalization: each (n, c) plane is standardized with its own mean
// and variance, y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c].
// Statistics are accumulated in double, two passes per plane.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace nn {
namespace {

class InstanceNormKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() != 3 || !setup.HasInput(0) || !setup.HasInput(1) || !setup.HasInput(2))
      return setup.Invalid("expects inputs input, scale and B");
    const TensorInfo& x = setup.inputs[0];
    dtype_ = x.dtype;
    if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
      return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
    if (x.rank() < 2) return setup.Invalid("input has " + std::to_string(x.rank()) + " dims, expected at least 2");
    float epsilon = 0.f;
    RETURN_IF_ERROR(ReadFloatAttr(setup, "epsilon", 1e-5f, &epsilon));
    epsilon_ = epsilon;
    channels_ = x.shape[1];
    planes_ = x.shape[0] * channels_;
    plane_ = 1;
    for (int i = 2; i < x.rank(); ++i) plane_ *= x.shape[i];
    for (size_t i = 1; i < 3; ++i) {
      const TensorInfo& p = setup.inputs[i];
      const char* name = i == 1 ? "scale" : "B";
      if (p.dtype != dtype_) return setup.Invalid(std::string(name) + " has dtype " + DTypeName(p.dtype));
      if (p.shape != Shape{channels_})
        return setup.Invalid(std::string(name) + " has shape " + ShapeToString(p.shape) + ", expected " +
                             std::to_string(channels_));
    }
    if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
    return CheckOutput(setup, 0, dtype_, x.shape);
  }

  Status Run(const KernelArgs& args) const override {
    if (dtype_ == DType::kFloat64) {
      RunTyped<double>(args);
    } else {
      RunTyped<float>(args);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void RunTyped(const KernelArgs& args) const {
    const T* x = args.in<T>(0);
    const T* scale = args.in<T>(1);
    const T* bias = args.in<T>(2);
    T* y = args.out<T>(0);
    ParallelFor(args.pool, planes_, 1, [&](int64_t begin, int64_t end, int) {
      for (int64_t p = begin; p < end; ++p) {
        const T* in = x + p * plane_;
        T* out = y + p * plane_;
        const int64_t c = p % channels_;
        double sum = 0;
        for (int64_t i = 0; i < plane_; ++i) sum += in[i];
        const double mean = plane_ ? sum / static_cast<double>(plane_) : 0.0;
        double sq = 0;
        for (int64_t i = 0; i < plane_; ++i) {
          const double d = in[i] - mean;
          sq += d * d;
        }
        const double var = plane_ ? sq / static_cast<double>(plane_) : 0.0;
        const double a = scale[c] / std::sqrt(var + epsilon_);
        const T av = static_cast<T>(a), bv = static_cast<T>(bias[c] - mean * a);
        for (int64_t i = 0; i < plane_; ++i) out[i] = in[i] * av + bv;
      }
    });
  }

  DType dtype_ = DType::kFloat32;
  int64_t channels_ = 0, planes_ = 0, plane_ = 1;
  double epsilon_ = 1e-5;
};

}  // namespace

std::unique_ptr<Kernel> MakeInstanceNormalizationKernel() { return std::make_unique<InstanceNormKernel>(); }

}  // namespace nn
}  // namespace loom
