#include "kernels/cpu/int8/linear_output.h"

#include <cmath>
#include <string>

#include "kernels/cpu/int8/output_steps.h"

namespace loom {
namespace int8 {

Status MakeLinearOutputStages(const KernelSetup& s, const LinearSpec& spec, const ActQuant& x,
                              std::vector<requant::OutputStage>* stages) {
  const TensorInfo& w = s.inputs[spec.weight_input];
  const int64_t m = spec.channels;
  if (m > OutputSteps::kMaxChannels)
    return s.Unsupported(std::to_string(m) + " output channels (above " + std::to_string(OutputSteps::kMaxChannels) +
                         ")");
  if (w.dtype != DType::kInt8)
    return s.Unsupported(std::string("weight W dtype ") + DTypeName(w.dtype) + " (int8 kernel)");
  if (!w.const_data) return s.Unsupported("non-constant weight W (int8 weights are packed once)");
  const QuantParams& wq = w.quant;
  if (wq.empty()) return s.Unsupported("weight W without quantization parameters");
  const int64_t scales = static_cast<int64_t>(wq.scale.size());
  if (scales != 1 && scales != m)
    return s.Unsupported("weight W with " + std::to_string(scales) + " scales, expected 1 or " + std::to_string(m) +
                         " (one per output channel)");
  if (scales > 1 && wq.axis != spec.weight_axis && wq.axis != spec.weight_axis - w.rank())
    return s.Unsupported("weight W quantized along axis " + std::to_string(wq.axis) + ", expected axis " +
                         std::to_string(spec.weight_axis) + " (the output channels)");
  for (int64_t zp : wq.zero_point)
    if (zp != 0) return s.Unsupported("asymmetric weight W (zero point " + std::to_string(zp) + ", expected 0)");
  for (float scale : wq.scale)
    if (!(scale > 0.f) || !std::isfinite(scale))
      return s.Unsupported("weight W scale " + std::to_string(scale) + " (expected finite and > 0)");

  if (!s.HasInput(spec.bias_input))
    return s.Unsupported("missing bias (int8 " + s.op + " needs the int32 bias holding the input zero point)");
  const TensorInfo& bias = s.inputs[spec.bias_input];
  if (bias.dtype != DType::kInt32) return s.Unsupported(std::string("bias of dtype ") + DTypeName(bias.dtype));
  const bool row = spec.bias_may_be_row && bias.shape == Shape{1, m};
  if (bias.shape != Shape{m} && !row)
    return s.Unsupported("bias of shape " + ShapeToString(bias.shape) + " (expected [" + std::to_string(m) + "])");

  if (s.outputs.size() != 1) return s.Invalid("expects 1 output, got " + std::to_string(s.outputs.size()));
  ActQuant y;
  RETURN_IF_ERROR(ReadActQuant(s, s.outputs[0], "output Y", &y));
  requant::Range range;
  RETURN_IF_ERROR(FusedActivationRange(s, y, &range));

  stages->assign(static_cast<size_t>(m), requant::OutputStage());
  for (int64_t c = 0; c < m; ++c)
    RETURN_IF_ERROR(
        RequantStatus(s, requant::MakeOutputStage(x.scale, wq.scale[scales == 1 ? 0 : c], y.scale, y.zero_point, range,
                                                  &(*stages)[static_cast<size_t>(c)])));
  return Status::Ok();
}

}  // namespace int8
}  // namespace loom
