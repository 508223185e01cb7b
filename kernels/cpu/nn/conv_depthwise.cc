// The fp32 depthwise convolution's driver (scratch layout, threading), its
// generic path and the choice of path (conv_depthwise.h).
#include "kernels/cpu/nn/conv_depthwise.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/nn/conv_depthwise_kernel.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"

namespace loom {
namespace nn {
namespace {

// Four floats with GCC's vector extensions: SSE2 on x86-64, NEON on
// aarch64, scalar code where the ISA has no vectors.
typedef float Float4 __attribute__((vector_size(16)));

struct GenericVector : gemm_f32::VectorOps<Float4, GenericVector> {
  static T MulAdd(T a, T b, T c) { return a * b + c; }
};

constexpr DepthwiseF32Isa kGeneric = {"generic", GenericVector::kLanes, &depthwise_f32::PlaneRowsAny<GenericVector>};

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Below this many multiply-adds a run stays on the calling thread: waking
// the pool costs more than it saves.
constexpr double kMinParallelMacs = 1 << 17;

}  // namespace

const DepthwiseF32Isa* DepthwiseF32IsaGeneric() { return &kGeneric; }

std::vector<const DepthwiseF32Isa*> SupportedDepthwiseF32Isas() {
  std::vector<const DepthwiseF32Isa*> isas = {&kGeneric};
#if defined(__x86_64__)
  for (const DepthwiseF32Isa* isa : {DepthwiseF32IsaAvx2(), DepthwiseF32IsaAvx512()})
    if (isa) isas.push_back(isa);
#endif
  return isas;
}

const DepthwiseF32Isa& ActiveDepthwiseF32Isa() {
  static const DepthwiseF32Isa& isa = [&]() -> const DepthwiseF32Isa& {
    const char* gemm = ActiveGemmF32Isa().name;
    for (const DepthwiseF32Isa* d : SupportedDepthwiseF32Isas())
      if (std::strcmp(d->name, gemm) == 0) return *d;
    return kGeneric;  // neon: the generic path is NEON code on aarch64
  }();
  return isa;
}

const DepthwiseF32Isa& DepthwiseF32IsaForWidth(int64_t out_w) {
  const DepthwiseF32Isa& active = ActiveDepthwiseF32Isa();
  if (active.lanes <= 8 || out_w > 8) return active;
  for (const DepthwiseF32Isa* isa : SupportedDepthwiseF32Isas())
    if (isa->lanes == 8) return *isa;
  return active;
}

bool DepthwiseConvF32::Supports(int64_t kernel_h, int64_t kernel_w, int64_t stride_h, int64_t stride_w,
                                int64_t dilation_h, int64_t dilation_w) {
  return kernel_h == kernel_w && (kernel_h == 3 || kernel_h == 5) && (stride_h == 1 || stride_h == 2) &&
         stride_w == stride_h && dilation_h == 1 && dilation_w == 1;
}

DepthwiseConvF32::DepthwiseConvF32(const DepthwiseF32Geometry& g, const Activation& act, const DepthwiseF32Isa& isa)
    : g_(g), act_(act), isa_(&isa) {
  const int64_t lanes = isa.lanes, k = g.kernel;
  const int64_t out_vec = RoundUp(g.out_w, lanes);
  l_.lanes = isa.lanes;
  l_.ring = 3 * g.stride_h + g.kernel;  // up to 4 output rows at a time
  int64_t staging = 0;
  if (g.stride_w == 1) {
    l_.slot = RoundUp(std::max(out_vec + k - 1, g.pad_left + g.in_w), lanes);
  } else {
    l_.half = RoundUp(std::max(out_vec + k / 2, (g.pad_left + g.in_w + 1) / 2), lanes);
    l_.slot = 2 * l_.half;
    staging = l_.slot;
  }
  l_.thread_floats = RoundUp((l_.ring + 1) * l_.slot + staging, 16);
}

size_t DepthwiseConvF32::ScratchBytes(int num_threads) const {
  return static_cast<size_t>(std::max(num_threads, 1)) * static_cast<size_t>(l_.thread_floats) * sizeof(float);
}

void DepthwiseConvF32::Run(const float* x, const float* w, const float* bias, float* y, void* scratch, ThreadPool* pool,
                           const float* residual) const {
  const int64_t planes = g_.batch * g_.channels, oh = g_.out_h;
  if (planes <= 0 || oh <= 0 || g_.out_w <= 0) return;
  const int threads = pool ? pool->NumThreads() : 1;
  const double macs = static_cast<double>(planes) * oh * g_.out_w * g_.kernel * g_.kernel;
  ThreadPool* run_pool = threads > 1 && macs >= kMinParallelMacs ? pool : nullptr;
  // Tasks are (plane, row chunk); split rows only when planes are too few to
  // balance the threads.
  int64_t chunks = 1;
  if (run_pool && planes < 4 * threads) chunks = std::min<int64_t>((4 * threads + planes - 1) / planes, (oh + 3) / 4);
  chunks = std::max<int64_t>(chunks, 1);
  const int64_t rows_per_chunk = (oh + chunks - 1) / chunks;
  chunks = (oh + rows_per_chunk - 1) / rows_per_chunk;
  const int64_t in_plane = g_.in_h * g_.in_w, out_plane = oh * g_.out_w, kk = g_.kernel * g_.kernel;
  ParallelFor(run_pool, planes * chunks, 1, [&](int64_t begin, int64_t end, int thread) {
    float* buf = static_cast<float*>(scratch) + static_cast<size_t>(thread) * l_.thread_floats;
    std::memset(buf, 0, static_cast<size_t>(l_.thread_floats) * sizeof(float));
    for (int64_t t = begin; t < end; ++t) {
      const int64_t plane = t / chunks, chunk = t % chunks;
      const int64_t oh0 = chunk * rows_per_chunk, oh1 = std::min(oh, oh0 + rows_per_chunk);
      // Output plane p = n * M + oc reads input plane n * C + oc / multiplier
      // = p / multiplier, since M = C * multiplier.
      const int64_t oc = plane % g_.channels;
      isa_->rows(g_, l_, act_, x + (plane / g_.multiplier) * in_plane, w + oc * kk, bias ? bias[oc] : 0.f,
                 residual ? residual + plane * out_plane : nullptr, y + plane * out_plane, oh0, oh1, buf);
    }
  });
}

}  // namespace nn
}  // namespace loom
