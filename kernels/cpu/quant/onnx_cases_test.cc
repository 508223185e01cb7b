// The quant kernels on ONNX's backend test cases (kernels/cpu/testing/onnx_cases.h).
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/testing/onnx_cases.h"

namespace loom {
namespace {

TEST(OnnxCasesTest, QuantKernels) {
  testing::RunOnnxCases(RegisterCpuQuantKernels, {});
}

}  // namespace
}  // namespace loom
