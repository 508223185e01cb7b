// The fp32 GEMM's NEON path.
//   aarch64: an 8 x 12 register tile (24 q accumulators; per K step three B
//            loads, two A loads and 24 vfmaq_laneq_f32). NEON is part of
//            the architecture, so the path is always there.
//   armhf:   a 4 x 8 tile (8 q accumulators, vmlaq_lane_f32: ARMv7 NEON has
//            no fused multiply-add without VFPv4). The default armhf compiler
//            targets VFPv3 without NEON, so this file turns NEON on with a
//            target pragma and the path runs only when the kernel reports
//            HWCAP_NEON.
#include "kernels/cpu/nn/gemm_f32_isa.h"

#if defined(__aarch64__) || defined(__arm__)

#include <arm_neon.h>

#include <cstdint>
#include <utility>

#if defined(__arm__)
#include <sys/auxv.h>
#pragma GCC push_options
#pragma GCC target("fpu=neon")
#endif
#include "kernels/cpu/nn/gemm_f32_ukernel.h"

namespace loom {
namespace nn {
namespace {

struct NeonVector : gemm_f32::VectorOps<float32x4_t, NeonVector> {
#if defined(__aarch64__)
  static T MulAdd(T a, T b, T c) { return vfmaq_f32(c, a, b); }
  template <int I>
  static T MulAddA(T acc, const float* a, T b) {
    return vfmaq_laneq_f32(acc, b, vld1q_f32(a + I / 4 * 4), I % 4);
  }
#else
  static T MulAdd(T a, T b, T c) { return vmlaq_f32(c, a, b); }
  template <int I>
  static T MulAddA(T acc, const float* a, T b) {
    const float32x4_t q = vld1q_f32(a + I / 4 * 4);
    return vmlaq_lane_f32(acc, b, I % 4 < 2 ? vget_low_f32(q) : vget_high_f32(q), I % 2);
  }
#endif
};

#if defined(__aarch64__)
constexpr GemmF32Isa kNeon = gemm_f32::MakeGemmF32Isa<NeonVector, 8, 3>("neon");
#else
constexpr GemmF32Isa kNeon = gemm_f32::MakeGemmF32Isa<NeonVector, 4, 2>("neon");
#endif

}  // namespace
}  // namespace nn
}  // namespace loom

#if defined(__arm__)
#pragma GCC pop_options
#endif

namespace loom {
namespace nn {

const GemmF32Isa* GemmF32IsaNeon() {
#if defined(__aarch64__)
  return &kNeon;
#else
  return getauxval(AT_HWCAP) & HWCAP_ARM_NEON ? &kNeon : nullptr;
#endif
}

}  // namespace nn
}  // namespace loom

#endif
