// Small fake kernels for builder tests, so passes, placement and folding can
// be tested without depending on the real kernel groups:
//   "Relu", "Identity", "Sigmoid", ...  elementwise copy (float32 Relu clamps)
//   "Add"      float32 elementwise add of equal shapes
//   "Conv", "Gemm", "MatMul"  accept any node, output zeros; with
//              refuse_activation set they refuse loom.activation
//   "Reshape"  InferOutputShapes from a constant int64 shape input
//   "Cast"     int64 -> int64 copy (enough for shape chains)
//   "Broken"   always refuses (Unsupported)
//   "Frobnicate" in domain "com.example": a custom-domain copy
#pragma once

#include <string>

#include "kernels/common/registry.h"

namespace loom {
namespace testing {

struct FakeKernelOptions {
  bool refuse_activation = false;
};

// A registry with the fakes above.
KernelRegistry MakeFakeRegistry(const FakeKernelOptions& options = {});

// Number of Run calls made by fake kernels since the last reset.
int FakeRunCount();
void ResetFakeRunCount();

}  // namespace testing
}  // namespace loom
