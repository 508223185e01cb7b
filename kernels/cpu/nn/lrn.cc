// LRN (local response normalization across channels), per the ONNX spec:
//   square_sum[n, c, ...] = sum of x[n, i, ...]^2 for
//       i in [max(0, c - floor((size-1)/2)), min(C-1, c + ceil((size-1)/2))]
//   y = x / (bias + alpha / size * square_sum) ^ beta
// Each output channel plane accumulates the squared input planes of its
// window (contiguous, vectorizable), parallel over (n, c).
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace nn {
namespace {

class LrnKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() != 1 || !setup.HasInput(0)) return setup.Invalid("expects 1 input");
    const TensorInfo& x = setup.inputs[0];
    dtype_ = x.dtype;
    if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
      return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
    if (x.rank() < 2) return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected at least 2");
    const Attribute* size = setup.attrs.Find("size");
    if (!size || size->kind != Attribute::Kind::kInt) return setup.Invalid("missing int attribute size");
    if (size->i < 1) return setup.Invalid("attribute size " + std::to_string(size->i) + " < 1");
    size_ = size->i;
    RETURN_IF_ERROR(ReadFloatAttr(setup, "alpha", 1e-4f, &alpha_));
    RETURN_IF_ERROR(ReadFloatAttr(setup, "beta", 0.75f, &beta_));
    RETURN_IF_ERROR(ReadFloatAttr(setup, "bias", 1.f, &bias_));
    batch_ = x.shape[0];
    channels_ = x.shape[1];
    plane_ = 1;
    for (int i = 2; i < x.rank(); ++i) plane_ *= x.shape[i];
    if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
    return CheckOutput(setup, 0, dtype_, x.shape);
  }

  size_t ScratchBytes(int num_threads) const override {
    return static_cast<size_t>(num_threads) * static_cast<size_t>(plane_) * sizeof(double);
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
    T* y = args.out<T>(0);
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
    const double scale = static_cast<double>(alpha_) / static_cast<double>(size_);
    ParallelFor(args.pool, batch_ * channels_, 1, [&](int64_t begin, int64_t end, int thread) {
      double* sum = static_cast<double*>(args.scratch) + static_cast<size_t>(thread) * plane_;
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / channels_, c = row % channels_;
        const int64_t lo = std::max<int64_t>(0, c - before), hi = std::min<int64_t>(channels_ - 1, c + after);
        for (int64_t i = 0; i < plane_; ++i) sum[i] = 0;
        for (int64_t ci = lo; ci <= hi; ++ci) {
          const T* in = x + (n * channels_ + ci) * plane_;
          for (int64_t i = 0; i < plane_; ++i) sum[i] += static_cast<double>(in[i]) * in[i];
        }
        const T* in = x + row * plane_;
        T* out = y + row * plane_;
        for (int64_t i = 0; i < plane_; ++i)
          out[i] = static_cast<T>(in[i] / std::pow(bias_ + scale * sum[i], static_cast<double>(beta_)));
      }
    });
  }

  DType dtype_ = DType::kFloat32;
  int64_t size_ = 1, batch_ = 0, channels_ = 0, plane_ = 1;
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.f;
};

}  // namespace

std::unique_ptr<Kernel> MakeLrnKernel() { return std::make_unique<LrnKernel>(); }

}  // namespace nn
}  // namespace loom
