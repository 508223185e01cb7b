// One kernel class for every elementwise unary op (math functions and
// activations). Each op is a row of a table: which dtypes it accepts, how it
// reads its attributes, and the loop for each dtype, instantiated from a small
// functor:
//
//   struct SqrtOp {
//     explicit SqrtOp(const UnaryParams&) {}
//     template <typename T> T operator()(T x) const { return std::sqrt(x); }
//   };
//   {"Sqrt", &SelectUnaryLoop<SqrtOp, kFloatTypes>, nullptr}
//
// A functor returning bool produces a bool tensor (IsNaN, IsInf, Not). A
// functor with a static VectorF32(x, y, n, params) runs it for float32
// instead (the array functions of vector_math.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/common/kernel.h"
#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {

// Attribute values of the unary ops, filled by the op's parse function.
struct UnaryParams {
  float alpha = 0.f;
  float beta = 0.f;
  float gamma = 0.f;
  bool detect_positive = true;
  bool detect_negative = true;
};

using UnaryLoop = void (*)(const void* x, void* y, int64_t n, const UnaryParams& params);

struct UnaryOpDef {
  const char* op;
  UnaryLoop (*select)(DType input);                                // null result: dtype unsupported
  Status (*parse)(const KernelSetup& setup, UnaryParams* params);  // null: no attributes
  bool bool_output = false;
};

template <typename Op, typename = void>
struct HasVectorF32 : std::false_type {};
template <typename Op>
struct HasVectorF32<Op, std::void_t<decltype(&Op::VectorF32)>> : std::true_type {};

template <typename Op, typename T>
void UnaryLoopImpl(const void* xv, void* yv, int64_t n, const UnaryParams& params) {
  if constexpr (std::is_same_v<T, float> && HasVectorF32<Op>::value) {
    Op::VectorF32(static_cast<const float*>(xv), static_cast<float*>(yv), n, params);
    return;
  }
  const Op op(params);
  const T* x = static_cast<const T*>(xv);
  using R = decltype(op(x[0]));
  using Y = std::conditional_t<std::is_same_v<R, bool>, uint8_t, T>;
  Y* y = static_cast<Y*>(yv);
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<Y>(op(x[i]));
}

template <typename Op, TypeSet kTypes>
UnaryLoop SelectUnaryLoop(DType d) {
  UnaryLoop loop = nullptr;
  VisitType<kTypes>(d, [&](auto tag) { loop = &UnaryLoopImpl<Op, decltype(tag)>; });
  return loop;
}

// The row of `table` for `op`, or null.
const UnaryOpDef* FindUnaryOp(const UnaryOpDef* table, size_t table_size, const std::string& op);
// The row for `op` of unary.cc's table, or of activations.cc's (null if
// neither has it), for kernels that run these ops as steps (elementwise_chain.h).
const UnaryOpDef* FindMathUnaryOp(const std::string& op);
const UnaryOpDef* FindActivationOp(const std::string& op);

class UnaryKernel : public Kernel {
 public:
  UnaryKernel(const UnaryOpDef* table, size_t table_size) : table_(table), table_size_(table_size) {}

  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;
  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override;

 private:
  const UnaryOpDef* table_;
  size_t table_size_;
  UnaryLoop loop_ = nullptr;
  UnaryParams params_;
  int64_t size_ = 0;
  size_t in_elem_ = 0;
  size_t out_elem_ = 0;
};

}  // namespace math
}  // namespace loom
