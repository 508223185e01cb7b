// Helpers shared by the int8 elementwise, pooling and data-movement kernels:
//   ReadActQuant          the refusal rule each of their Prepares applies
//                         first: an activation must be int8 with per-tensor
//                         parameters, else Unsupported, so float nodes fall
//                         through to the float groups;
//   FusedActivationRange  the output range a fused Relu/Clip leaves;
//   Table                 a function of one int8 value as 256 precomputed
//                         outputs (Rescale, or a nonlinearity): Run is a
//                         lookup, bit-exact with the function it was built
//                         from.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/common/requantize.h"

namespace loom {
namespace int8 {

// Output elements per parallel task for cheap elementwise work.
constexpr int64_t kElementwiseGrain = int64_t{1} << 15;

// Per-tensor quantization of an int8 activation: real = scale · (q − zero_point).
struct ActQuant {
  float scale = 1.f;
  int32_t zero_point = 0;

  bool operator==(const ActQuant& o) const { return scale == o.scale && zero_point == o.zero_point; }
  bool operator!=(const ActQuant& o) const { return !(*this == o); }
};

// Reads the quantization of `t` (named `what` in messages: "input A",
// "output Y"). Unsupported unless t is present, int8, with one finite
// scale > 0 and one zero point in [−128, 127] (an absent zero point reads 0).
Status ReadActQuant(const KernelSetup& s, const TensorInfo& t, const std::string& what, ActQuant* out);

// The output range of a tensor with quantization `y` under the node's fused
// activation (loom.activation, kernels/cpu/nn/activation_epilogue.h): Relu
// [0, +inf), Clip [loom.activation_min, loom.activation_max], none the full
// int8 range. Any other fused activation is Unsupported.
Status FusedActivationRange(const KernelSetup& s, const ActQuant& y, requant::Range* out);

// A requantize.h failure (a scale ratio outside what its fixed point holds)
// as Unsupported: the node is valid ONNX, Loom's int8 arithmetic cannot run it.
inline Status RequantStatus(const KernelSetup& s, const Status& st) {
  return st.ok() ? st : s.Unsupported(st.message());
}

// out[q + 128] for every int8 q.
struct Table {
  int8_t v[256];
};

// table[q] = requant::Rescale(q, MakeRescaleParams(in → out, range)).
Status MakeRescaleTable(const ActQuant& in, const ActQuant& out, requant::Range range, Table* table);

// y[i] = table[x[i]]; x may equal y.
inline void LookupTable(const Table& table, const int8_t* x, int8_t* y, int64_t n) {
  const int8_t* t = table.v + 128;
  for (int64_t i = 0; i < n; ++i) y[i] = t[x[i]];
}

}  // namespace int8
}  // namespace loom
