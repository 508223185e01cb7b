// QLinearMatMul (opsets 10 and 21): a quantized MatMul with numpy semantics,
//   y = saturate(round(acc · a_scale[i] · b_scale[j] / y_scale) + y_zero_point)
// where acc sums (A[i, k] - a_zero_point[i]) · (B[k, j] - b_zero_point[j]).
// A, B and y are uint8 or int8 (independently), each zero point of its
// tensor's dtype. a_scale / a_zero_point are per tensor or per row of A,
// b_scale / b_zero_point per tensor or per column of B (each pair of the
// same count; the spec's N-D forms [..., M, 1] and [..., 1, N] with leading
// dims of 1 are accepted, per-batch parameters are unsupported), y_scale and
// y_zero_point per tensor. Scales and zero points may be constants or
// run-time inputs; float16 / bfloat16 scales (opset 21) are unsupported.
//
// The accumulators come from the integer matrix-product core (int_matmul.h,
// the one MatMulInteger uses); the output stages are Loom's fixed-point
// requantization (qlinear_stages.h says why, and where it may differ from
// ONNX's float formula by one step).
#include <memory>
#include <string>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/int_matmul.h"
#include "kernels/cpu/quant/qlinear_stages.h"

namespace loom {
namespace quant {
namespace {

// Input order of QLinearMatMul.
enum : size_t { kA, kAScale, kAZeroPoint, kB, kBScale, kBZeroPoint, kYScale, kYZeroPoint };

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

class QLinearMatMulKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return AlignUp(stages_.ScratchBytes()) + matmul_.ScratchBytes(num_threads);
  }
  Status Run(const KernelArgs& args) const override;

 private:
  IntMatMul matmul_;
  OutputStages stages_;
};

Status QLinearMatMulKernel::Prepare(const KernelSetup& setup) {
  RETURN_IF_ERROR(CheckNode(setup, 8, 8, 1, 1));
  IntMatMulInputs in;
  in.a = kA;
  in.b = kB;
  in.a_zero_point = kAZeroPoint;
  in.b_zero_point = kBZeroPoint;
  Shape out_shape;
  RETURN_IF_ERROR(matmul_.Prepare(setup, in, &out_shape));

  // Each scale has as many values as its zero point (which the core checked).
  int64_t a_count = 0, b_count = 0, a_zp_count = 0, b_zp_count = 0;
  RETURN_IF_ERROR(MatMulParamCount(setup, kAScale, "a_scale", matmul_.m(), true, &a_count));
  RETURN_IF_ERROR(MatMulParamCount(setup, kBScale, "b_scale", matmul_.n(), false, &b_count));
  RETURN_IF_ERROR(MatMulParamCount(setup, kAZeroPoint, "a_zero_point", matmul_.m(), true, &a_zp_count));
  RETURN_IF_ERROR(MatMulParamCount(setup, kBZeroPoint, "b_zero_point", matmul_.n(), false, &b_zp_count));
  if (a_count != a_zp_count)
    return setup.Invalid("a_scale has " + std::to_string(a_count) + " values, a_zero_point " +
                         std::to_string(a_zp_count) + " (expected the same number)");
  if (b_count != b_zp_count)
    return setup.Invalid("b_scale has " + std::to_string(b_count) + " values, b_zero_point " +
                         std::to_string(b_zp_count) + " (expected the same number)");
  OutputStageInputs stage_in;
  stage_in.a_scale = kAScale;
  stage_in.b_scale = kBScale;
  stage_in.y_scale = kYScale;
  stage_in.y_zero_point = kYZeroPoint;
  stage_in.a_name = "a_scale";
  stage_in.b_name = "b_scale";
  RETURN_IF_ERROR(stages_.Prepare(setup, stage_in, a_count, b_count));
  return CheckOutput(setup, 0, setup.inputs[kYZeroPoint].dtype, out_shape);
}

template <typename Y>
void RunMatMul(const IntMatMul& matmul, const KernelArgs& args, char* scratch, const OutputStages& s,
               const requant::OutputStage* stages) {
  Y* y = args.out<Y>(0);
  matmul.Run(args, scratch, [&](int64_t i, int64_t j, int64_t index, int32_t acc) {
    y[index] = static_cast<Y>(requant::Requantize(acc, stages[s.Index(i, j)]));
  });
}

Status QLinearMatMulKernel::Run(const KernelArgs& args) const {
  char* scratch = static_cast<char*>(args.scratch);
  const requant::OutputStage* stages = nullptr;
  RETURN_IF_ERROR(stages_.Compute(args, scratch, &stages));
  scratch += AlignUp(stages_.ScratchBytes());
  if (stages_.y_signed()) {
    RunMatMul<int8_t>(matmul_, args, scratch, stages_, stages);
  } else {
    RunMatMul<uint8_t>(matmul_, args, scratch, stages_, stages);
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeQLinearMatMulKernel() { return std::make_unique<QLinearMatMulKernel>(); }

}  // namespace quant
}  // namespace loom
