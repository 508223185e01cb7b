// The baseline-ISA Winograd tile transforms and the per-path table lookup.
#include "kernels/cpu/nn/conv_winograd_transform.h"

#include <cstring>

namespace loom {
namespace nn {
namespace {

#include "kernels/cpu/nn/conv_winograd_transform_impl.h"

}  // namespace

const WinogradTransformFns& WinogradTransformsGeneric() { return kTransforms; }

const WinogradTransformFns& WinogradTransformsFor(const GemmF32Isa& isa) {
#if defined(__x86_64__)
  if (std::strcmp(isa.name, "avx512") == 0 && WinogradTransformsAvx512()) return *WinogradTransformsAvx512();
  if (std::strcmp(isa.name, "avx2") == 0 && WinogradTransformsAvx2()) return *WinogradTransformsAvx2();
#else
  (void)isa;
#endif
  return kTransforms;
}

}  // namespace nn
}  // namespace loom
