// Vectorized fp32 math over arrays: exp, sigmoid, tanh, erf, GELU (erf and
// tanh forms), SiLU / Swish, and the pieces of softmax (max, exp of x - max
// with its sum, scaling). Every function takes y == x (in place).
//
// The functions are range reduction plus polynomials of this module's own
// (vector_math_impl.h), accurate to a few ulp over the whole float range:
// large |x| saturates as the functions do (exp overflows to +inf and
// underflows through the subnormals to 0; sigmoid, tanh and erf reach their
// limits), +-inf give the limits and NaN propagates.
//
// Each instruction-set path is a table of the functions. The path runs is
// chosen once per process like the fp32 GEMM's (nn/gemm_f32_isa.h):
//   generic  4 lanes, GCC vector extensions (SSE2 on x86-64, NEON on aarch64)
//   avx2     8 lanes, AVX2 + FMA (vector_math_avx2.cc)
//   avx512   16 lanes, AVX-512F (vector_math_avx512.cc)
// LOOM_CPU_ISA=generic|avx2|avx512|neon forces a path (neon is the generic
// path here: the generic code compiles to NEON on ARM); a path the CPU lacks
// falls back to the fastest one (the GEMM's chooser prints the note).
#pragma once

#include <cstdint>
#include <vector>

namespace loom {
namespace vmath {

struct VectorMathIsa {
  const char* name;  // the LOOM_CPU_ISA value
  int lanes;
  void (*exp)(const float* x, float* y, int64_t n);
  void (*sigmoid)(const float* x, float* y, int64_t n);
  void (*tanh)(const float* x, float* y, int64_t n);
  void (*erf)(const float* x, float* y, int64_t n);
  void (*gelu)(const float* x, float* y, int64_t n);       // x * Phi(x), Phi through erf
  void (*gelu_tanh)(const float* x, float* y, int64_t n);  // the tanh approximation of GELU
  // y = x * sigmoid(alpha * x) (SiLU when alpha is 1; ONNX Swish).
  void (*swish)(const float* x, float* y, int64_t n, float alpha);
  // max(x[0, n)), n >= 1; NaN elements may or may not win.
  float (*max)(const float* x, int64_t n);
  // y = exp(x - shift) (y may be null: nothing stored); returns the sum of
  // exp(x - shift).
  float (*exp_shift_sum)(const float* x, float* y, int64_t n, float shift);
  // y = x * s + b.
  void (*scale_add)(const float* x, float* y, int64_t n, float s, float b);
};

// The path this process runs.
const VectorMathIsa& Active();

// Every path this build has and this CPU can run, generic first (tests).
std::vector<const VectorMathIsa*> SupportedIsas();

inline void Exp(const float* x, float* y, int64_t n) { Active().exp(x, y, n); }
inline void Sigmoid(const float* x, float* y, int64_t n) { Active().sigmoid(x, y, n); }
inline void Tanh(const float* x, float* y, int64_t n) { Active().tanh(x, y, n); }
inline void Erf(const float* x, float* y, int64_t n) { Active().erf(x, y, n); }
inline void Gelu(const float* x, float* y, int64_t n) { Active().gelu(x, y, n); }
inline void GeluTanh(const float* x, float* y, int64_t n) { Active().gelu_tanh(x, y, n); }
inline void Swish(const float* x, float* y, int64_t n, float alpha) { Active().swish(x, y, n, alpha); }
inline float Max(const float* x, int64_t n) { return Active().max(x, n); }
inline float ExpShiftSum(const float* x, float* y, int64_t n, float shift) {
  return Active().exp_shift_sum(x, y, n, shift);
}
inline void ScaleAdd(const float* x, float* y, int64_t n, float s, float b) { Active().scale_add(x, y, n, s, b); }

#if defined(__x86_64__)
// The tables of the vector paths: null when the CPU cannot run them.
const VectorMathIsa* IsaAvx2();
const VectorMathIsa* IsaAvx512();
#endif

}  // namespace vmath
}  // namespace loom
