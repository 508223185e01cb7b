// The filter transform of the Winograd convolution (conv_winograd.h):
// U_p = (G g G^T)_p of every 3x3 filter g, for F(2x2, 3x3) and F(4x4, 3x3),
// written straight into the packed B operands the per-point GEMMs read.
//
// Computed in float with G's rows written out (only powers of two and one
// multiplication by 1/6 per F(4x4) value), the same operations in the same
// order for every filter, so the result is deterministic and does not depend
// on the GEMM path (only the panel layout does). Columns are processed a
// packed panel (NR output channels) at a time, so every point's panel is
// written sequentially.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/nn/gemm_f32.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {

// w: [Cout, Cin, 3, 3]. Fills u with (m + 2)^2 matrices, point p = i * (m + 2)
// + j holding U_p[ci][co] as the role-B operand (K = Cin, N = Cout) packed for
// `isa`, zeros right of column Cout. m is 2 or 4.
void TransformWinogradFilters(int m, const float* w, int64_t cin, int64_t cout, const GemmF32Isa& isa,
                              std::vector<PackedMatrixF32>* u);

}  // namespace nn
}  // namespace loom
