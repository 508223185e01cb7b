// Compares a tensor computed by Loom with an expected one the way ONNX's
// backend tests do: floating-point elements within |a - e| <= atol + rtol*|e|
// (NaN matches NaN, infinities match only the same infinity), integers and
// bools exactly; dtype and shape must be equal. bfloat16 elements may differ
// by one bfloat16 ulp (rtol 2^-7), since rtol 1e-3 is finer than the type.
// Used by the conformance runner and the kernel tests' ONNX cases.
#pragma once

#include <cstddef>

#include "common/dtype.h"
#include "common/status.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {

struct Tolerance {
  double rtol = 1e-3;  // ONNX backend test defaults
  double atol = 1e-7;
};

// A tensor Loom produced; `data` holds NumElements(shape) elements of dtype.
struct TensorRef {
  DType dtype = DType::kUndefined;
  Shape shape;
  const void* data = nullptr;
};

// OK if `actual` matches `expected`; otherwise an InvalidArgument status whose
// message names the mismatch (dtype, shape, or the number of differing
// elements with the first one's index and both values).
Status CompareTensors(const HostTensor& expected, const TensorRef& actual, const Tolerance& tolerance = {});

// The closeness rule for one pair of floating-point values.
bool FloatsClose(double actual, double expected, const Tolerance& tolerance);

}  // namespace loom
