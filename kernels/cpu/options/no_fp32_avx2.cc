// The fp32 AVX2 tables of a build without them (-DLOOM_FP32_AVX2=OFF, which
// compiles this file in place of the eight *_avx2.cc files of nn/ and
// math/): every table is null, as on a CPU without AVX2, so dispatch takes
// AVX-512 or the generic path. The int8 AVX2 kernels are not affected.
#include "kernels/cpu/math/vector_math.h"
#include "kernels/cpu/nn/conv_depthwise.h"
#include "kernels/cpu/nn/conv_nchwc.h"
#include "kernels/cpu/nn/conv_nchwc_depthwise.h"
#include "kernels/cpu/nn/conv_winograd_transform.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"
#include "kernels/cpu/nn/pool_f32_isa.h"
#include "kernels/cpu/nn/pool_nchwc.h"

#if defined(__x86_64__)

namespace loom {
namespace vmath {

const VectorMathIsa* IsaAvx2() { return nullptr; }

}  // namespace vmath

namespace nn {

const GemmF32Isa* GemmF32IsaAvx2() { return nullptr; }
const ConvNchwcIsa* ConvNchwcIsaAvx2() { return nullptr; }
const DepthwiseNchwcIsa* DepthwiseNchwcIsaAvx2() { return nullptr; }
const DepthwiseF32Isa* DepthwiseF32IsaAvx2() { return nullptr; }
const PoolNchwcIsa* PoolNchwcIsaAvx2() { return nullptr; }
const PoolF32Isa* PoolF32IsaAvx2() { return nullptr; }
const WinogradTransformFns* WinogradTransformsAvx2() { return nullptr; }

}  // namespace nn
}  // namespace loom

#endif
