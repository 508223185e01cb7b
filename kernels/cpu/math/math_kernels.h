// Factories of the math kernel group, for register.cc. Most factories serve a
// family of ops: the kernel picks the op from KernelSetup::op in Prepare.
#pragma once

#include <memory>

#include "kernels/common/kernel.h"

namespace loom {
namespace math {

std::unique_ptr<Kernel> NewUnaryKernel();         // unary.cc: Abs, Sqrt, Exp, Sin, IsNaN, Not, ...
std::unique_ptr<Kernel> NewActivationKernel();    // activations.cc: Relu, Sigmoid, Elu, Shrink, ...
std::unique_ptr<Kernel> NewClipKernel();          // clip.cc
std::unique_ptr<Kernel> NewArithmeticKernel();    // arithmetic.cc: Add, Sub, Mul, Div, Pow, Mod, BitShift, PRelu
std::unique_ptr<Kernel> NewCompareLogicKernel();  // compare_logic.cc: Equal, Less, ..., And, Or, Xor
std::unique_ptr<Kernel> NewVariadicKernel();      // variadic.cc: Max, Min, Sum, Mean
std::unique_ptr<Kernel> NewWhereKernel();         // where.cc
std::unique_ptr<Kernel> NewCastKernel();          // cast.cc: Cast, CastLike
std::unique_ptr<Kernel> NewReduceKernel();        // reduce.cc: ReduceSum, ReduceMean, ...
std::unique_ptr<Kernel> NewArgMinMaxKernel();     // argminmax.cc: ArgMax, ArgMin
std::unique_ptr<Kernel> NewSoftmaxKernel();       // softmax.cc: Softmax, LogSoftmax, Hardmax
std::unique_ptr<Kernel> NewCumSumKernel();        // cumsum.cc
std::unique_ptr<Kernel> NewEinsumKernel();        // einsum.cc

}  // namespace math
}  // namespace loom
