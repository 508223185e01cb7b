// Elementwise activations: Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid,
// HardSwish, Elu, Selu, Celu, Softplus, ThresholdedRelu, Shrink, Gelu
// (opset 20; also what builder/passes/fuse_gelu.h makes of GELU written out
// op by op), Swish (opset 24: x * sigmoid(alpha * x); also Loom's "loom"
// domain Swish, what builder/passes/fuse_swish.h makes of x * Sigmoid(x)).
// float32 Sigmoid, Tanh, Gelu and Swish run the array functions of
// vector_math.h. (PRelu broadcasts its slope and lives with the binary ops; Clip
// has its own file.)
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/cpu/math/unary_kernel.h"
#include "kernels/cpu/math/vector_math.h"

namespace loom {
namespace math {
namespace {

struct ReluOp {
  explicit ReluOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? T(0) : x;  // NaN passes through
  }
};

struct LeakyReluOp {
  explicit LeakyReluOp(const UnaryParams& p) : alpha(p.alpha) {}
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? static_cast<T>(alpha) * x : x;
  }
  float alpha;
};

struct SigmoidOp {
  explicit SigmoidOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    // Stable for large |x|: exp only of a non-positive number.
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  }
  static void VectorF32(const float* x, float* y, int64_t n, const UnaryParams&) { vmath::Sigmoid(x, y, n); }
};

struct SwishOp {
  explicit SwishOp(const UnaryParams& p) : alpha(p.alpha) {}
  template <typename T>
  T operator()(T x) const {
    return x * SigmoidOp(UnaryParams())(static_cast<T>(alpha) * x);
  }
  static void VectorF32(const float* x, float* y, int64_t n, const UnaryParams& p) { vmath::Swish(x, y, n, p.alpha); }
  float alpha;
};

struct TanhOp {
  explicit TanhOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    return std::tanh(x);
  }
  static void VectorF32(const float* x, float* y, int64_t n, const UnaryParams&) { vmath::Tanh(x, y, n); }
};

struct HardSigmoidOp {
  explicit HardSigmoidOp(const UnaryParams& p) : alpha(p.alpha), beta(p.beta) {}
  template <typename T>
  T operator()(T x) const {
    const T v = static_cast<T>(alpha) * x + static_cast<T>(beta);
    return std::max(T(0), std::min(T(1), v));
  }
  float alpha, beta;
};

struct HardSwishOp {
  explicit HardSwishOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    const T v = x / T(6) + T(0.5);
    return x * std::max(T(0), std::min(T(1), v));
  }
};

struct EluOp {
  explicit EluOp(const UnaryParams& p) : alpha(p.alpha) {}
  template <typename T>
  T operator()(T x) const {
    return x < T(0) ? static_cast<T>(alpha) * std::expm1(x) : x;
  }
  float alpha;
};

struct SeluOp {
  explicit SeluOp(const UnaryParams& p) : alpha(p.alpha), gamma(p.gamma) {}
  template <typename T>
  T operator()(T x) const {
    const T g = static_cast<T>(gamma);
    return x > T(0) ? g * x : g * static_cast<T>(alpha) * std::expm1(x);
  }
  float alpha, gamma;
};

struct CeluOp {
  explicit CeluOp(const UnaryParams& p) : alpha(p.alpha) {}
  template <typename T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha);
    return x > T(0) ? x : a * std::expm1(x / a);
  }
  float alpha;
};

struct SoftplusOp {
  explicit SoftplusOp(const UnaryParams&) {}
  template <typename T>
  T operator()(T x) const {
    // log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
    return std::max(x, T(0)) + std::log1p(std::exp(-std::fabs(x)));
  }
};

struct ThresholdedReluOp {
  explicit ThresholdedReluOp(const UnaryParams& p) : alpha(p.alpha) {}
  template <typename T>
  T operator()(T x) const {
    return x > static_cast<T>(alpha) ? x : T(0);
  }
  float alpha;
};

struct ShrinkOp {
  explicit ShrinkOp(const UnaryParams& p) : bias(p.beta), lambd(p.alpha) {}
  template <typename T>
  T operator()(T x) const {
    using C = ComputeType<T>;
    const C v = static_cast<C>(x);
    if (v < -static_cast<C>(lambd)) return ConvertTo<T>(v + static_cast<C>(bias));
    if (v > static_cast<C>(lambd)) return ConvertTo<T>(v - static_cast<C>(bias));
    return T(0);
  }
  float bias, lambd;
};

