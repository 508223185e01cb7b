// DequantizeLinear (opsets 10, 13, and later ones on these dtypes):
//   y = (x - x_zero_point) * x_scale
// x uint8, int8 or int32; x_zero_point (optional, default 0) of x's dtype,
// and for int32 x it must be 0 (checked in Prepare when constant); x_scale
// float32, per-tensor or per-axis (linear_quant.h); y float32. Computed in
// float32 as ONNX's reference does. Float8, 4- and 16-bit inputs and
// float16 / bfloat16 scales are unsupported.
#include <memory>
#include <string>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/linear_quant.h"

namespace loom {
namespace quant {
namespace {

using DequantizeLoop = void (*)(const LinearQuantParams& p, const void* x, const float* scale, const void* zero_point,
                                float* y, int64_t begin, int64_t end);

template <typename Q>
void DequantizeLoopImpl(const LinearQuantParams& p, const void* xv, const float* scale, const void* zp, float* y,
                        int64_t begin, int64_t end) {
  const Q* x = static_cast<const Q*>(xv);
  const Q* zero_point = static_cast<const Q*>(zp);
  ForEachChannelRun(p, begin, end, [&](int64_t c, int64_t b, int64_t e) {
    const float s = scale[c];
    const float z = zero_point ? static_cast<float>(zero_point[c]) : 0.f;
    for (int64_t i = b; i < e; ++i) y[i] = (static_cast<float>(x[i]) - z) * s;
  });
}

class DequantizeLinearKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 2, 3, 1, 1));
    const TensorInfo& x = setup.inputs[0];
    switch (x.dtype) {
      case DType::kUInt8:
        loop_ = &DequantizeLoopImpl<uint8_t>;
        break;
      case DType::kInt8:
        loop_ = &DequantizeLoopImpl<int8_t>;
        break;
      case DType::kInt32:
        loop_ = &DequantizeLoopImpl<int32_t>;
        break;
      case DType::kInt16:
      case DType::kUInt16:
        return setup.Unsupported(std::string("dequantization of ") + DTypeName(x.dtype));
      default:
        return setup.Invalid(std::string("input 0 has dtype ") + DTypeName(x.dtype) + ", expected uint8, int8 or int32");
    }
    RETURN_IF_ERROR(PrepareLinearQuantParams(setup, &params_));
    if (params_.has_zero_point && params_.zero_point_dtype != x.dtype) {
      return setup.Invalid(std::string("zero point has dtype ") + DTypeName(params_.zero_point_dtype) +
                           ", expected input 0's dtype " + DTypeName(x.dtype));
    }
    if (x.dtype == DType::kInt32 && params_.const_zero_point) {
      const auto* zp = static_cast<const int32_t*>(params_.const_zero_point);
      for (int64_t i = 0; i < setup.inputs[2].num_elements(); ++i) {
        if (zp[i] != 0) return setup.Invalid("int32 input with zero point " + std::to_string(zp[i]) + ", expected 0");
      }
    }
    const DType y = setup.outputs.empty() ? DType::kUndefined : setup.outputs[0].dtype;
    if (y != DType::kFloat32 && IsFloatingPoint(y)) {
      return setup.Unsupported(std::string("dequantization to ") + DTypeName(y));
    }
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kFloat32, x.shape));
    size_ = x.num_elements();
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const float* scale = params_.const_scale ? params_.const_scale : args.in<float>(1);
    const void* zero_point = nullptr;
    if (params_.has_zero_point) zero_point = params_.const_zero_point ? params_.const_zero_point : args.inputs[2];
    const void* x = args.inputs[0];
    float* y = args.out<float>(0);
    ParallelFor(args.pool, size_, kQuantGrain, [&](int64_t begin, int64_t end, int) {
      loop_(params_, x, scale, zero_point, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  LinearQuantParams params_;
  DequantizeLoop loop_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeDequantizeLinearKernel() { return std::make_unique<DequantizeLinearKernel>(); }

}  // namespace quant
}  // namespace loom
