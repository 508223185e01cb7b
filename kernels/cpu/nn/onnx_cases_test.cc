// The nn kernels on ONNX's backend test cases (kernels/cpu/testing/onnx_cases.h).
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/testing/onnx_cases.h"

namespace loom {
namespace {

TEST(OnnxCasesTest, NnKernels) {
  // Refused by design: training mode.
  testing::RunOnnxCases(RegisterCpuNnKernels, {
                                                  "node/test_batchnorm_epsilon_training_mode",
                                                  "node/test_batchnorm_example_training_mode",
                                              });
}

}  // namespace
}  // namespace loom
