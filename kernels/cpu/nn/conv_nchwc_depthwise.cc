// loom.DepthwiseConvNchwc (conv_nchwc_depthwise.h): the kernel's Prepare,
// the driver (threads over planes and row ranges), the generic path and the
// choice of path.
#include "kernels/cpu/nn/conv_nchwc_depthwise.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/conv_geometry.h"
#include "kernels/cpu/nn/conv_nchwc_depthwise_kernel.h"
#include "kernels/cpu/nn/gemm_f32_isa.h"
#include "kernels/cpu/nn/residual_input.h"

namespace loom {
namespace nn {
namespace {

// Eight floats as two 4-float GCC vectors: SSE2 on x86-64, NEON on ARM,
// scalar code where the ISA has no vectors. (A single 32-byte GCC vector
// would live in memory on targets without 32-byte registers.)
typedef float Float4 __attribute__((vector_size(16)));

struct Float4x2 {
  Float4 lo, hi;
};

struct GenericVector {
  using T = Float4x2;
  static constexpr int kLanes = 8;
  static T Zero() { return {Float4{}, Float4{}}; }
  static T Set1(float x) { return {Float4{} + x, Float4{} + x}; }
  static T Load(const float* p) {
    T v;
    std::memcpy(&v.lo, p, sizeof(Float4));
    std::memcpy(&v.hi, p + 4, sizeof(Float4));
    return v;
  }
  static void Store(float* p, T v) {
    std::memcpy(p, &v.lo, sizeof(Float4));
    std::memcpy(p + 4, &v.hi, sizeof(Float4));
  }
  static T Add(T a, T b) { return {a.lo + b.lo, a.hi + b.hi}; }
  static T Mul(T a, T b) { return {a.lo * b.lo, a.hi * b.hi}; }
  // As gemm_f32::VectorOps: a > b ? a : b and a < b ? a : b, lane-wise.
  static T Max(T a, T b) { return {a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; }
  static T Min(T a, T b) { return {a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi}; }
  static T MulAdd(T a, T b, T c) { return {a.lo * b.lo + c.lo, a.hi * b.hi + c.hi}; }
};

// 4-pixel blocks: 8 of the 16 SSE2 registers hold the accumulators.
constexpr DepthwiseNchwcIsa kGeneric = {"generic", &depthwise_nchwc::PlaneRowsAny<GenericVector, 4>};

// Below this many multiply-adds a run stays on the calling thread: waking
// the pool costs more than it saves.
constexpr double kMinParallelMacs = 1 << 17;

}  // namespace

const DepthwiseNchwcIsa* DepthwiseNchwcIsaGeneric() { return &kGeneric; }

std::vector<const DepthwiseNchwcIsa*> SupportedDepthwiseNchwcIsas() {
  std::vector<const DepthwiseNchwcIsa*> isas = {&kGeneric};
#if defined(__x86_64__)
  if (const DepthwiseNchwcIsa* avx2 = DepthwiseNchwcIsaAvx2()) isas.push_back(avx2);
  if (const DepthwiseNchwcIsa* avx512 = DepthwiseNchwcIsaAvx512()) isas.push_back(avx512);
#endif
  return isas;
}

const DepthwiseNchwcIsa& ActiveDepthwiseNchwcIsa() {
  static const DepthwiseNchwcIsa& isa = []() -> const DepthwiseNchwcIsa& {
#if defined(__x86_64__)
    const char* gemm = ActiveGemmF32Isa().name;
    const DepthwiseNchwcIsa* avx512 = DepthwiseNchwcIsaAvx512();
    if (avx512 && std::strcmp(gemm, "avx512") == 0) return *avx512;
    const DepthwiseNchwcIsa* avx2 = DepthwiseNchwcIsaAvx2();
    if (avx2 && (std::strcmp(gemm, "avx2") == 0 || std::strcmp(gemm, "avx512") == 0)) return *avx2;
#endif
    return kGeneric;
  }();
  return isa;
}

void FinishDepthwiseNchwcGeometry(DepthwiseNchwcGeometry* g) {
  // Column ow reads input columns ow * sw - pad_left + kw * dw, kw < KW.
  const int64_t sw = g->stride_w, span = (g->kernel_w - 1) * g->dilation_w;
  const int64_t begin = std::min((g->pad_left + sw - 1) / sw, g->out_w);
  const int64_t last_start = g->in_w - 1 - span + g->pad_left;  // highest ow * sw
  const int64_t end = last_start < 0 ? 0 : std::min(last_start / sw + 1, g->out_w);
  g->interior_begin = begin;
  g->interior_end = std::max(begin, end);
}

DepthwiseConvNchwc::DepthwiseConvNchwc(const DepthwiseNchwcGeometry& g, const Activation& act,
                                       const DepthwiseNchwcIsa& isa)
    : g_(g), act_(act), isa_(&isa) {
  FinishDepthwiseNchwcGeometry(&g_);
}

void DepthwiseConvNchwc::Run(const float* x, const float* w, const float* bias, const float* residual, float* y,
                             ThreadPool* pool) const {
  constexpr int kB = kNchwcBlock;
  const int64_t planes = g_.batch * g_.blocks, oh = g_.out_h;
  if (planes <= 0 || oh <= 0 || g_.out_w <= 0) return;
  const int threads = pool ? pool->NumThreads() : 1;
  const double macs = static_cast<double>(planes) * oh * g_.out_w * g_.kernel_h * g_.kernel_w * kB;
  ThreadPool* run_pool = threads > 1 && macs >= kMinParallelMacs ? pool : nullptr;
  // Tasks are (plane, row chunk); rows are split only when planes are too
  // few to balance the threads.
  int64_t chunks = 1;
  if (run_pool && planes < 4 * threads) chunks = std::min<int64_t>((4 * threads + planes - 1) / planes, oh);
  const int64_t rows_per_chunk = (oh + chunks - 1) / chunks;
  chunks = (oh + rows_per_chunk - 1) / rows_per_chunk;
  const int64_t in_plane = g_.in_h * g_.in_w * kB, out_plane = oh * g_.out_w * kB;
  const int64_t w_block = g_.kernel_h * g_.kernel_w * kB;
  ParallelFor(run_pool, planes * chunks, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t plane = t / chunks, chunk = t % chunks, cb = plane % g_.blocks;
      const int64_t oh0 = chunk * rows_per_chunk, oh1 = std::min(oh, oh0 + rows_per_chunk);
      DepthwiseNchwcPlane p;
      p.x = x + plane * in_plane;
      p.w = w + cb * w_block;
      p.bias = bias ? bias + cb * kB : nullptr;
      p.residual = residual ? residual + plane * out_plane : nullptr;
      p.y = y + plane * out_plane;
      isa_->rows(g_, p, act_, oh0, oh1);
    }
  });
}

namespace {

class DepthwiseConvNchwcKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;

