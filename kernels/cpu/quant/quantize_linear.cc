// QuantizeLinear (opsets 10, 13, and later ones on these dtypes):
//   y = saturate(round_half_to_even(x / y_scale) + y_zero_point)
// x float32 or int32; y_scale float32, per-tensor or per-axis (linear_quant.h);
// y has the dtype of y_zero_point, uint8 or int8 (absent: the `output_dtype`
// attribute when set, else uint8 with zero point 0). The division is done in
// float32, as ONNX's reference does, so results match it bit for bit. NaN
// quantizes to the low end of the range. float16 / bfloat16 inputs, float8
// and 4-/16-bit outputs are unsupported.
#include <limits>
#include <memory>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/linear_quant.h"

namespace loom {
namespace quant {
namespace {

using QuantizeLoop = void (*)(const LinearQuantParams& p, const void* x, const float* scale, const void* zero_point,
                              void* y, int64_t begin, int64_t end);

template <typename X, typename Q>
void QuantizeLoopImpl(const LinearQuantParams& p, const void* xv, const float* scale, const void* zp, void* yv,
                      int64_t begin, int64_t end) {
  const X* x = static_cast<const X*>(xv);
  Q* y = static_cast<Q*>(yv);
  const Q* zero_point = static_cast<const Q*>(zp);
  constexpr float lo = std::numeric_limits<Q>::min();
  constexpr float hi = std::numeric_limits<Q>::max();
  ForEachChannelRun(p, begin, end, [&](int64_t c, int64_t b, int64_t e) {
    const float s = scale[c];
    const float z = zero_point ? static_cast<float>(zero_point[c]) : 0.f;
    for (int64_t i = b; i < e; ++i) {
      y[i] = static_cast<Q>(QuantizeValue(static_cast<float>(x[i]) / s, z, lo, hi));
    }
  });
}

template <typename X>
QuantizeLoop PickLoop(DType y) {
  if (y == DType::kUInt8) return &QuantizeLoopImpl<X, uint8_t>;
  if (y == DType::kInt8) return &QuantizeLoopImpl<X, int8_t>;
  return nullptr;
}

class QuantizeLinearKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 2, 3, 1, 1));
    const TensorInfo& x = setup.inputs[0];
    RETURN_IF_ERROR(PrepareLinearQuantParams(setup, &params_));
    int64_t output_dtype = 0;
    RETURN_IF_ERROR(ReadIntAttr(setup, "output_dtype", 0, &output_dtype));
    DType y = DType::kUInt8;
    if (params_.has_zero_point) {
      y = params_.zero_point_dtype;
      if (output_dtype != 0 && output_dtype != static_cast<int64_t>(y)) {
        return setup.Invalid("attribute 'output_dtype' is " + std::to_string(output_dtype) +
                             ", the zero point's dtype is " + DTypeName(y));
      }
    } else if (output_dtype != 0) {
      if (output_dtype < 0 || output_dtype > INT32_MAX || !IsKnownDType(static_cast<int32_t>(output_dtype))) {
        return setup.Invalid("attribute 'output_dtype' is " + std::to_string(output_dtype) + ", not a known dtype");
      }
      y = static_cast<DType>(output_dtype);
    }
    if (y == DType::kInt16 || y == DType::kUInt16) {
      return setup.Unsupported(std::string("quantization to ") + DTypeName(y));
    }
    if (y != DType::kUInt8 && y != DType::kInt8) {
      return setup.Invalid(std::string("output dtype ") + DTypeName(y) + ", expected uint8 or int8");
    }
    if (x.dtype == DType::kFloat32) {
      loop_ = PickLoop<float>(y);
    } else if (x.dtype == DType::kInt32) {
      loop_ = PickLoop<int32_t>(y);
    } else if (IsFloatingPoint(x.dtype)) {
      return setup.Unsupported(std::string("input dtype ") + DTypeName(x.dtype));
    } else {
      return setup.Invalid(std::string("input 0 has dtype ") + DTypeName(x.dtype) + ", expected float32 or int32");
    }
    RETURN_IF_ERROR(CheckOutput(setup, 0, y, x.shape));
    size_ = x.num_elements();
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const float* scale = params_.const_scale ? params_.const_scale : args.in<float>(1);
    const void* zero_point = nullptr;
    if (params_.has_zero_point) zero_point = params_.const_zero_point ? params_.const_zero_point : args.inputs[2];
    const void* x = args.inputs[0];
    void* y = args.outputs[0];
    ParallelFor(args.pool, size_, kQuantGrain, [&](int64_t begin, int64_t end, int) {
      loop_(params_, x, scale, zero_point, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  LinearQuantParams params_;
  QuantizeLoop loop_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeQuantizeLinearKernel() { return std::make_unique<QuantizeLinearKernel>(); }

}  // namespace quant
}  // namespace loom
