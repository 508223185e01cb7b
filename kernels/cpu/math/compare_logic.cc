// Comparisons and logic with broadcasting, all producing bool tensors:
// Equal, Greater, Less, GreaterOrEqual, LessOrEqual, And, Or, Xor.
// Bool inputs are one byte each; any non-zero byte counts as true.
#include <memory>

#include "kernels/cpu/math/binary_kernel.h"

namespace loom {
namespace math {
namespace {

#define LOOM_BINARY_PREDICATE(Name, expr) \
  struct Name {                           \
    explicit Name(const BinaryParams&) {} \
    template <typename T>                 \
    bool operator()(T a, T b) const {     \
      return expr;                        \
    }                                     \
  };

LOOM_BINARY_PREDICATE(EqualOp, a == b)
LOOM_BINARY_PREDICATE(GreaterOp, a > b)
LOOM_BINARY_PREDICATE(LessOp, a < b)
LOOM_BINARY_PREDICATE(GreaterOrEqualOp, a >= b)
LOOM_BINARY_PREDICATE(LessOrEqualOp, a <= b)
LOOM_BINARY_PREDICATE(BoolEqualOp, (a != 0) == (b != 0))
LOOM_BINARY_PREDICATE(AndOp, (a != 0) && (b != 0))
LOOM_BINARY_PREDICATE(OrOp, (a != 0) || (b != 0))
LOOM_BINARY_PREDICATE(XorOp, (a != 0) != (b != 0))
#undef LOOM_BINARY_PREDICATE

// Bool inputs (stored as bytes) for Op; null for other dtypes.
template <typename Op>
BinaryLoop SelectBool(DType a, DType b, const BinaryParams&, DType* out) {
  if (a != DType::kBool || b != DType::kBool) return nullptr;
  *out = DType::kBool;
  return &BinaryLoopImpl<Op, uint8_t, uint8_t, uint8_t>;
}

BinaryLoop SelectEqual(DType a, DType b, const BinaryParams& p, DType* out) {
  if (a == DType::kBool) return SelectBool<BoolEqualOp>(a, b, p, out);
  return SelectSameType<EqualOp, kNumericTypes>(a, b, p, out);
}

const BinaryOpDef kCompareLogicOps[] = {
    {"Equal", &SelectEqual, nullptr},
    {"Greater", &SelectSameType<GreaterOp, kNumericTypes>, nullptr},
    {"Less", &SelectSameType<LessOp, kNumericTypes>, nullptr},
    {"GreaterOrEqual", &SelectSameType<GreaterOrEqualOp, kNumericTypes>, nullptr},
    {"LessOrEqual", &SelectSameType<LessOrEqualOp, kNumericTypes>, nullptr},
    {"And", &SelectBool<AndOp>, nullptr},
    {"Or", &SelectBool<OrOp>, nullptr},
    {"Xor", &SelectBool<XorOp>, nullptr},
};

}  // namespace

std::unique_ptr<Kernel> NewCompareLogicKernel() {
  return std::make_unique<BinaryKernel>(kCompareLogicOps, sizeof(kCompareLogicOps) / sizeof(kCompareLogicOps[0]));
}

}  // namespace math
}  // namespace loom
