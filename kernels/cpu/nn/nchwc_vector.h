// What the channel-blocked (NCHW8c) kernels share: the block size, their
// 8-float vector type and the choice of instruction-set path.
//
// A blocked tensor of logical NCHW shape [N, C, H, W] (C % 8 == 0) is a plain
// float32 tensor [N, C/8, H, W, 8]: one block of 8 channels is one vector.
// Each kernel is one template over an 8-float vector interface V (the
// static functions of GenericVector8 below: Zero, Set1, Load, Store, Add,
// Mul, Max, Min, MulAdd(a, b, c) = a * b + c; V::T the vector), compiled per
// path:
//   generic  GenericVector8<V>: two 4-float GCC vectors (SSE2 on x86-64,
//            NEON on ARM, scalar code elsewhere); a struct rather than one
//            32-byte GCC vector, whose calls would change ABI without AVX.
//   avx2     gemm_f32::VectorOps<Float8, V> with MulAdd = _mm256_fmadd_ps and
//            Set1 = _mm256_set1_ps (a broadcast from memory), defined in the
//            kernel's file compiled in a target region (conv_nchwc_avx2.cc).
//   avx512   (loom.ConvNchwc only; the other NCHW8c kernels run avx2 on it)
//            the two-block tiles on 16-float pair vectors, one pixel's
//            channels of both blocks (conv_nchwc_avx512.cc), the one-block
//            tiles on the avx2 vector with AVX-512's 32 registers.
// The path follows the fp32 GEMM's (ActiveGemmF32Isa(), forced with
// LOOM_CPU_ISA): avx512 when it is avx512 and the CPU has AVX-512 F, DQ and
// VL, avx2 when it is avx2 (or avx512 without them); everything else runs
// generic.
#pragma once

#include <cstring>
#include <vector>

namespace loom {
namespace nn {

constexpr int kNchwcBlock = 8;

// Eight floats (no may_alias attribute, so it can be a template argument).
typedef float Float8 __attribute__((vector_size(32)));

// The generic path's vector interface. Max and Min are lane-wise
// a > b ? a : b and a < b ? a : b (ApplyActivation's NaN behaviour).
// Derived, the kernel's own type (internal linkage:
// `struct GenericVector : GenericVector8<GenericVector> {};` in an unnamed
// namespace), keeps each file's copy apart, as gemm_f32::VectorOps does: no
// copy compiled in another file's target region can stand in for it.
template <class Derived>
struct GenericVector8 {
  typedef float Half __attribute__((vector_size(16)));
  struct T {
    Half lo, hi;
  };
  static constexpr int kLanes = 8;
  static T Zero() { return T{Half{}, Half{}}; }
  static T Set1(float x) {
    const Half v = {x, x, x, x};
    return T{v, v};
  }
  static T Load(const float* p) {
    T v;
    std::memcpy(&v.lo, p, sizeof(Half));
    std::memcpy(&v.hi, p + 4, sizeof(Half));
    return v;
  }
  static void Store(float* p, T v) {
    std::memcpy(p, &v.lo, sizeof(Half));
    std::memcpy(p + 4, &v.hi, sizeof(Half));
  }
  static T Add(T a, T b) { return T{a.lo + b.lo, a.hi + b.hi}; }
  static T Mul(T a, T b) { return T{a.lo * b.lo, a.hi * b.hi}; }
  static T Max(T a, T b) { return T{a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; }
  static T Min(T a, T b) { return T{a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi}; }
  static T MulAdd(T a, T b, T c) { return T{a.lo * b.lo + c.lo, a.hi * b.hi + c.hi}; }
};

enum class NchwcIsa { kGeneric, kAvx2, kAvx512 };

const char* NchwcIsaName(NchwcIsa isa);
// The path of this process (see above), decided once.
NchwcIsa ActiveNchwcIsa();
// Every path this CPU runs, generic first (tests run each).
std::vector<NchwcIsa> SupportedNchwcIsas();

}  // namespace nn
}  // namespace loom
