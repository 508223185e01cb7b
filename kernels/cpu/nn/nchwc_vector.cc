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

bool CpuHasAvx512() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return CpuHasAvx2Fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

}  // namespace

const char* NchwcIsaName(NchwcIsa isa) {
  switch (isa) {
    case NchwcIsa::kAvx2:
      return "avx2";
    case NchwcIsa::kAvx512:
      return "avx512";
    default:
      return "generic";
  }
}

NchwcIsa ActiveNchwcIsa() {
  static const NchwcIsa isa = [] {
    const char* gemm = ActiveGemmF32Isa().name;
    if (std::strcmp(gemm, "avx512") == 0 && CpuHasAvx512()) return NchwcIsa::kAvx512;
    const bool avx = std::strcmp(gemm, "avx2") == 0 || std::strcmp(gemm, "avx512") == 0;
    return avx && CpuHasAvx2Fma() ? NchwcIsa::kAvx2 : NchwcIsa::kGeneric;
  }();
  return isa;
}

std::vector<NchwcIsa> SupportedNchwcIsas() {
  std::vector<NchwcIsa> isas = {NchwcIsa::kGeneric};
  if (CpuHasAvx2Fma()) isas.push_back(NchwcIsa::kAvx2);
  if (CpuHasAvx512()) isas.push_back(NchwcIsa::kAvx512);
  return isas;
}

}  // namespace nn
}  // namespace loom
