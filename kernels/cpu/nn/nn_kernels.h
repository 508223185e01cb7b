// Factories of the nn group's kernels (group-private; see register.cc).
#pragma once

#include <memory>

#include "kernels/common/kernel.h"

namespace loom {

std::unique_ptr<Kernel> MakeConvKernel();
std::unique_ptr<Kernel> MakeConvTransposeKernel();
std::unique_ptr<Kernel> MakeMatMulKernel();
std::unique_ptr<Kernel> MakeGemmKernel();
std::unique_ptr<Kernel> MakeMaxPoolKernel();
std::unique_ptr<Kernel> MakeAveragePoolKernel();
std::unique_ptr<Kernel> MakeLpPoolKernel();
std::unique_ptr<Kernel> MakeGlobalAveragePoolKernel();
std::unique_ptr<Kernel> MakeGlobalMaxPoolKernel();
std::unique_ptr<Kernel> MakeGlobalLpPoolKernel();
std::unique_ptr<Kernel> MakeBatchNormalizationKernel();
std::unique_ptr<Kernel> MakeLayerNormalizationKernel();
std::unique_ptr<Kernel> MakeInstanceNormalizationKernel();
std::unique_ptr<Kernel> MakeLrnKernel();
std::unique_ptr<Kernel> MakeMeanVarianceNormalizationKernel();
std::unique_ptr<Kernel> MakeResizeKernel();
std::unique_ptr<Kernel> MakeUpsampleKernel();

}  // namespace loom
