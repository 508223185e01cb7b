// The tensor kernels on ONNX's backend test cases (kernels/cpu/testing/onnx_cases.h).
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/testing/onnx_cases.h"

namespace loom {
namespace {

TEST(OnnxCasesTest, TensorKernels) {
  // Refused by design: training-mode dropout, optional and sequence values.
  const std::set<std::string> unsupported = {
      "node/test_identity_opt",
      "node/test_identity_sequence",
      "node/test_training_dropout",
      "node/test_training_dropout_default",
      "node/test_training_dropout_default_mask",
      "node/test_training_dropout_mask",
      "node/test_training_dropout_zero_ratio",
      "node/test_training_dropout_zero_ratio_mask",
  };
  testing::RunOnnxCases(RegisterCpuTensorKernels, unsupported);
}

}  // namespace
}  // namespace loom
