// GlobalAveragePool, GlobalMaxPool and GlobalLpPool: reduce all spatial dims
// of an N x C x D1 x ... tensor to 1, one contiguous plane per (n, c).
// fp32 average and max reduce each plane with the vector path of
// pool_f32_isa.h; planes are split over the thread pool.
#include <cmath>
#include <limits>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/pool_f32_isa.h"

namespace loom {
namespace nn {
namespace {

enum class GlobalKind { kAverage, kMax, kLp };

class GlobalPoolKernel final : public Kernel {
 public:
  explicit GlobalPoolKernel(GlobalKind kind) : kind_(kind) {}

  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() != 1 || !setup.HasInput(0)) return setup.Invalid("expects 1 input");
    const TensorInfo& x = setup.inputs[0];
    dtype_ = x.dtype;
    if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
      return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
    if (x.rank() < 2) return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected at least 2");
    if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
    Shape out_shape = x.shape;
    for (size_t i = 2; i < out_shape.size(); ++i) out_shape[i] = 1;
    RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, out_shape));
    planes_ = x.shape[0] * x.shape[1];
    plane_size_ = 1;
    for (size_t i = 2; i < x.shape.size(); ++i) plane_size_ *= x.shape[i];
    if (kind_ == GlobalKind::kLp) {
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
    isa_ = &ActivePoolF32Isa();
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    if (dtype_ == DType::kFloat64) {
      RunTyped<double>(args);
    } else if (kind_ != GlobalKind::kLp && plane_size_ > 0) {
      RunFast(args);
    } else {
      RunTyped<float>(args);
    }
    return Status::Ok();
  }

 private:
  void RunFast(const KernelArgs& args) const {
    const float* x = args.in<float>(0);
    float* y = args.out<float>(0);
    const bool average = kind_ == GlobalKind::kAverage;
    const float size = static_cast<float>(plane_size_);
    const int64_t grain = plane_size_ >= 4096 ? 1 : 4096 / plane_size_;
    ParallelFor(args.pool, planes_, grain, [&](int64_t begin, int64_t end, int) {
      for (int64_t plane = begin; plane < end; ++plane) {
        const float* in = x + plane * plane_size_;
        y[plane] = average ? isa_->sum(in, plane_size_) / size : isa_->max(in, plane_size_);
      }
    });
  }

  template <typename T>
  void RunTyped(const KernelArgs& args) const {
    const T* x = args.in<T>(0);
    T* y = args.out<T>(0);
    ParallelFor(args.pool, planes_, 16, [&](int64_t begin, int64_t end, int) {
      for (int64_t plane = begin; plane < end; ++plane) {
        const T* in = x + plane * plane_size_;
        switch (kind_) {
          case GlobalKind::kAverage: {
            T sum = 0;
            for (int64_t i = 0; i < plane_size_; ++i) sum += in[i];
            y[plane] = plane_size_ ? sum / static_cast<T>(plane_size_) : T(0);
            break;
          }
          case GlobalKind::kMax: {
            T best = plane_size_ ? in[0] : std::numeric_limits<T>::lowest();
            for (int64_t i = 1; i < plane_size_; ++i) best = in[i] > best ? in[i] : best;
            y[plane] = best;
            break;
          }
          case GlobalKind::kLp: {
            T sum = 0;
            if (p_ == 2) {
              for (int64_t i = 0; i < plane_size_; ++i) sum += in[i] * in[i];
              y[plane] = std::sqrt(sum);
            } else {
              const T p = static_cast<T>(p_);
              for (int64_t i = 0; i < plane_size_; ++i) sum += std::pow(std::fabs(in[i]), p);
              y[plane] = p_ == 1 ? sum : std::pow(sum, T(1) / p);
            }
            break;
          }
        }
      }
    });
  }

  GlobalKind kind_;
  DType dtype_ = DType::kFloat32;
  int64_t planes_ = 0, plane_size_ = 0;
  int64_t p_ = 2;
  const PoolF32Isa* isa_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> MakeGlobalAveragePoolKernel() { return std::make_unique<GlobalPoolKernel>(GlobalKind::kAverage); }
std::unique_ptr<Kernel> MakeGlobalMaxPoolKernel() { return std::make_unique<GlobalPoolKernel>(GlobalKind::kMax); }
std::unique_ptr<Kernel> MakeGlobalLpPoolKernel() { return std::make_unique<GlobalPoolKernel>(GlobalKind::kLp); }

}  // namespace nn
}  // namespace loom
