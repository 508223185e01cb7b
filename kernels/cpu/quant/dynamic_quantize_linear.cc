// DynamicQuantizeLinear (opset 11): quantizes float32 x to uint8 with a scale
// and zero point computed from x's range, as ONNX's reference does:
//   max = max(0, max(x)), min = min(0, min(x))
//   y_scale = (max == min ? 1 : max - min) / 255  (so all zeros give 1/255)
//   y_zero_point = saturate(round_half_to_even(0 - min / y_scale))
//   y = saturate(round_half_to_even(x / y_scale) + y_zero_point)
// all in float32. NaNs are left out of the range and quantize to 0.
//
// Run makes two passes: the range (each thread reduces its chunks into its
// own scratch slot), then the quantization.
#include <algorithm>
#include <memory>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/linear_quant.h"

namespace loom {
namespace quant {
namespace {

struct Range {
  float min;
  float max;
};

class DynamicQuantizeLinearKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 1, 1, 3, 3));
    const TensorInfo& x = setup.inputs[0];
    if (x.dtype != DType::kFloat32) {
      if (IsFloatingPoint(x.dtype)) return setup.Unsupported(std::string("input dtype ") + DTypeName(x.dtype));
      return setup.Invalid(std::string("input 0 has dtype ") + DTypeName(x.dtype) + ", expected float32");
    }
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kUInt8, x.shape));
    RETURN_IF_ERROR(CheckOutput(setup, 1, DType::kFloat32, {}));
    RETURN_IF_ERROR(CheckOutput(setup, 2, DType::kUInt8, {}));
    size_ = x.num_elements();
    return Status::Ok();
  }

  size_t ScratchBytes(int num_threads) const override { return sizeof(Range) * static_cast<size_t>(num_threads); }

  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    Range* ranges = static_cast<Range*>(args.scratch);
    const int threads = args.pool ? args.pool->NumThreads() : 1;
    // min(0, .) and max(0, .) are folded in by starting from 0.
    std::fill(ranges, ranges + threads, Range{0.f, 0.f});
    ParallelFor(args.pool, size_, kQuantGrain, [&](int64_t begin, int64_t end, int thread) {
      // kLanes independent minima and maxima, so the loop vectorizes.
      constexpr int kLanes = 8;
      float lo[kLanes], hi[kLanes];
      std::fill(lo, lo + kLanes, ranges[thread].min);
      std::fill(hi, hi + kLanes, ranges[thread].max);
      int64_t i = begin;
      for (; i + kLanes <= end; i += kLanes) {
        for (int l = 0; l < kLanes; ++l) {
          lo[l] = x[i + l] < lo[l] ? x[i + l] : lo[l];
          hi[l] = x[i + l] > hi[l] ? x[i + l] : hi[l];
        }
      }
      for (; i < end; ++i) {
        lo[0] = x[i] < lo[0] ? x[i] : lo[0];
        hi[0] = x[i] > hi[0] ? x[i] : hi[0];
      }
      ranges[thread] = Range{*std::min_element(lo, lo + kLanes), *std::max_element(hi, hi + kLanes)};
    });
    float min = 0.f, max = 0.f;
    for (int t = 0; t < threads; ++t) {
      min = std::min(min, ranges[t].min);
      max = std::max(max, ranges[t].max);
    }
    const float scale = (max == min ? 1.f : max - min) / 255.f;
    const float zero_point = QuantizeValue(0.f - min / scale, 0.f, 0.f, 255.f);
    ParallelFor(args.pool, size_, kQuantGrain, [&](int64_t begin, int64_t end, int) {
      // Locals, so the loop vectorizes: the uint8_t stores may alias anything the lambda captures.
      const float* in = x;
      uint8_t* y = args.out<uint8_t>(0);
      const float s = scale, z = zero_point;
      for (int64_t i = begin; i < end; ++i) y[i] = static_cast<uint8_t>(QuantizeValue(in[i] / s, z, 0.f, 255.f));
    });
    *args.out<float>(1) = scale;
    *args.out<uint8_t>(2) = static_cast<uint8_t>(zero_point);
    return Status::Ok();
  }

 private:
  int64_t size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeDynamicQuantizeLinearKernel() { return std::make_unique<DynamicQuantizeLinearKernel>(); }

}  // namespace quant
}  // namespace loom
