// QLinearConv (opset 10): a quantized Conv,
//   y = saturate(round((acc + B[m]) · x_scale · w_scale[m] / y_scale) + y_zero_point)
// where acc sums (x - x_zero_point) · (w - w_zero_point[m]) over the window.
// x, w and y are uint8 or int8 (independently), each zero point of its
// tensor's dtype; x_scale, x_zero_point, y_scale and y_zero_point are per
// tensor, w_scale and w_zero_point per tensor or per output channel (1-D of
// M); the optional bias B is int32 [M] with scale x_scale · w_scale and zero
// point 0. Scales and zero points may be constants or run-time inputs.
//
// The accumulators come from the integer convolution core (int_conv.h, the
// one ConvInteger uses: every Conv attribute it supports); the bias is added
// in int32 and the output stages are Loom's fixed-point requantization
// (qlinear_stages.h says why, and where it may differ from ONNX's float
// formula by one step).
#include <memory>
#include <string>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/int_conv.h"
#include "kernels/cpu/quant/qlinear_stages.h"

namespace loom {
namespace quant {
namespace {

// Input order of QLinearConv.
enum : size_t { kX, kXScale, kXZeroPoint, kW, kWScale, kWZeroPoint, kYScale, kYZeroPoint, kBias };

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

class QLinearConvKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return AlignUp(stages_.ScratchBytes()) + conv_.ScratchBytes(num_threads);
  }
  Status Run(const KernelArgs& args) const override;

 private:
  IntConv conv_;
  OutputStages stages_;
  bool has_bias_ = false;
};

Status QLinearConvKernel::Prepare(const KernelSetup& setup) {
  RETURN_IF_ERROR(CheckNode(setup, 8, 9, 1, 1));
  IntConvInputs in;
  in.x = kX;
  in.w = kW;
  in.x_zero_point = kXZeroPoint;
  in.w_zero_point = kWZeroPoint;
  Shape out_shape;
  RETURN_IF_ERROR(conv_.Prepare(setup, in, &out_shape));
  const int64_t m = conv_.out_channels();

  RETURN_IF_ERROR(CheckPerTensor(setup, kXScale, "x_scale"));
  const TensorInfo& w_scale = setup.inputs[kWScale];
  if (w_scale.rank() > 1 || (w_scale.num_elements() != 1 && w_scale.num_elements() != m))
    return setup.Invalid("w_scale has shape " + ShapeToString(w_scale.shape) + ", expected a scalar or [" +
                         std::to_string(m) + "] (per output channel)");
  const int64_t w_zp_count = setup.inputs[kWZeroPoint].num_elements();
  if (w_zp_count != w_scale.num_elements())
    return setup.Invalid("w_scale has " + std::to_string(w_scale.num_elements()) + " values, w_zero_point " +
                         std::to_string(w_zp_count) + " (expected the same number)");
  OutputStageInputs stage_in;
  stage_in.a_scale = kXScale;
  stage_in.b_scale = kWScale;
  stage_in.y_scale = kYScale;
  stage_in.y_zero_point = kYZeroPoint;
  stage_in.a_name = "x_scale";
  stage_in.b_name = "w_scale";
  RETURN_IF_ERROR(stages_.Prepare(setup, stage_in, 1, w_scale.num_elements()));

  has_bias_ = setup.HasInput(kBias);
  if (has_bias_) {
    const TensorInfo& b = setup.inputs[kBias];
    if (b.dtype != DType::kInt32)
      return setup.Invalid(std::string("B has dtype ") + DTypeName(b.dtype) + ", expected int32");
    if (b.shape != Shape{m})
      return setup.Invalid("B has shape " + ShapeToString(b.shape) + ", expected [" + std::to_string(m) + "]");
  }
  return CheckOutput(setup, 0, setup.inputs[kYZeroPoint].dtype, out_shape);
}

template <typename Y>
void RunConv(const IntConv& conv, const KernelArgs& args, char* scratch, const OutputStages& s,
             const requant::OutputStage* stages, const int32_t* bias) {
  Y* y = args.out<Y>(0);
  conv.Run(args, scratch, [&](int64_t m, int64_t i, int32_t acc) {
    // The bias joins the accumulator in 32-bit wrapping arithmetic, as the accumulation itself.
    if (bias) acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias[m]));
    y[i] = static_cast<Y>(requant::Requantize(acc, stages[s.Index(0, m)]));
  });
}

Status QLinearConvKernel::Run(const KernelArgs& args) const {
  char* scratch = static_cast<char*>(args.scratch);
  const requant::OutputStage* stages = nullptr;
  RETURN_IF_ERROR(stages_.Compute(args, scratch, &stages));
  scratch += AlignUp(stages_.ScratchBytes());
  const int32_t* bias = has_bias_ ? args.in<int32_t>(kBias) : nullptr;
  if (stages_.y_signed()) {
    RunConv<int8_t>(conv_, args, scratch, stages_, stages, bias);
  } else {
    RunConv<uint8_t>(conv_, args, scratch, stages_, stages, bias);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeQLinearConvKernel() { return std::make_unique<QLinearConvKernel>(); }

}  // namespace quant
}  // namespace loom
