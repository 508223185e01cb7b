// Runs one ONNX backend test case (a folder with model.onnx and
// test_data_set_*/{input,output}_<i>.pb) through Loom in this process: build
// the plan with loom::BuildPlan, load it with Engine::LoadFromBuffer, run each
// data set and compare every output with the expected one.
#pragma once

#include <string>

#include "tests/conformance/forked_pool.h"
#include "tools/tensor_io/tensor_compare.h"

namespace loom {
namespace conformance {

// PASS, FAIL (with the reason), or UNSUPPORTED when the builder refuses the
// model with a message containing "unsupported".
CaseResult RunCase(const std::string& case_dir, const Tolerance& tolerance = {});

}  // namespace conformance
}  // namespace loom
