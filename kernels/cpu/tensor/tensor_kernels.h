// Factories of the CPU tensor kernels (shape and data movement), one per op.
// Each is defined in the file named beside it; register.cc lists them.
#pragma once

#include <memory>

#include "kernels/common/kernel.h"

namespace loom {
namespace tensor {

// reshape_like.cc
std::unique_ptr<Kernel> MakeReshapeKernel();
std::unique_ptr<Kernel> MakeFlattenKernel();
std::unique_ptr<Kernel> MakeSqueezeKernel();
std::unique_ptr<Kernel> MakeUnsqueezeKernel();
// identity_dropout.cc
std::unique_ptr<Kernel> MakeIdentityKernel();
std::unique_ptr<Kernel> MakeDropoutKernel();
// transpose.cc
std::unique_ptr<Kernel> MakeTransposeKernel();
// concat.cc
std::unique_ptr<Kernel> MakeConcatKernel();
// split.cc
std::unique_ptr<Kernel> MakeSplitKernel();
// slice.cc
std::unique_ptr<Kernel> MakeSliceKernel();
// gather.cc
std::unique_ptr<Kernel> MakeGatherKernel();
std::unique_ptr<Kernel> MakeGatherElementsKernel();
// gather_nd.cc
std::unique_ptr<Kernel> MakeGatherNDKernel();
// scatter.cc
std::unique_ptr<Kernel> MakeScatterElementsKernel();
std::unique_ptr<Kernel> MakeScatterNDKernel();
// pad.cc
std::unique_ptr<Kernel> MakePadKernel();
// shape_ops.cc
std::unique_ptr<Kernel> MakeShapeKernel();
std::unique_ptr<Kernel> MakeSizeKernel();
// expand_tile.cc
std::unique_ptr<Kernel> MakeExpandKernel();
std::unique_ptr<Kernel> MakeTileKernel();
// generators.cc
std::unique_ptr<Kernel> MakeConstantOfShapeKernel();
std::unique_ptr<Kernel> MakeRangeKernel();
std::unique_ptr<Kernel> MakeEyeLikeKernel();
std::unique_ptr<Kernel> MakeConstantKernel();
// trilu.cc
std::unique_ptr<Kernel> MakeTriluKernel();
// onehot.cc
std::unique_ptr<Kernel> MakeOneHotKernel();
// depth_space.cc
std::unique_ptr<Kernel> MakeDepthToSpaceKernel();
std::unique_ptr<Kernel> MakeSpaceToDepthKernel();
// topk.cc
std::unique_ptr<Kernel> MakeTopKKernel();
// nonzero_compress.cc
std::unique_ptr<Kernel> MakeNonZeroKernel();
std::unique_ptr<Kernel> MakeCompressKernel();
// unique.cc
std::unique_ptr<Kernel> MakeUniqueKernel();
// reverse_sequence.cc
std::unique_ptr<Kernel> MakeReverseSequenceKernel();

}  // namespace tensor
}  // namespace loom
