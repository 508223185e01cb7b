// The avx512 path of vector_math.h: 16 lanes. Compiled for the ISA by the target
// pragma below only (no -march flag); run only when the CPU has it (IsaAvx512).
#include "kernels/cpu/math/vector_math.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#pragma GCC push_options
#pragma GCC target("avx512f")
#include "kernels/cpu/math/vector_math_impl.h"

namespace loom {
namespace vmath {
namespace {

typedef float Float16 __attribute__((vector_size(64)));
typedef int32_t Int16 __attribute__((vector_size(64)));

struct Avx512Vector {
  using T = Float16;
  using I = Int16;
  static T MulAdd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static bool Any(I m) { return _mm512_test_epi32_mask(__m512i(m), __m512i(m)) != 0; }
  static bool AnyLess(T a, T b) { return _mm512_cmp_ps_mask(__m512(a), __m512(b), _CMP_LT_OQ) != 0; }
};

constexpr VectorMathIsa kAvx512 = impl::Arrays<Avx512Vector>::Table("avx512");

}  // namespace
}  // namespace vmath
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace vmath {

const VectorMathIsa* IsaAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? &kAvx512 : nullptr;
}

}  // namespace vmath
}  // namespace loom

#endif
