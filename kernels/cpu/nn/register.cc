#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/nn/nn_kernels.h"

namespace loom {

void RegisterCpuNnKernels(KernelRegistry* r) {
  r->AddCpu("Conv", MakeConvKernel);
  r->AddCpu("ConvTranspose", MakeConvTransposeKernel);
  r->AddCpu("MatMul", MakeMatMulKernel);
  r->AddCpu("Gemm", MakeGemmKernel);
  r->AddCpu("MaxPool", MakeMaxPoolKernel);
  r->AddCpu("AveragePool", MakeAveragePoolKernel);
  r->AddCpu("LpPool", MakeLpPoolKernel);
  r->AddCpu("GlobalAveragePool", MakeGlobalAveragePoolKernel);
  r->AddCpu("GlobalMaxPool", MakeGlobalMaxPoolKernel);
  r->AddCpu("GlobalLpPool", MakeGlobalLpPoolKernel);
  r->AddCpu("BatchNormalization", MakeBatchNormalizationKernel);
  r->AddCpu("LayerNormalization", MakeLayerNormalizationKernel);
  r->AddCpu("InstanceNormalization", MakeInstanceNormalizationKernel);
  r->AddCpu("LRN", MakeLrnKernel);
  r->AddCpu("MeanVarianceNormalization", MakeMeanVarianceNormalizationKernel);
  r->AddCpu("Resize", MakeResizeKernel);
  r->AddCpu("Upsample", MakeUpsampleKernel);
}

}  // namespace loom
