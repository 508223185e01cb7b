// The avx2 path of vector_math.h: 8 lanes. Compiled for the ISA by the target
// pragma below only (no -march flag); run only when the CPU has it (IsaAvx2).
#include "kernels/cpu/math/vector_math.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "kernels/cpu/math/vector_math_impl.h"

namespace loom {
namespace vmath {
namespace {

typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));

struct Avx2Vector {
  using T = Float8;
  using I = Int8;
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static bool Any(I m) { return !_mm256_testz_si256(__m256i(m), __m256i(m)); }
  static bool AnyLess(T a, T b) { return Any(a < b); }
};

constexpr VectorMathIsa kAvx2 = impl::Arrays<Avx2Vector>::Table("avx2");

}  // namespace
}  // namespace vmath
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace vmath {

const VectorMathIsa* IsaAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? &kAvx2 : nullptr;
}

}  // namespace vmath
}  // namespace loom

#endif
