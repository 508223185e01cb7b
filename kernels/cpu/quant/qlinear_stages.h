// What QLinearConv and QLinearMatMul share: their scale and zero-point
// inputs, and the output stages that turn an int32 accumulator into y.
//
// ONNX defines y = saturate(round_half_to_even(acc · a_scale · b_scale /
// y_scale) + y_zero_point) in float. Loom evaluates it with its one
// requantization arithmetic (kernels/common/requantize.h): stage (i, j) is
// MakeOutputStage(a_scale[i], b_scale[j], y_scale, y_zero_point, y's dtype
// range), applied by Requantize. Why fixed point rather than the float
// formula: a QLinear node then gives the same bits as the int8 CPU kernels
// and the accelerator (which use exactly these stages), whichever runs it.
// It reproduces ONNX's conformance data (node/test_qlinearconv,
// test_qlinearmatmul_2D/3D) exactly. It can differ from the float formula,
// always by one step, in two ways: an exact tie (acc · scale a half-integer,
// possible when the scale ratio is a power of two) is not rounded to even but
// by gemmlowp's rules (requantize.h); and a value very close to a
// half-integer may round the other way, as the high multiply rounds before
// the final shift (within about 2^(shift-1) of it, e.g. 2^-11 for a scale
// near 2^-10). In qlinear_conv_test's random cases that is 0.03% of outputs.
//
// Stage (i, j) lives at index i · b_count + j (a count of 1 is index 0 for
// every i, or j). Stages are computed once in Prepare when all scales and
// y_zero_point are constant, else in Run from the run's inputs into scratch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/common/requantize.h"

namespace loom {
namespace quant {

// Checks that input `index` (named `name`) is a float32 scale: float16 and
// bfloat16 are unsupported, other dtypes invalid.
Status CheckScaleDType(const KernelSetup& s, size_t index, const char* name);

// Checks that input `index` (named `name`, e.g. "x_scale") holds one value: a
// scalar or a 1-element 1-D tensor.
Status CheckPerTensor(const KernelSetup& s, size_t index, const char* name);

// The scale and zero-point inputs feeding a QLinear node's output stages.
struct OutputStageInputs {
  size_t a_scale = 0, b_scale = 0, y_scale = 0, y_zero_point = 0;
  const char* a_name = "";  // "x_scale", "a_scale": for messages
  const char* b_name = "";  // "w_scale", "b_scale"
};

class OutputStages {
 public:
  // a_count and b_count (1 or the channel count) are the caller's to
  // validate. Checks the scales' dtypes, that y_scale and y_zero_point hold
  // one value and that y_zero_point is uint8 or int8 (y's dtype, the
  // caller's to check); computes the stages when every input is constant.
  Status Prepare(const KernelSetup& s, const OutputStageInputs& in, int64_t a_count, int64_t b_count);

  // Scratch Compute needs: none when the stages are constant.
  size_t ScratchBytes() const {
    return stages_.empty() ? static_cast<size_t>(a_count_ * b_count_) * sizeof(requant::OutputStage) : 0;
  }

  // The stages of this run: the constant ones, or computed from the run's
  // inputs into `scratch` (ScratchBytes(), suitably aligned). Fails
  // (InvalidArgument) when a scale product is not in (0, 2^31).
  Status Compute(const KernelArgs& args, void* scratch, const requant::OutputStage** stages) const;

  int64_t Index(int64_t i, int64_t j) const { return (a_count_ == 1 ? 0 : i) * b_count_ + (b_count_ == 1 ? 0 : j); }
  bool y_signed() const { return y_signed_; }

 private:
  Status Fill(const float* a_scale, const float* b_scale, const float* y_scale, const void* y_zero_point,
              requant::OutputStage* out) const;

  OutputStageInputs in_;
  int64_t a_count_ = 1, b_count_ = 1;
  bool y_signed_ = false;
  std::vector<requant::OutputStage> stages_;  // when constant
};

}  // namespace quant
}  // namespace loom
