// The generic path of vector_math.h (GCC vector extensions, 4 lanes) and the
// choice of the process's path.
#include "kernels/cpu/math/vector_math.h"

#include <cstdlib>
#include <cstring>

#include "kernels/cpu/math/vector_math_impl.h"

namespace loom {
namespace vmath {
namespace {

typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

struct GenericVector {
  using T = Float4;
  using I = Int4;
  static T MulAdd(T a, T b, T c) { return a * b + c; }
  static bool Any(I m) {
    uint64_t w[2];
    std::memcpy(w, &m, sizeof(w));
    return (w[0] | w[1]) != 0;
  }
  static bool AnyLess(T a, T b) { return Any(a < b); }
};

constexpr VectorMathIsa kGeneric = impl::Arrays<GenericVector>::Table("generic");

// Every path of this build, fastest first; null where the CPU lacks it.
std::vector<const VectorMathIsa*> BuiltIsas() {
#if defined(__x86_64__)
  return {IsaAvx512(), IsaAvx2(), &kGeneric};
#else
  return {&kGeneric};
#endif
}

const VectorMathIsa& ChooseIsa() {
  const VectorMathIsa* best = nullptr;
  for (const VectorMathIsa* isa : BuiltIsas())
    if (isa && !best) best = isa;
  const char* forced = std::getenv("LOOM_CPU_ISA");
  if (!forced || !*forced) return *best;
  // On ARM the generic code is the NEON code.
  if (std::strcmp(forced, "neon") == 0 && std::strcmp(best->name, "generic") == 0) return *best;
  for (const VectorMathIsa* isa : SupportedIsas())
    if (std::strcmp(isa->name, forced) == 0) return *isa;
  return *best;  // nn/gemm_f32_isa.cc reports the unknown or unsupported name
}

}  // namespace

const VectorMathIsa& Active() {
  static const VectorMathIsa& isa = ChooseIsa();
  return isa;
}

std::vector<const VectorMathIsa*> SupportedIsas() {
  std::vector<const VectorMathIsa*> isas;
  for (const VectorMathIsa* isa : BuiltIsas())
    if (isa) isas.insert(isas.begin(), isa);
  return isas;
}

}  // namespace vmath
}  // namespace loom
