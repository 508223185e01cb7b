// The choice of the NCHW8c kernels' path (nchwc_vector.h).
#include "kernels/cpu/nn/nchwc_vector.h"

#include <cstring>

#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {
namespace {

bool CpuHasAvx2Fma() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace

const char* NchwcIsaName(NchwcIsa isa) { return isa == NchwcIsa::kAvx2 ? "avx2" : "generic"; }

NchwcIsa ActiveNchwcIsa() {
  static const NchwcIsa isa = [] {
    const char* gemm = ActiveGemmF32Isa().name;
    const bool avx = std::strcmp(gemm, "avx2") == 0 || std::strcmp(gemm, "avx512") == 0;
    return avx && CpuHasAvx2Fma() ? NchwcIsa::kAvx2 : NchwcIsa::kGeneric;
  }();
  return isa;
}

std::vector<NchwcIsa> SupportedNchwcIsas() {
  std::vector<NchwcIsa> isas = {NchwcIsa::kGeneric};
  if (CpuHasAvx2Fma()) isas.push_back(NchwcIsa::kAvx2);
  return isas;
}

}  // namespace nn
}  // namespace loom
