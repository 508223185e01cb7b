// The Winograd tile transforms compiled for AVX2 + FMA by the target pragma below
// (no -march flag); used only when the CPU has it.
#include "kernels/cpu/nn/conv_winograd_transform.h"

#if defined(__x86_64__)

#include <cmath>
#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx2,fma")

namespace loom {
namespace nn {
namespace {

#include "kernels/cpu/nn/conv_winograd_transform_impl.h"

}  // namespace
}  // namespace nn
}  // namespace loom

#pragma GCC pop_options

namespace loom {
namespace nn {

const WinogradTransformFns* WinogradTransformsAvx2() {
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported ? &kTransforms : nullptr;
}

}  // namespace nn
}  // namespace loom

#endif  // __x86_64__
