// The math kernels on ONNX's backend test cases (kernels/cpu/testing/onnx_cases.h).
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/testing/onnx_cases.h"

namespace loom {
namespace {

TEST(OnnxCasesTest, MathKernels) {
  // Refused by design: float16 arithmetic and strings.
  const std::set<std::string> unsupported = {
      "node/test_cast_FLOAT_to_STRING",
      "node/test_cast_STRING_to_FLOAT",
      "node/test_castlike_FLOAT_to_STRING",
      "node/test_castlike_FLOAT_to_STRING_expanded",
      "node/test_castlike_STRING_to_FLOAT",
      "node/test_castlike_STRING_to_FLOAT_expanded",
      "node/test_max_float16",
      "node/test_min_float16",
      "node/test_mod_mixed_sign_float16",
  };
  // Before opset 7 PRelu applied a 1-D slope per channel; the builder reshapes
  // such slopes (builder/onnx/opset.cc), the kernel implements opset 7 on.
  const std::set<std::string> not_run = {
      "pytorch-converted/test_PReLU_1d_multiparam",
      "pytorch-converted/test_PReLU_2d_multiparam",
      "pytorch-converted/test_PReLU_3d_multiparam",
  };
  testing::RunOnnxCases(RegisterCpuMathKernels, unsupported, not_run);
}

}  // namespace
}  // namespace loom
