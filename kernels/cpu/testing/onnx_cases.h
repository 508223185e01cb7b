// ONNX's backend test cases (<root>/<suite>/<case>/model.onnx with
// test_data_set_<n>/{input,output}_<i>.pb) run on single kernels: the kernel
// groups' conformance tests, one line each:
//
//   TEST(OnnxCasesTest, MathKernels) {
//     RunOnnxCases(RegisterCpuMathKernels, {"node/test_cast_FLOAT_to_STRING", ...});
//   }
//
// A group's cases are those whose graph is one node (plus Constant nodes
// feeding it) with an op the group's register function registers. Each data
// set runs twice: every graph input as run-time data, then the node inputs
// after the first as constants on two threads (the two Prepare paths);
// initializers and Constant outputs are always constants. Outputs must match
// within ONNX's tolerance (CompareTensors). A case refused as unsupported, by
// the kernel or because test tensors cannot carry it (strings, sequences,
// graph attributes), must be in `expected_unsupported`, and every listed case
// must be refused: a change either way fails. `not_run` lists cases that are
// no kernel's business (e.g. legacy semantics the builder rewrites). No
// libprotobuf: the models are read by tools/tensor_io.
#pragma once

#include <set>
#include <string>

namespace loom {

class KernelRegistry;

namespace testing {

// Runs the cases of the group `register_group` adds from $LOOM_ONNX_TESTDATA,
// else the build's LOOM_ONNX_TESTDATA, reporting through gtest (skips when the
// data is not installed). Case names are "suite/case".
void RunOnnxCases(void (*register_group)(KernelRegistry*), const std::set<std::string>& expected_unsupported,
                  const std::set<std::string>& not_run = {});

}  // namespace testing
}  // namespace loom
