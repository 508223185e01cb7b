// Elementwise arithmetic with broadcasting: Add, Sub, Mul, Div, Pow, Mod,
// BitShift, PRelu.
//
// Integer semantics never hit undefined behaviour: overflow wraps, division
// truncates toward zero (like C), x / 0 and x % 0 give 0, INT_MIN / -1 wraps.
// Mod with fmod=0 takes the sign of the divisor (Python), fmod=1 the sign of
// the dividend (C fmod). Pow accepts a base and an exponent of different
// dtypes; integer powers are exact (wrapping), negative integer exponents
// truncate 1/x^n toward zero.
#include <cmath>
#include <memory>
#include <type_traits>

#include "kernels/cpu/math/binary_kernel.h"

namespace loom {
namespace math {
namespace {

struct AddOp {
  explicit AddOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};

struct SubOp {
  explicit SubOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return WrapSub(a, b);
  }
};

struct MulOp {
  explicit MulOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return WrapMul(a, b);
  }
};

struct DivOp {
  explicit DivOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return a / b;
    } else {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return WrapNeg(a);
      }
      return static_cast<T>(a / b);
    }
  }
};

// Integer remainder; sign of the divisor when `python`, of the dividend otherwise.
template <typename T>
T IntMod(T a, T b, bool python) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
    T r = static_cast<T>(a % b);
    if (python && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    (void)python;
    return static_cast<T>(a % b);
  }
}

struct ModOp {
  explicit ModOp(const BinaryParams& p) : fmod(p.fmod) {}
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);  // float Mod requires fmod=1 (checked in parse)
    } else {
      return IntMod(a, b, !fmod);
    }
  }
  bool fmod;
};

// Exact integer power by squaring (wrapping on overflow).
template <typename T, typename E>
T IntPow(T base, E exp) {
  if constexpr (std::is_signed_v<E>) {
    if (exp < 0) {
      if (base == T(1)) return T(1);
      if constexpr (std::is_signed_v<T>) {
        if (base == T(-1)) return (exp % 2 == 0) ? T(1) : T(-1);
      }
      return T(0);
    }
  }
  T result = T(1);
  using U = std::make_unsigned_t<E>;
  U e = static_cast<U>(exp);
  while (e) {
    if (e & 1u) result = WrapMul(result, base);
    base = WrapMul(base, base);
    e = static_cast<U>(e >> 1);
  }
  return result;
}

struct PowOp {
  explicit PowOp(const BinaryParams&) {}
  template <typename A, typename B>
  A operator()(A a, B b) const {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
      return IntPow(a, b);
    } else {
      using C = std::conditional_t<std::is_same_v<A, float> && !std::is_same_v<B, double>, float, double>;
      return ConvertTo<A>(std::pow(static_cast<C>(a), static_cast<C>(b)));
    }
  }
};

struct ShiftOp {
  explicit ShiftOp(const BinaryParams& p) : left(p.shift_left) {}
  template <typename T>
  T operator()(T a, T b) const {
    if (b >= T(sizeof(T) * 8)) return T(0);
    return left ? static_cast<T>(a << b) : static_cast<T>(a >> b);
  }
  bool left;
};

struct PReluOp {
  explicit PReluOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T x, T slope) const {
    return x < T(0) ? WrapMul(x, slope) : x;
  }
};

constexpr TypeSet kPowBaseTypes = kFloatTypes | Bit(DType::kInt32) | Bit(DType::kInt64);

BinaryLoop SelectPow(DType a, DType b, const BinaryParams&, DType* out) {
  BinaryLoop loop = nullptr;
  VisitType<kPowBaseTypes>(a, [&](auto base) {
    VisitType<kNumericTypes>(b, [&](auto exponent) {
      using A = decltype(base);
      using B = decltype(exponent);
      loop = &BinaryLoopImpl<PowOp, A, B, A>;
    });
  });
  *out = a;
  return loop;
}

Status ParseMod(const KernelSetup& setup, BinaryParams* p) {
  int64_t fmod = 0;
  RETURN_IF_ERROR(ReadIntAttr(setup, "fmod", 0, &fmod));
  if (fmod != 0 && fmod != 1) return setup.Invalid("attribute fmod is " + std::to_string(fmod) + ", expected 0 or 1");
  p->fmod = fmod == 1;
  if (!p->fmod && !setup.inputs.empty() && IsFloatingPoint(setup.inputs[0].dtype)) {
    return setup.Invalid("floating-point Mod requires fmod=1");
  }
  return Status::Ok();
}

Status ParseBitShift(const KernelSetup& setup, BinaryParams* p) {
  const Attribute* a = setup.attrs.Find("direction");
  if (!a || a->kind != Attribute::Kind::kString) return setup.Invalid("missing string attribute direction");
  if (a->s == "LEFT") {
    p->shift_left = true;
  } else if (a->s == "RIGHT") {
    p->shift_left = false;
  } else {
    return setup.Invalid("attribute direction is '" + a->s + "', expected LEFT or RIGHT");
  }
  return Status::Ok();
}

const BinaryOpDef kArithmeticOps[] = {
    {"Add", &SelectSameType<AddOp, kNumericTypes>, nullptr},
    {"Sub", &SelectSameType<SubOp, kNumericTypes>, nullptr},
    {"Mul", &SelectSameType<MulOp, kNumericTypes>, nullptr},
    {"Div", &SelectSameType<DivOp, kNumericTypes>, nullptr},
    {"Mod", &SelectSameType<ModOp, kNumericTypes>, &ParseMod},
    {"Pow", &SelectPow, nullptr, /*same_dtype=*/false},
    {"BitShift", &SelectSameType<ShiftOp, kUnsignedTypes>, &ParseBitShift},
    {"PRelu", &SelectSameType<PReluOp, kNumericTypes>, nullptr, true, /*unidirectional=*/true},
};

}  // namespace

std::unique_ptr<Kernel> NewArithmeticKernel() {
  return std::make_unique<BinaryKernel>(kArithmeticOps, sizeof(kArithmeticOps) / sizeof(kArithmeticOps[0]));
}

}  // namespace math
}  // namespace loom
