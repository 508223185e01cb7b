// The fused activation that Conv, ConvTranspose, Gemm and MatMul apply to
// their output while it is still in cache. The builder's fuse_activation pass
// describes it with Loom attributes on the anchor node:
//   loom.activation        "Relu" | "Clip" | "LeakyRelu" | "Sigmoid" |
//                          "HardSigmoid" | "HardSwish" | "Tanh" | "Swish"
//   loom.activation_min    Clip lower bound (absent = -inf)
//   loom.activation_max    Clip upper bound (absent = +inf)
//   loom.activation_alpha  LeakyRelu alpha (0.01), HardSigmoid alpha (0.2),
//                          Swish alpha (1)
//   loom.activation_beta   HardSigmoid beta (0.5)
// Semantics are exactly those of the ONNX ops of the same names (Swish:
// opset 24, x * sigmoid(alpha * x); SiLU when alpha is 1). float Sigmoid,
// Tanh and Swish run the array functions of math/vector_math.h.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "common/status.h"
#include "kernels/common/kernel.h"
#include "kernels/cpu/math/vector_math.h"

namespace loom {
namespace nn {

enum class ActivationKind { kNone, kRelu, kClip, kLeakyRelu, kSigmoid, kHardSigmoid, kHardSwish, kTanh, kSwish };

struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
  float alpha = 0.f;
  float beta = 0.f;

  bool none() const { return kind == ActivationKind::kNone; }
};

// Reads the loom.activation* attributes of `setup` (kNone when absent).
// Unknown activation names are Unsupported; attributes of the wrong kind or a
// Clip with min > max are Invalid.
inline Status ParseActivation(const KernelSetup& setup, Activation* act) {
  *act = Activation();
  const Attribute* name = setup.attrs.Find("loom.activation");
  if (!name) return Status::Ok();
  if (name->kind != Attribute::Kind::kString)
    return setup.Invalid("attribute loom.activation must be a string");
  for (const char* key : {"loom.activation_min", "loom.activation_max", "loom.activation_alpha",
                          "loom.activation_beta"}) {
    const Attribute* a = setup.attrs.Find(key);
    if (a && a->kind != Attribute::Kind::kFloat)
      return setup.Invalid(std::string("attribute ") + key + " must be a float");
  }
  const Attributes& at = setup.attrs;
  const std::string& s = name->s;
  if (s == "Relu") {
    act->kind = ActivationKind::kRelu;
  } else if (s == "Clip") {
    act->kind = ActivationKind::kClip;
    act->min = at.GetFloat("loom.activation_min", act->min);
    act->max = at.GetFloat("loom.activation_max", act->max);
    if (std::isnan(act->min) || std::isnan(act->max) || act->min > act->max)
      return setup.Invalid("fused Clip has min " + std::to_string(act->min) + " > max " +
                           std::to_string(act->max));
  } else if (s == "LeakyRelu") {
    act->kind = ActivationKind::kLeakyRelu;
    act->alpha = at.GetFloat("loom.activation_alpha", 0.01f);
  } else if (s == "Sigmoid") {
    act->kind = ActivationKind::kSigmoid;
  } else if (s == "HardSigmoid") {
    act->kind = ActivationKind::kHardSigmoid;
    act->alpha = at.GetFloat("loom.activation_alpha", 0.2f);
    act->beta = at.GetFloat("loom.activation_beta", 0.5f);
  } else if (s == "HardSwish") {
    act->kind = ActivationKind::kHardSwish;
    act->alpha = at.GetFloat("loom.activation_alpha", 1.f / 6.f);
    act->beta = at.GetFloat("loom.activation_beta", 0.5f);
  } else if (s == "Tanh") {
    act->kind = ActivationKind::kTanh;
  } else if (s == "Swish") {
    act->kind = ActivationKind::kSwish;
    act->alpha = at.GetFloat("loom.activation_alpha", 1.f);
  } else {
    return setup.Unsupported("fused activation '" + s + "'");
  }
  return Status::Ok();
}

// Applies `act` in place to data[0, n). Plain loops over contiguous memory so
// the piecewise-linear cases vectorize.
template <typename T>
inline void ApplyActivation(const Activation& act, T* data, int64_t n) {
  switch (act.kind) {
    case ActivationKind::kNone:
      return;
    case ActivationKind::kRelu:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] > T(0) ? data[i] : T(0);
      return;
    case ActivationKind::kClip: {
      const T lo = static_cast<T>(act.min), hi = static_cast<T>(act.max);
      for (int64_t i = 0; i < n; ++i) {
        const T v = data[i] < lo ? lo : data[i];
        data[i] = v > hi ? hi : v;
      }
      return;
    }
    case ActivationKind::kLeakyRelu: {
      const T a = static_cast<T>(act.alpha);
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] < T(0) ? data[i] * a : data[i];
      return;
    }
    case ActivationKind::kSigmoid:
      if constexpr (std::is_same_v<T, float>) {
        vmath::Sigmoid(data, data, n);
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        // Split by sign so exp never overflows.
        const T x = data[i];
        if (x >= T(0)) {
          data[i] = T(1) / (T(1) + std::exp(-x));
        } else {
          const T e = std::exp(x);
          data[i] = e / (T(1) + e);
        }
      }
      return;
    case ActivationKind::kHardSigmoid:
    case ActivationKind::kHardSwish: {
      const T a = static_cast<T>(act.alpha), b = static_cast<T>(act.beta);
      const bool swish = act.kind == ActivationKind::kHardSwish;
      for (int64_t i = 0; i < n; ++i) {
        T v = a * data[i] + b;
        v = v < T(0) ? T(0) : v;
        v = v > T(1) ? T(1) : v;
        data[i] = swish ? data[i] * v : v;
      }
      return;
    }
    case ActivationKind::kTanh:
      if constexpr (std::is_same_v<T, float>) {
        vmath::Tanh(data, data, n);
        return;
      }
      for (int64_t i = 0; i < n; ++i) data[i] = std::tanh(data[i]);
      return;
    case ActivationKind::kSwish:
      if constexpr (std::is_same_v<T, float>) {
        vmath::Swish(data, data, n, act.alpha);
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const T x = data[i], v = static_cast<T>(act.alpha) * x;
        data[i] = x * (v >= T(0) ? T(1) / (T(1) + std::exp(-v)) : std::exp(v) / (T(1) + std::exp(v)));
      }
      return;
  }
}

}  // namespace nn
}  // namespace loom
