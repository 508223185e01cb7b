// Kernels for engine tests, independent of the real CPU kernel groups. They
// exercise what the engine provides to kernels: constant inputs in place,
// attributes, scratch memory, the thread pool, and Prepare/Run errors.
//
//   test.Add    Add     float32 a + b, same shapes (b may be constant)
//   test.Relu   Relu    float32 max(x, 0)
//   test.Scale  Scale   float32 x * alpha (float attribute "alpha", required),
//                       staged through scratch memory, parallel over the pool
//   test.Check  Check   float32 copy; Run fails with OutOfRange on a negative
//                       first element (a data-dependent run-time error); an
//                       optional second input must be omitted
//   test.Packed Packed  float32 x + b for a constant b, or + the derived
//                       constant "test.packed" in b's place (b then unread);
//                       Prepare refuses a negative b[0]
//   test.Refuse Refuse  Prepare always returns Unsupported
#pragma once

#include "kernels/common/registry.h"

namespace loom {
namespace testing {

// A registry holding only the kernels above.
const KernelRegistry& TestKernelRegistry();

}  // namespace testing
}  // namespace loom
