// One kernel class for the elementwise binary ops with numpy broadcasting
// (arithmetic, comparisons, logic, PRelu). Each op is a row of a table that
// gives its attribute parser and picks the loop for the input dtypes; loops
// are instantiated from a functor `R operator()(A a, B b)`. A bool result
// produces a bool tensor.
//
// The broadcast plan (broadcast.h) splits the output into runs in which each
// input is either contiguous or a single scalar, so every loop has four plain
// variants: vector-vector, vector-scalar, scalar-vector, scalar-scalar.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/common/kernel.h"
#include "kernels/cpu/math/broadcast.h"
#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {

struct BinaryParams {
  bool fmod = false;       // Mod
  bool shift_left = true;  // BitShift
};

using BinaryLoop = void (*)(const void* a, int step_a, const void* b, int step_b, void* y, int64_t n,
                            const BinaryParams& params);

struct BinaryOpDef {
  const char* op;
  // The loop for input dtypes (a, b), or null if unsupported; sets *out to the output dtype.
  BinaryLoop (*select)(DType a, DType b, const BinaryParams& params, DType* out);
  Status (*parse)(const KernelSetup& setup, BinaryParams* params);  // null: no attributes
  bool same_dtype = true;                                           // both inputs must share a dtype
  bool unidirectional = false;                                      // B broadcasts to A's shape (PRelu)
};

template <typename Op, typename A, typename B, typename Y>
void BinaryLoopImpl(const void* av, int step_a, const void* bv, int step_b, void* yv, int64_t n,
                    const BinaryParams& params) {
  const Op op(params);
  const A* a = static_cast<const A*>(av);
  const B* b = static_cast<const B*>(bv);
  Y* y = static_cast<Y*>(yv);
  if (step_a && step_b) {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<Y>(op(a[i], b[i]));
  } else if (step_a) {
    const B s = b[0];
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<Y>(op(a[i], s));
  } else if (step_b) {
    const A s = a[0];
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<Y>(op(s, b[i]));
  } else {
    const Y v = static_cast<Y>(op(a[0], b[0]));
    for (int64_t i = 0; i < n; ++i) y[i] = v;
  }
}

// True when Op on (A, B) is a predicate (its output is a bool tensor).
template <typename Op, typename A, typename B>
constexpr bool kIsPredicate = std::is_same_v<decltype(std::declval<const Op&>()(A{}, B{})), bool>;

// Output element type of Op on (A, B): uint8_t (bool tensor) for predicates, else A.
template <typename Op, typename A, typename B>
using BinaryOutType = std::conditional_t<kIsPredicate<Op, A, B>, uint8_t, A>;

// Select function for ops whose inputs share one dtype from kTypes.
template <typename Op, TypeSet kTypes>
BinaryLoop SelectSameType(DType a, DType b, const BinaryParams&, DType* out) {
  if (a != b) return nullptr;
  BinaryLoop loop = nullptr;
  VisitType<kTypes>(a, [&](auto tag) {
    using T = decltype(tag);
    using Y = BinaryOutType<Op, T, T>;
    loop = &BinaryLoopImpl<Op, T, T, Y>;
    *out = kIsPredicate<Op, T, T> ? DType::kBool : a;
  });
  return loop;
}

class BinaryKernel : public Kernel {
 public:
  BinaryKernel(const BinaryOpDef* table, size_t table_size) : table_(table), table_size_(table_size) {}

  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;
  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override;

 private:
  const BinaryOpDef* Find(const KernelSetup& setup) const;
  void RunRepeated(const KernelArgs& args) const;

  const BinaryOpDef* table_;
  size_t table_size_;
  BinaryLoop loop_ = nullptr;
  BinaryParams params_;
  BroadcastPlan plan_;
  size_t elem_[3] = {0, 0, 0};  // bytes per element of A, B, Y
  // Short runs with one operand repeated row after row
  // (BroadcastPlan::RepeatedPeriod): run over several rows at once against
  // the period copied side by side.
  bool repeat_ = false;
  int repeated_ = 0;
  int64_t outer_ = 0, rows_ = 0, period_ = 0;
};

}  // namespace math
}  // namespace loom
