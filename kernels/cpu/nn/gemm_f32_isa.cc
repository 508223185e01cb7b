// The generic path of the fp32 GEMM, the scalar tile store every path uses
// for partial tiles, and the choice of the process's path (gemm_f32_isa.h).
#include "kernels/cpu/nn/gemm_f32_isa.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace {

// Four floats with GCC's vector extensions: SSE2 on x86-64, NEON on
// aarch64, scalar code where the ISA has no vectors.
typedef float Float4 __attribute__((vector_size(16)));

struct GenericVector : gemm_f32::VectorOps<Float4, GenericVector> {
  static T MulAdd(T a, T b, T c) { return a * b + c; }
  template <int I>
  static T MulAddA(T acc, const float* a, T b) {
    return acc + a[I] * b;
  }
};

constexpr GemmF32Isa kGeneric = gemm_f32::MakeGemmF32Isa<GenericVector, 4, 2>("generic");

// Every path of this build, fastest first; null where the CPU lacks it.
std::vector<const GemmF32Isa*> BuiltIsas() {
#if defined(__x86_64__)
  return {GemmF32IsaAvx512(), GemmF32IsaAvx2(), &kGeneric};
#elif defined(__aarch64__) || defined(__arm__)
  return {GemmF32IsaNeon(), &kGeneric};
#else
  return {&kGeneric};
#endif
}

const GemmF32Isa& ChooseIsa() {
  const GemmF32Isa* best = nullptr;
  for (const GemmF32Isa* isa : BuiltIsas())
    if (isa && !best) best = isa;
  const char* forced = std::getenv("LOOM_CPU_ISA");
  if (!forced || !*forced) return *best;
  for (const GemmF32Isa* isa : SupportedGemmF32Isas())
    if (std::strcmp(isa->name, forced) == 0) return *isa;
  bool known = false;
  for (const char* name : {"generic", "avx2", "avx512", "neon"}) known = known || std::strcmp(forced, name) == 0;
  std::fprintf(stderr, "loom: LOOM_CPU_ISA=%s %s; using %s\n", forced,
               known ? "is not supported by this CPU or build" : "is unknown (generic, avx2, avx512, neon)",
               best->name);
  return *best;
}

}  // namespace

const GemmF32Isa& ActiveGemmF32Isa() {
  static const GemmF32Isa& isa = ChooseIsa();
  return isa;
}

std::vector<const GemmF32Isa*> SupportedGemmF32Isas() {
  std::vector<const GemmF32Isa*> isas;
  for (const GemmF32Isa* isa : BuiltIsas())
    if (isa) isas.insert(isas.begin(), isa);
  return isas;
}

void StoreGemmF32Tile(const GemmF32Tile& t, const float* acc, int ld) {
  for (int i = 0; i < t.rows; ++i) {
    float* c = t.c + i * t.ldc;
    const float* s = acc + i * ld;
    if (!t.first) {
      for (int j = 0; j < t.cols; ++j) c[j] += t.alpha * s[j];
    } else if (t.beta == 0.f) {
      for (int j = 0; j < t.cols; ++j) c[j] = t.alpha * s[j];
    } else {
      for (int j = 0; j < t.cols; ++j) c[j] = t.alpha * s[j] + t.beta * c[j];
    }
    if (!t.last) continue;
    if (t.residual) {
      const float* r = t.residual + i * t.ldc;
      for (int j = 0; j < t.cols; ++j) c[j] += r[j];
    }
    if (t.row_bias) {
      const float rb = t.row_bias[i];
      for (int j = 0; j < t.cols; ++j) c[j] += rb;
    }
    if (t.col_bias)
      for (int j = 0; j < t.cols; ++j) c[j] += t.col_bias[j];
    if (t.act) ApplyActivation(*t.act, c, t.cols);
  }
}

}  // namespace nn
}  // namespace loom
