// Elementwise math functions: Abs, Neg, Reciprocal, Sqrt, Exp, Log, Floor,
// Ceil, Round, Sign, Erf, trigonometric and hyperbolic functions, Not, IsNaN,
// IsInf, Softsign. float32 is computed in float, float64 and integers in
// double.
#include <cmath>
#include <memory>

#include "kernels/cpu/math/unary_kernel.h"
#include "kernels/cpu/math/vector_math.h"

namespace loom {
namespace math {
namespace {

// Declares a functor `Name` applying `expr` (in terms of x) to float types.
#define LOOM_FLOAT_UNARY(Name, expr)     \
  struct Name {                          \
    explicit Name(const UnaryParams&) {} \
    template <typename T>                \
    T operator()(T x) const {            \
      return expr;                       \
    }                                    \
  };

LOOM_FLOAT_UNARY(ReciprocalOp, T(1) / x)
LOOM_FLOAT_UNARY(SqrtOp, std::sqrt(x))
LOOM_FLOAT_UNARY(LogOp, std::log(x))
LOOM_FLOAT_UNARY(FloorOp, std::floor(x))
LOOM_FLOAT_UNARY(CeilOp, std::ceil(x))
LOOM_FLOAT_UNARY(RoundOp, std::nearbyint(x))  // default rounding mode: half to even
LOOM_FLOAT_UNARY(SinOp, std::sin(x))
LOOM_FLOAT_UNARY(CosOp, std::cos(x))
LOOM_FLOAT_UNARY(TanOp, std::tan(x))
LOOM_FLOAT_UNARY(AsinOp, std::asin(x))
LOOM_FLOAT_UNARY(AcosOp, std::acos(x))
LOOM_FLOAT_UNARY(AtanOp, std::atan(x))
LOOM_FLOAT_UNARY(SinhOp, std::sinh(x))
LOOM_FLOAT_UNARY(CoshOp, std::cosh(x))
LOOM_FLOAT_UNARY(AsinhOp, std::asinh(x))
LOOM_FLOAT_UNARY(AcoshOp, std::acosh(x))
LOOM_FLOAT_UNARY(AtanhOp, std::atanh(x))
LOOM_FLOAT_UNARY(SoftsignOp, x / (T(1) + std::fabs(x)))
#undef LOOM_FLOAT_UNARY

struct AbsOp {
  explicit AbsOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    return AbsValue(x);
  }
};

struct NegOp {
  explicit NegOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return -x;
    } else {
      return WrapNeg(x);
    }
  }
};

struct SignOp {
  explicit SignOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    if (x > T(0)) return T(1);
    if (x < T(0)) return static_cast<T>(-1);
    return x;  // zero, or NaN
  }
};

struct ExpOp {
  explicit ExpOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    return std::exp(x);
  }
  static void VectorF32(const float* x, float* y, int64_t n, const UnaryParams&) { vmath::Exp(x, y, n); }
};

struct ErfOp {
  explicit ErfOp(const UnaryParams&) {}
  static void VectorF32(const float* x, float* y, int64_t n, const UnaryParams&) { vmath::Erf(x, y, n); }
  template <typename T>
  T operator()(T x) const {
    return ConvertTo<T>(std::erf(static_cast<ComputeType<T>>(x)));
  }
};

struct IsNaNOp {
  explicit IsNaNOp(const UnaryParams&) {}
  template <typename T>
  bool operator()(T x) const {
    return std::isnan(x);
  }
};

struct IsInfOp {
  explicit IsInfOp(const UnaryParams& p) : pos(p.detect_positive), neg(p.detect_negative) {}
  template <typename T>
  bool operator()(T x) const {
    return std::isinf(x) && (x > 0 ? pos : neg);
  }
  bool pos, neg;
};

struct NotOp {
  explicit NotOp(const UnaryParams&) {}
  bool operator()(uint8_t x) const { return x == 0; }
};

UnaryLoop SelectNotLoop(DType d) { return d == DType::kBool ? &UnaryLoopImpl<NotOp, uint8_t> : nullptr; }

Status ParseIsInf(const KernelSetup& setup, UnaryParams* p) {
  int64_t pos = 1, neg = 1;
  RETURN_IF_ERROR(ReadIntAttr(setup, "detect_positive", 1, &pos));
  RETURN_IF_ERROR(ReadIntAttr(setup, "detect_negative", 1, &neg));
  p->detect_positive = pos != 0;
  p->detect_negative = neg != 0;
  return Status::Ok();
}

const UnaryOpDef kUnaryOps[] = {
    {"Abs", &SelectUnaryLoop<AbsOp, kNumericTypes>, nullptr},
    {"Neg", &SelectUnaryLoop<NegOp, kSignedNumericTypes>, nullptr},
    {"Reciprocal", &SelectUnaryLoop<ReciprocalOp, kFloatTypes>, nullptr},
    {"Sqrt", &SelectUnaryLoop<SqrtOp, kFloatTypes>, nullptr},
    {"Exp", &SelectUnaryLoop<ExpOp, kFloatTypes>, nullptr},
    {"Log", &SelectUnaryLoop<LogOp, kFloatTypes>, nullptr},
    {"Floor", &SelectUnaryLoop<FloorOp, kFloatTypes>, nullptr},
    {"Ceil", &SelectUnaryLoop<CeilOp, kFloatTypes>, nullptr},
    {"Round", &SelectUnaryLoop<RoundOp, kFloatTypes>, nullptr},
    {"Sign", &SelectUnaryLoop<SignOp, kNumericTypes>, nullptr},
    {"Erf", &SelectUnaryLoop<ErfOp, kNumericTypes>, nullptr},
    {"Sin", &SelectUnaryLoop<SinOp, kFloatTypes>, nullptr},
    {"Cos", &SelectUnaryLoop<CosOp, kFloatTypes>, nullptr},
    {"Tan", &SelectUnaryLoop<TanOp, kFloatTypes>, nullptr},
    {"Asin", &SelectUnaryLoop<AsinOp, kFloatTypes>, nullptr},
    {"Acos", &SelectUnaryLoop<AcosOp, kFloatTypes>, nullptr},
    {"Atan", &SelectUnaryLoop<AtanOp, kFloatTypes>, nullptr},
    {"Sinh", &SelectUnaryLoop<SinhOp, kFloatTypes>, nullptr},
    {"Cosh", &SelectUnaryLoop<CoshOp, kFloatTypes>, nullptr},
    {"Asinh", &SelectUnaryLoop<AsinhOp, kFloatTypes>, nullptr},
    {"Acosh", &SelectUnaryLoop<AcoshOp, kFloatTypes>, nullptr},
    {"Atanh", &SelectUnaryLoop<AtanhOp, kFloatTypes>, nullptr},
    {"Softsign", &SelectUnaryLoop<SoftsignOp, kFloatTypes>, nullptr},
    {"Not", &SelectNotLoop, nullptr, true},
    {"IsNaN", &SelectUnaryLoop<IsNaNOp, kFloatTypes>, nullptr, true},
    {"IsInf", &SelectUnaryLoop<IsInfOp, kFloatTypes>, &ParseIsInf, true},
};

}  // namespace

const UnaryOpDef* FindMathUnaryOp(const std::string& op) {
  return FindUnaryOp(kUnaryOps, sizeof(kUnaryOps) / sizeof(kUnaryOps[0]), op);
}

std::unique_ptr<Kernel> NewUnaryKernel() {
  return std::make_unique<UnaryKernel>(kUnaryOps, sizeof(kUnaryOps) / sizeof(kUnaryOps[0]));
}

}  // namespace math
}  // namespace loom
