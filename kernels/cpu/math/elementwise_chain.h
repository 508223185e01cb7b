// ElementwiseChain ("loom" domain): a chain of float32 elementwise steps run
// as one node, y = step[S-1](... step[1](step[0](X))), what
// builder/passes/fuse_elementwise_chain.h makes of e.g. Relu(Add(x, b)).
//
// Inputs: X (input 0), then the tensor operands of binary steps; all float32.
// Output: X's shape. The program is four attributes, one entry per step s:
//   steps     strings[S]   the op of step s: a unary op of unary.cc or
//                          activations.cc with float32 output (Relu, Sigmoid,
//                          Tanh, Exp, Log, Abs, Neg, Sqrt, Reciprocal, Erf,
//                          Floor, Ceil, LeakyRelu, HardSigmoid, HardSwish,
//                          Elu, Gelu, Swish, Softplus, ...), Clip, or a
//                          binary op: Add, Sub, Mul, Div, Pow, Max, Min
//   operands  ints[S]      binary steps: the input (>= 1) holding the other
//                          operand, or 0 for the scalar params[2s]; else 0
//   swapped   ints[S]      binary steps: 1 when the operand is the left side
//                          (operand - x, operand / x, pow(operand, x)); else 0
//   params    floats[2S]   params[2s], params[2s+1]: the unary op's alpha and
//                          beta as its own kernel reads them (LeakyRelu, Elu,
//                          Swish alpha; HardSigmoid alpha, beta; Gelu alpha 1
//                          for the tanh form), Clip's min and max (+-inf for
//                          no bound), a binary step's scalar operand
// (operands, swapped and params may be omitted: all 0).
// A tensor operand broadcasts against X as a scalar (one element), per
// channel (one non-1 dim, equal to X's at that axis, e.g. [C,1,1] against
// [N,C,H,W]) or in full (X's elements); its shape says which. Every operand
// input is used by a step. Prepare checks all of this (Invalid otherwise).
//
// Run splits X into blocks of kChainBlock elements (across the thread pool
// when large) and runs every step over a block before the next one, in the
// output's memory, so a block stays in L1 between steps. A step runs the same
// float operations as the op's own kernel (the unary ops' loops themselves,
// the vector_math.h functions included), so the result equals running the
// ops one after another. The output may overwrite X, but not an operand.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/common/kernel.h"

namespace loom {
namespace math {

constexpr int64_t kChainBlock = 1024;

// How a binary step's tensor operand of shape `operand` broadcasts against X.
// kChannel: *channels values along one axis of X, each repeated over *inner
// consecutive elements of X.
enum class ChainOperand { kNone, kScalar, kChannel, kFull };
ChainOperand ClassifyChainOperand(const Shape& operand, const Shape& x, int64_t* channels, int64_t* inner);

// Whether `op` is a binary step.
bool IsChainBinaryOp(const std::string& op);

// For the builder: params[0], params[1] of a unary step doing what the
// float32 single-op node `node` does (its attributes read by its own
// kernel's parser); Unsupported when no step does that.
Status ChainUnaryParams(const KernelSetup& node, float params[2]);

}  // namespace math
}  // namespace loom
