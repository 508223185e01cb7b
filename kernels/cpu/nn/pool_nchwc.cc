// loom.MaxPoolNchwc and loom.AveragePoolNchwc (pool_nchwc.h): Prepare checks
// the blocked shapes and ONNX's 2-D window attributes and builds the plan;
// Run splits the output rows over the threads. Also the plan, the generic
// path and the choice of the process's path.
#include "kernels/cpu/nn/pool_nchwc.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/pool_f32_isa.h"

// The generic path's 8-float vectors pass by value between this file's
// internal functions only: GCC's note that they change the ABI without AVX
// does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
#include "kernels/cpu/nn/pool_nchwc_impl.h"

namespace loom {
namespace nn {
namespace {

// Eight floats with GCC's vector extensions: two SSE2 registers on x86-64,
// two NEON registers on ARM, scalar code where the ISA has no vectors.
typedef float Float8 __attribute__((vector_size(32)));
typedef float Float4 __attribute__((vector_size(16)));
struct GenericTag {};

constexpr PoolNchwcIsa kGeneric = pool_nchwc::PoolNchwcImpl<Float8, Float4, GenericTag>::MakeIsa("generic");

const PoolNchwcIsa& ChooseIsa() {
  // The NCHW pooling kernels' path (the GEMM's choice, LOOM_CPU_ISA included);
  // AVX-512 runs the AVX2 code, as the blocked layout's vectors are 8 floats.
  const char* want = ActivePoolF32Isa().name;
  if (std::strcmp(want, "avx2") == 0 || std::strcmp(want, "avx512") == 0)
    for (const PoolNchwcIsa* isa : SupportedPoolNchwcIsas())
      if (std::strcmp(isa->name, "avx2") == 0) return *isa;
  return kGeneric;
}

// Per output index along one axis: taps inside the input [lo, hi) and the
// divisor factor (taps inside the padded extent with count_include_pad).
void AxisTables(const WindowGeometry& g, int a, bool count_include_pad, std::vector<int64_t>* lo_out,
                std::vector<int64_t>* hi_out, std::vector<float>* div_out) {
  lo_out->resize(g.out[a]);
  hi_out->resize(g.out[a]);
  div_out->resize(g.out[a]);
  for (int64_t o = 0; o < g.out[a]; ++o) {
    const WindowTaps t = g.Taps(a, o);
    const int64_t count = count_include_pad ? t.padded : t.hi - t.lo;
    (*lo_out)[o] = t.lo;
    (*hi_out)[o] = t.hi;
    (*div_out)[o] = count > 0 ? static_cast<float>(count) : 1.f;
  }
}

enum class PoolKind { kMax, kAverage };

const char* OpName(PoolKind kind) { return kind == PoolKind::kMax ? "MaxPoolNchwc" : "AveragePoolNchwc"; }

// Checks X and the attributes; fills the geometry and the output shape.
Status ParseNchwcPool(const KernelSetup& setup, PoolKind kind, WindowGeometry* g, Shape* out_shape,
                      bool* count_include_pad) {
  if (setup.inputs.size() != 1 || !setup.HasInput(0))
    return setup.Invalid("expects 1 input, got " + std::to_string(setup.inputs.size()));
  const TensorInfo& x = setup.inputs[0];
  if (x.dtype != DType::kFloat32)
    return setup.Invalid(std::string("X has dtype ") + DTypeName(x.dtype) + ", expected float32");
  if (x.rank() != 5)
    return setup.Invalid("X has " + std::to_string(x.rank()) + " dims, expected 5 ([N, C/8, H, W, 8])");
  if (x.shape[4] != kNchwcBlock)
    return setup.Invalid("X has shape " + ShapeToString(x.shape) + ": last dim " + std::to_string(x.shape[4]) +
                         ", expected 8 (the channel block)");
  RETURN_IF_ERROR(CheckShape(setup, "X", x.shape));
  std::string auto_pad;
  RETURN_IF_ERROR(ReadStringAttr(setup, "auto_pad", "NOTSET", &auto_pad));
  if (auto_pad != "NOTSET")
    return setup.Unsupported("attribute auto_pad '" + auto_pad + "' (only NOTSET, explicit pads)");
  int64_t v = 0;
  if (kind == PoolKind::kMax) {
    RETURN_IF_ERROR(ReadIntAttr(setup, "storage_order", 0, &v));  // only Indices would depend on it
    if (v != 0 && v != 1) return setup.Invalid("storage_order " + std::to_string(v) + " is not 0 or 1");
  } else {
    RETURN_IF_ERROR(ReadIntAttr(setup, "count_include_pad", 0, &v));
    if (v != 0 && v != 1) return setup.Invalid("count_include_pad " + std::to_string(v) + " is not 0 or 1");
  }
  *count_include_pad = v != 0 && kind == PoolKind::kAverage;
  if (!setup.attrs.Has("kernel_shape")) return setup.Invalid("missing attribute kernel_shape");
  std::vector<int64_t> kernel;
  RETURN_IF_ERROR(ReadIntsAttr(setup, "kernel_shape", &kernel));
  if (kernel.size() != 2)
    return setup.Invalid("kernel_shape " + IntsToString(kernel) + " has " + std::to_string(kernel.size()) +
                         " values, expected 2");
  WindowOptions opts;
  opts.allow_ceil_mode = true;
  RETURN_IF_ERROR(ParseWindowGeometry(setup, {x.shape[2], x.shape[3]}, nullptr, opts, g));
  *out_shape = {x.shape[0], x.shape[1], g->out[1], g->out[2], kNchwcBlock};
  return Status::Ok();
}

class PoolNchwcKernel final : public Kernel {
 public:
  explicit PoolNchwcKernel(PoolKind kind) : kind_(kind) {}

