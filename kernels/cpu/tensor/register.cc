#include "kernels/common/registry.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/tensor/tensor_kernels.h"

namespace loom {

void RegisterCpuTensorKernels(KernelRegistry* r) {
  using namespace tensor;  // NOLINT: the factories below
  r->AddCpu("Reshape", MakeReshapeKernel);
  r->AddCpu("Flatten", MakeFlattenKernel);
  r->AddCpu("Squeeze", MakeSqueezeKernel);
  r->AddCpu("Unsqueeze", MakeUnsqueezeKernel);
  r->AddCpu("Identity", MakeIdentityKernel);
  r->AddCpu("Dropout", MakeDropoutKernel);
  r->AddCpu("Transpose", MakeTransposeKernel);
  r->AddCpu("Concat", MakeConcatKernel);
  r->AddCpu("Split", MakeSplitKernel);
  r->AddCpu("Slice", MakeSliceKernel);
  r->AddCpu("Gather", MakeGatherKernel);
  r->AddCpu("GatherElements", MakeGatherElementsKernel);
  r->AddCpu("GatherND", MakeGatherNDKernel);
  r->AddCpu("ScatterElements", MakeScatterElementsKernel);
  r->AddCpu("Scatter", MakeScatterElementsKernel);
  r->AddCpu("ScatterND", MakeScatterNDKernel);
  r->AddCpu("Pad", MakePadKernel);
  r->AddCpu("Shape", MakeShapeKernel);
  r->AddCpu("Size", MakeSizeKernel);
  r->AddCpu("Expand", MakeExpandKernel);
  r->AddCpu("Tile", MakeTileKernel);
  r->AddCpu("ConstantOfShape", MakeConstantOfShapeKernel);
  r->AddCpu("Range", MakeRangeKernel);
  r->AddCpu("EyeLike", MakeEyeLikeKernel);
  r->AddCpu("Constant", MakeConstantKernel);
  r->AddCpu("Trilu", MakeTriluKernel);
  r->AddCpu("OneHot", MakeOneHotKernel);
  r->AddCpu("DepthToSpace", MakeDepthToSpaceKernel);
  r->AddCpu("SpaceToDepth", MakeSpaceToDepthKernel);
  r->AddCpu("TopK", MakeTopKKernel);
  r->AddCpu("NonZero", MakeNonZeroKernel);
  r->AddCpu("Compress", MakeCompressKernel);
  r->AddCpu("Unique", MakeUniqueKernel);
  r->AddCpu("ReverseSequence", MakeReverseSequenceKernel);
}

}  // namespace loom
