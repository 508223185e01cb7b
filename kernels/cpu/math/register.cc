#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/math/math_kernels.h"

namespace loom {

void RegisterCpuMathKernels(KernelRegistry* r) {
  using namespace math;  // NOLINT: factories of this group
  // Unary math (unary.cc)
  r->AddCpu("Abs", NewUnaryKernel);
  r->AddCpu("Neg", NewUnaryKernel);
  r->AddCpu("Reciprocal", NewUnaryKernel);
  r->AddCpu("Sqrt", NewUnaryKernel);
  r->AddCpu("Exp", NewUnaryKernel);
  r->AddCpu("Log", NewUnaryKernel);
  r->AddCpu("Floor", NewUnaryKernel);
  r->AddCpu("Ceil", NewUnaryKernel);
  r->AddCpu("Round", NewUnaryKernel);
  r->AddCpu("Sign", NewUnaryKernel);
  r->AddCpu("Erf", NewUnaryKernel);
  r->AddCpu("Sin", NewUnaryKernel);
  r->AddCpu("Cos", NewUnaryKernel);
  r->AddCpu("Tan", NewUnaryKernel);
  r->AddCpu("Asin", NewUnaryKernel);
  r->AddCpu("Acos", NewUnaryKernel);
  r->AddCpu("Atan", NewUnaryKernel);
  r->AddCpu("Sinh", NewUnaryKernel);
  r->AddCpu("Cosh", NewUnaryKernel);
  r->AddCpu("Asinh", NewUnaryKernel);
  r->AddCpu("Acosh", NewUnaryKernel);
  r->AddCpu("Atanh", NewUnaryKernel);
  r->AddCpu("Softsign", NewUnaryKernel);
  r->AddCpu("Not", NewUnaryKernel);
  r->AddCpu("IsNaN", NewUnaryKernel);
  r->AddCpu("IsInf", NewUnaryKernel);
  // Activations (activations.cc, clip.cc; PRelu in arithmetic.cc)
  r->AddCpu("Relu", NewActivationKernel);
  r->AddCpu("LeakyRelu", NewActivationKernel);
  r->AddCpu("Sigmoid", NewActivationKernel);
  r->AddCpu("Tanh", NewActivationKernel);
  r->AddCpu("HardSigmoid", NewActivationKernel);
  r->AddCpu("HardSwish", NewActivationKernel);
  r->AddCpu("Elu", NewActivationKernel);
  r->AddCpu("Selu", NewActivationKernel);
  r->AddCpu("Celu", NewActivationKernel);
  r->AddCpu("Softplus", NewActivationKernel);
  r->AddCpu("ThresholdedRelu", NewActivationKernel);
  r->AddCpu("Shrink", NewActivationKernel);
  r->AddCpu("Clip", NewClipKernel);
  r->AddCpu("PRelu", NewArithmeticKernel);
  // Binary arithmetic with broadcasting (arithmetic.cc)
  r->AddCpu("Add", NewArithmeticKernel);
  r->AddCpu("Sub", NewArithmeticKernel);
  r->AddCpu("Mul", NewArithmeticKernel);
  r->AddCpu("Div", NewArithmeticKernel);
  r->AddCpu("Pow", NewArithmeticKernel);
  r->AddCpu("Mod", NewArithmeticKernel);
  r->AddCpu("BitShift", NewArithmeticKernel);
  // Comparisons and logic (compare_logic.cc)
  r->AddCpu("Equal", NewCompareLogicKernel);
  r->AddCpu("Greater", NewCompareLogicKernel);
  r->AddCpu("Less", NewCompareLogicKernel);
  r->AddCpu("GreaterOrEqual", NewCompareLogicKernel);
  r->AddCpu("LessOrEqual", NewCompareLogicKernel);
  r->AddCpu("And", NewCompareLogicKernel);
  r->AddCpu("Or", NewCompareLogicKernel);
  r->AddCpu("Xor", NewCompareLogicKernel);
  // Variadic (variadic.cc), Where (where.cc), Cast (cast.cc)
  r->AddCpu("Max", NewVariadicKernel);
  r->AddCpu("Min", NewVariadicKernel);
  r->AddCpu("Sum", NewVariadicKernel);
  r->AddCpu("Mean", NewVariadicKernel);
  r->AddCpu("Where", NewWhereKernel);
  r->AddCpu("Cast", NewCastKernel);
  r->AddCpu("CastLike", NewCastKernel);
  // Reductions (reduce.cc, argminmax.cc)
  r->AddCpu("ReduceSum", NewReduceKernel);
  r->AddCpu("ReduceMean", NewReduceKernel);
  r->AddCpu("ReduceMax", NewReduceKernel);
  r->AddCpu("ReduceMin", NewReduceKernel);
  r->AddCpu("ReduceProd", NewReduceKernel);
  r->AddCpu("ReduceL1", NewReduceKernel);
  r->AddCpu("ReduceL2", NewReduceKernel);
  r->AddCpu("ReduceLogSum", NewReduceKernel);
  r->AddCpu("ReduceLogSumExp", NewReduceKernel);
  r->AddCpu("ReduceSumSquare", NewReduceKernel);
  r->AddCpu("ArgMax", NewArgMinMaxKernel);
  r->AddCpu("ArgMin", NewArgMinMaxKernel);
  // Softmax family (softmax.cc), CumSum (cumsum.cc), Einsum (einsum.cc)
  r->AddCpu("Softmax", NewSoftmaxKernel);
  r->AddCpu("LogSoftmax", NewSoftmaxKernel);
  r->AddCpu("Hardmax", NewSoftmaxKernel);
  r->AddCpu("CumSum", NewCumSumKernel);
  r->AddCpu("Einsum", NewEinsumKernel);
}

}  // namespace loom
