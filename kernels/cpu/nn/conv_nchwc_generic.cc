// loom.ConvNchwc's generic path (GenericVector8 of nchwc_vector.h), compiled
// for the build's baseline ISA.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "kernels/cpu/nn/conv_nchwc.h"
#include "kernels/cpu/nn/conv_nchwc_kernel.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {
namespace {

struct GenericVector : GenericVector8<GenericVector> {};

constexpr ConvNchwcIsa kGeneric = {"generic",
                                   &conv_nchwc::Pointwise<GenericVector>,
                                   &conv_nchwc::General<GenericVector>,
                                   &conv_nchwc::Stem<GenericVector>,
                                   2,
                                   2,
                                   false};

}  // namespace

const ConvNchwcIsa* ConvNchwcIsaGeneric() { return &kGeneric; }

}  // namespace nn
}  // namespace loom
