// Test helper: the expectations written by testdata/make_testdata.py
// (path, ONNX dtype, dims, FNV-1a 64 of the element bytes, or REFUSE), and
// where ONNX's node test data is.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "tools/tensor_io/onnx_testdata_root.h"

namespace loom {
namespace testing {

struct Expectation {
  std::string path;  // relative: "npy/...", "pb/..." or "node/..."
  bool refuse = false;
  int dtype = 0;
  std::string dims;  // ShapeToString form
  std::string hash;  // 16 hex digits
};

inline std::string OnnxNodeTestData() { return OnnxTestDataRoot() + "/node"; }

inline std::string Fnv1a64(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

inline std::vector<Expectation> LoadExpectations(const std::string& file) {
  std::vector<Expectation> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Expectation e;
    std::string second;
    fields >> e.path >> second;
    if (second == "REFUSE") {
      e.refuse = true;
    } else {
      e.dtype = std::stoi(second);
      fields >> e.dims >> e.hash;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace testing
}  // namespace loom
