// Where the tests find ONNX's backend test data (Debian's libonnx-testdata):
// $LOOM_ONNX_TESTDATA when set, else the build's LOOM_ONNX_TESTDATA setting.
// Tests get the setting by linking the CMake target loom_onnx_testdata.
#pragma once

#include <cstdlib>
#include <string>

namespace loom {

inline std::string OnnxTestDataRoot() {
  const char* env = std::getenv("LOOM_ONNX_TESTDATA");
  return env != nullptr && *env != '\0' ? env : LOOM_ONNX_TESTDATA;
}

}  // namespace loom