 private:
  bool has_bias_ = false, has_residual_ = false;
  DepthwiseConvNchwc conv_;
};

Status DepthwiseConvNchwcKernel::Prepare(const KernelSetup& setup) {
  constexpr int kB = kNchwcBlock;
  RETURN_IF_ERROR(CheckNode(setup, 2, 4, 1, 1));  // X, W, optional B and R; Y
  const TensorInfo& x = setup.inputs[0];
  const TensorInfo& w = setup.inputs[1];
  for (const TensorInfo* t : {&x, &w})
    if (t->dtype != DType::kFloat32)
      return setup.Invalid(std::string(t == &x ? "X" : "W") + " has dtype " + DTypeName(t->dtype) +
                           ", expected float32");
  if (x.rank() != 5 || x.shape[4] != kB)
    return setup.Invalid("X has shape " + ShapeToString(x.shape) + ", expected [N, C/8, H, W, 8]");
  const int64_t blocks = x.shape[1];
  if (w.rank() != 4 || w.shape[0] != blocks || w.shape[3] != kB)
    return setup.Invalid("W has shape " + ShapeToString(w.shape) + ", expected [" + std::to_string(blocks) +
                         ", KH, KW, 8]");
  int64_t group = blocks * kB;
  RETURN_IF_ERROR(ReadIntAttr(setup, "group", group, &group));
  if (group != blocks * kB)
    return setup.Invalid("group " + std::to_string(group) + ", expected the channel count " +
                         std::to_string(blocks * kB));
  const std::vector<int64_t> kernel = {w.shape[1], w.shape[2]};
  for (int64_t d : kernel)
    if (d < 1) return setup.Invalid("W has an empty kernel dim: " + ShapeToString(w.shape));
  WindowGeometry wg;
  RETURN_IF_ERROR(ParseWindowGeometry(setup, {x.shape[2], x.shape[3]}, &kernel, WindowOptions(), &wg));
  has_bias_ = setup.HasInput(2);
  if (has_bias_) {
    const TensorInfo& b = setup.inputs[2];
    if (b.dtype != DType::kFloat32 || b.shape != Shape{blocks * kB})
      return setup.Invalid(std::string("B has dtype ") + DTypeName(b.dtype) + " and shape " + ShapeToString(b.shape) +
                           ", expected float32 [" + std::to_string(blocks * kB) + "]");
  }
  const Shape out_shape = {x.shape[0], blocks, wg.out[1], wg.out[2], kB};
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kFloat32, out_shape));
  Activation act;
  RETURN_IF_ERROR(ParseActivation(setup, &act));
  RETURN_IF_ERROR(ParseResidual(setup, 3, DType::kFloat32, out_shape, &has_residual_));
  DepthwiseNchwcGeometry g;
  g.batch = x.shape[0];
  g.blocks = blocks;
  g.in_h = wg.in[1];
  g.in_w = wg.in[2];
  g.out_h = wg.out[1];
  g.out_w = wg.out[2];
  g.kernel_h = wg.kernel[1];
  g.kernel_w = wg.kernel[2];
  g.stride_h = wg.stride[1];
  g.stride_w = wg.stride[2];
  g.dilation_h = wg.dilation[1];
  g.dilation_w = wg.dilation[2];
  g.pad_top = wg.pad_begin[1];
  g.pad_left = wg.pad_begin[2];
  conv_ = DepthwiseConvNchwc(g, act);
  return Status::Ok();
}

Status DepthwiseConvNchwcKernel::Run(const KernelArgs& args) const {
  conv_.Run(args.in<float>(0), args.in<float>(1), has_bias_ ? args.in<float>(2) : nullptr,
            has_residual_ ? args.in<float>(3) : nullptr, args.out<float>(0), args.pool);
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeDepthwiseConvNchwcKernel() { return std::make_unique<DepthwiseConvNchwcKernel>(); }

}  // namespace nn
}  // namespace loom