// Gelu: x * Phi(x), Phi the standard normal CDF, exactly (approximate
// "none": 0.5 * (1 + erf(x / sqrt(2)))) or through tanh ("tanh"), computed
// in at least float.
struct GeluOp {
  explicit GeluOp(const UnaryParams& p) : tanh_form(p.alpha != 0.f) {}
  template <typename T>
  T operator()(T x) const {
    using C = ComputeType<T>;
    const C v = static_cast<C>(x);
    if (tanh_form) {
      const C inner = C(0.7978845608028654) * (v + C(0.044715) * v * v * v);  // sqrt(2 / pi)
      return ConvertTo<T>(C(0.5) * v * (C(1) + std::tanh(inner)));
    }
    return ConvertTo<T>(C(0.5) * v * (C(1) + std::erf(v * C(0.7071067811865476))));
  }
  static void VectorF32(const float* x, float* y, int64_t n, const UnaryParams& p) {
    if (p.alpha != 0.f) {
      vmath::GeluTanh(x, y, n);
    } else {
      vmath::Gelu(x, y, n);
    }
  }
  bool tanh_form;
};

Status ParseGelu(const KernelSetup& setup, UnaryParams* p) {
  std::string approximate;
  RETURN_IF_ERROR(ReadStringAttr(setup, "approximate", "none", &approximate));
  if (approximate != "none" && approximate != "tanh")
    return setup.Invalid("attribute approximate is '" + approximate + "', expected 'none' or 'tanh'");
  p->alpha = approximate == "tanh" ? 1.f : 0.f;
  return Status::Ok();
}

Status ParseLeakyRelu(const KernelSetup& setup, UnaryParams* p) {
  return ReadFloatAttr(setup, "alpha", 0.01f, &p->alpha);
}

Status ParseHardSigmoid(const KernelSetup& setup, UnaryParams* p) {
  RETURN_IF_ERROR(ReadFloatAttr(setup, "alpha", 0.2f, &p->alpha));
  return ReadFloatAttr(setup, "beta", 0.5f, &p->beta);
}

Status ParseAlphaOne(const KernelSetup& setup, UnaryParams* p) {
  return ReadFloatAttr(setup, "alpha", 1.0f, &p->alpha);
}

Status ParseCelu(const KernelSetup& setup, UnaryParams* p) {
  RETURN_IF_ERROR(ReadFloatAttr(setup, "alpha", 1.0f, &p->alpha));
  if (p->alpha == 0.f) return setup.Invalid("attribute alpha must not be 0");
  return Status::Ok();
}

Status ParseSelu(const KernelSetup& setup, UnaryParams* p) {
  RETURN_IF_ERROR(ReadFloatAttr(setup, "alpha", 1.67326319217681884765625f, &p->alpha));
  return ReadFloatAttr(setup, "gamma", 1.05070102214813232421875f, &p->gamma);
}

Status ParseShrink(const KernelSetup& setup, UnaryParams* p) {
  RETURN_IF_ERROR(ReadFloatAttr(setup, "lambd", 0.5f, &p->alpha));
  return ReadFloatAttr(setup, "bias", 0.0f, &p->beta);
}

const UnaryOpDef kActivationOps[] = {
    {"Relu", &SelectUnaryLoop<ReluOp, kSignedNumericTypes>, nullptr},
    {"LeakyRelu", &SelectUnaryLoop<LeakyReluOp, kFloatTypes>, &ParseLeakyRelu},
    {"Sigmoid", &SelectUnaryLoop<SigmoidOp, kFloatTypes>, nullptr},
    {"Tanh", &SelectUnaryLoop<TanhOp, kFloatTypes>, nullptr},
    {"HardSigmoid", &SelectUnaryLoop<HardSigmoidOp, kFloatTypes>, &ParseHardSigmoid},
    {"HardSwish", &SelectUnaryLoop<HardSwishOp, kFloatTypes>, nullptr},
    {"Elu", &SelectUnaryLoop<EluOp, kFloatTypes>, &ParseAlphaOne},
    {"Selu", &SelectUnaryLoop<SeluOp, kFloatTypes>, &ParseSelu},
    {"Celu", &SelectUnaryLoop<CeluOp, kFloatTypes>, &ParseCelu},
    {"Softplus", &SelectUnaryLoop<SoftplusOp, kFloatTypes>, nullptr},
    {"ThresholdedRelu", &SelectUnaryLoop<ThresholdedReluOp, kFloatTypes>, &ParseAlphaOne},
    {"Shrink", &SelectUnaryLoop<ShrinkOp, kNumericTypes>, &ParseShrink},
    {"Gelu", &SelectUnaryLoop<GeluOp, kFloatTypes>, &ParseGelu},
    {"Swish", &SelectUnaryLoop<SwishOp, kFloatTypes>, &ParseAlphaOne},
};

}  // namespace

const UnaryOpDef* FindActivationOp(const std::string& op) {
  return FindUnaryOp(kActivationOps, sizeof(kActivationOps) / sizeof(kActivationOps[0]), op);
}

std::unique_ptr<Kernel> NewActivationKernel() {
  return std::make_unique<UnaryKernel>(kActivationOps, sizeof(kActivationOps) / sizeof(kActivationOps[0]));
}

}  // namespace math
}  // namespace loom
