// The fp32 pooling fast paths (pool_f32_isa.h): the 2-D plan built from a
// window geometry, the generic path and the choice of the process's path.
#include <cstring>
#include <vector>

#include "kernels/cpu/nn/gemm_f32_isa.h"
#include "kernels/cpu/nn/pool_f32_impl.h"

namespace loom {
namespace nn {
namespace {

// Four floats with GCC's vector extensions: SSE2 on x86-64, NEON on aarch64,
// scalar code where the ISA has no vectors.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));
struct GenericTag {};

constexpr PoolF32Isa kGeneric = pool_f32::PoolImpl<Float4, Int4, GenericTag>::MakeIsa("generic");

// Every path of this build, fastest first; null where the CPU lacks it.
std::vector<const PoolF32Isa*> BuiltIsas() {
#if defined(__x86_64__)
  return {PoolF32IsaAvx512(), PoolF32IsaAvx2(), &kGeneric};
#else
  return {&kGeneric};
#endif
}

const PoolF32Isa& ChooseIsa() {
  // The GEMM's choice has read LOOM_CPU_ISA and the CPU's features already.
  const char* want = ActiveGemmF32Isa().name;
  for (const PoolF32Isa* isa : SupportedPoolF32Isas())
    if (std::strcmp(isa->name, want) == 0) return *isa;
  return kGeneric;
}

int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

}  // namespace

const PoolF32Isa& ActivePoolF32Isa() {
  static const PoolF32Isa& isa = ChooseIsa();
  return isa;
}

std::vector<const PoolF32Isa*> SupportedPoolF32Isas() {
  std::vector<const PoolF32Isa*> isas;
  for (const PoolF32Isa* isa : BuiltIsas())
    if (isa) isas.insert(isas.begin(), isa);
  return isas;
}

bool MakePool2dF32Plan(const WindowGeometry& g, bool max, bool count_include_pad, Pool2dF32Plan* plan) {
  if (g.rank > 2 || g.InSize() == 0 || g.OutSize() == 0) return false;
  for (int a = 0; a < kMaxSpatialRank; ++a)
    if (g.dilation[a] != 1) return false;
  Pool2dF32Plan p;
  p.max = max;
  p.in_h = g.in[1];
  p.in_w = g.in[2];
  p.out_h = g.out[1];
  p.out_w = g.out[2];
  p.kernel_h = g.kernel[1];
  p.kernel_w = g.kernel[2];
  p.stride_h = g.stride[1];
  p.stride_w = g.stride[2];
  p.pad_top = g.pad_begin[1];
  p.pad_left = g.pad_begin[2];
  // Padded line positions (0 = input column -pad_left) any window reads.
  const int64_t reach = (p.out_w - 1) * p.stride_w + p.kernel_w;
  p.line_cols = reach - p.pad_left < p.in_w ? reach - p.pad_left : p.in_w;
  if (p.line_cols < 0) p.line_cols = 0;
  p.phase_len = RoundUp(RoundUp(p.out_w, kPool2dF32Align) + (p.kernel_w - 1) / p.stride_w + 1, kPool2dF32Align);
  if (p.ScratchFloats() > (int64_t{1} << 24)) return false;  // absurd strides or kernels: generic loop
  // Also holds the line: stride_w * phase_len >= reach and >= pad_left + line_cols.
  if (p.stride_w * p.phase_len < p.pad_left + p.line_cols) return false;

  // Per axis and output index: taps in the input ([lo, hi)) and in the padded extent.
  auto taps = [](int64_t o, int64_t stride, int64_t pad_begin, int64_t kernel, int64_t in, int64_t pad_end, int64_t* lo,
                 int64_t* hi, int64_t* padded) {
    const int64_t start = o * stride - pad_begin;
    *lo = start < 0 ? 0 : start;
    *hi = start + kernel < in ? start + kernel : in;
    if (*hi < *lo) *hi = *lo;
    const int64_t padded_end = start + kernel < in + pad_end ? start + kernel : in + pad_end;
    *padded = padded_end - start;
  };
  p.row_lo.resize(p.out_h);
  p.row_hi.resize(p.out_h);
  p.row_count.resize(p.out_h);
  for (int64_t o = 0; o < p.out_h; ++o) {
    int64_t padded = 0;
    taps(o, p.stride_h, p.pad_top, p.kernel_h, p.in_h, g.pad_end[1], &p.row_lo[o], &p.row_hi[o], &padded);
    const int64_t count = count_include_pad ? padded : p.row_hi[o] - p.row_lo[o];
    p.row_count[o] = count > 0 ? static_cast<float>(count) : 1.f;
  }
  p.col_count.assign(p.phase_len, 1.f);
  for (int64_t o = 0; o < p.out_w; ++o) {
    int64_t lo = 0, hi = 0, padded = 0;
    taps(o, p.stride_w, p.pad_left, p.kernel_w, p.in_w, g.pad_end[2], &lo, &hi, &padded);
    if (hi == lo) p.empty_cols.push_back(o);
    const int64_t count = count_include_pad ? padded : hi - lo;
    p.col_count[o] = count > 0 ? static_cast<float>(count) : 1.f;
  }
  for (int64_t k = 0; k < p.kernel_w; ++k) p.tap_offset.push_back(k % p.stride_w * p.phase_len + k / p.stride_w);
  *plan = std::move(p);
  return true;
}

}  // namespace nn
}  // namespace loom