  Status Prepare(const KernelSetup& setup) override {
    WindowGeometry g;
    Shape out_shape;
    bool count_include_pad = false;
    RETURN_IF_ERROR(ParseNchwcPool(setup, kind_, &g, &out_shape, &count_include_pad));
    if (setup.outputs.size() != 1)
      return setup.Invalid(std::string(OpName(kind_)) + " has 1 output (no Indices), got " +
                           std::to_string(setup.outputs.size()));
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kFloat32, out_shape));
    plan_ = MakePoolNchwcPlan(g, kind_ == PoolKind::kMax, count_include_pad);
    planes_ = out_shape[0] * out_shape[1];
    isa_ = &ActivePoolNchwcIsa();
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    float* y = args.out<float>(0);
    // Rows per task: about 16K vector loads, so small problems run serially.
    constexpr int64_t kMinLoadsPerTask = 16384;
    const int64_t loads_per_row = plan_.out_w * plan_.kernel_h * plan_.kernel_w;
    const int64_t grain = loads_per_row > 0 ? (kMinLoadsPerTask + loads_per_row - 1) / loads_per_row : 1;
    ParallelFor(args.pool, planes_ * plan_.out_h, grain,
                [&](int64_t begin, int64_t end, int) { isa_->rows(plan_, x, y, begin, end); });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    WindowGeometry g;
    Shape out_shape;
    bool count_include_pad = false;
    RETURN_IF_ERROR(ParseNchwcPool(setup, kind_, &g, &out_shape, &count_include_pad));
    *shapes = {out_shape};
    return Status::Ok();
  }

 private:
  PoolKind kind_;
  PoolNchwcPlan plan_;
  int64_t planes_ = 0;
  const PoolNchwcIsa* isa_ = nullptr;
};

}  // namespace

PoolNchwcPlan MakePoolNchwcPlan(const WindowGeometry& g, bool max, bool count_include_pad) {
  PoolNchwcPlan p;
  p.max = max;
  // The NCHW kernel's choice between its pool_f32 path and its generic loop.
  Pool2dF32Plan nchw_plan;
  p.column_order = MakePool2dF32Plan(g, max, count_include_pad, &nchw_plan);
  p.in_h = g.in[1];
  p.in_w = g.in[2];
  p.out_h = g.out[1];
  p.out_w = g.out[2];
  p.kernel_h = g.kernel[1];
  p.kernel_w = g.kernel[2];
  p.stride_h = g.stride[1];
  p.stride_w = g.stride[2];
  p.dilation_h = g.dilation[1];
  p.dilation_w = g.dilation[2];
  p.pad_top = g.pad_begin[1];
  p.pad_left = g.pad_begin[2];
  AxisTables(g, 1, count_include_pad, &p.row_lo, &p.row_hi, &p.row_div);
  AxisTables(g, 2, count_include_pad, &p.col_lo, &p.col_hi, &p.col_div);
  // Windows slide right, so the interior columns are one range.
  p.interior_lo = p.interior_hi = p.out_w;
  for (int64_t o = 0; o < p.out_w; ++o) {
    if (p.col_lo[o] != 0 || p.col_hi[o] != p.kernel_w) continue;
    if (p.interior_lo == p.out_w) p.interior_lo = o;
    p.interior_hi = o + 1;
  }
  return p;
}

const PoolNchwcIsa& ActivePoolNchwcIsa() {
  static const PoolNchwcIsa& isa = ChooseIsa();
  return isa;
}

std::vector<const PoolNchwcIsa*> SupportedPoolNchwcIsas() {
  std::vector<const PoolNchwcIsa*> isas = {&kGeneric};
#if defined(__x86_64__)
  if (const PoolNchwcIsa* avx2 = PoolNchwcIsaAvx2()) isas.push_back(avx2);
#endif
  return isas;
}

std::unique_ptr<Kernel> MakeMaxPoolNchwcKernel() { return std::make_unique<PoolNchwcKernel>(PoolKind::kMax); }
std::unique_ptr<Kernel> MakeAveragePoolNchwcKernel() { return std::make_unique<PoolNchwcKernel>(PoolKind::kAverage); }

}  // namespace nn
}  // namespace loom
