// ArgMax and ArgMin along one axis (int64 indices), with keepdims and
// select_last_index (ties resolve to the last occurrence instead of the
// first). NaN never wins a comparison (except in the first position).
#include <algorithm>
#include <memory>

#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {
namespace {

struct Layout {
  int64_t outer = 1;  // dims before the axis
  int64_t count = 1;  // the axis
  int64_t inner = 1;  // dims after the axis
};

using ArgLoop = void (*)(const void* x, int64_t* y, const Layout& l, int64_t begin, int64_t end);

// Outputs [begin, end) of outer * inner positions.
template <typename T, bool kMax, bool kLast>
void ArgLoopImpl(const void* xv, int64_t* y, const Layout& l, int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(xv);
  for (int64_t o = begin; o < end; ++o) {
    const T* p = x + (o / l.inner) * l.count * l.inner + (o % l.inner);
    T best = p[0];
    int64_t best_i = 0;
    for (int64_t i = 1; i < l.count; ++i) {
      const T v = p[i * l.inner];
      const bool better = kMax ? (kLast ? v >= best : v > best) : (kLast ? v <= best : v < best);
      if (better) {
        best = v;
        best_i = i;
      }
    }
    y[o] = best_i;
  }
}

class ArgMinMaxKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    const bool is_max = setup.op == "ArgMax";
    if (!is_max && setup.op != "ArgMin") return setup.Unsupported("op is not ArgMax or ArgMin");
    RETURN_IF_ERROR(CheckNode(setup, 1, 1, 1, 1));
    Shape out_shape;
    RETURN_IF_ERROR(ComputeShape(setup, &out_shape));
    const TensorInfo& x = setup.inputs[0];
    int64_t last = 0;
    RETURN_IF_ERROR(ReadIntAttr(setup, "select_last_index", 0, &last));
    loop_ = nullptr;
    VisitType<kNumericTypes>(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      if (is_max) {
        loop_ = last ? &ArgLoopImpl<T, true, true> : &ArgLoopImpl<T, true, false>;
      } else {
        loop_ = last ? &ArgLoopImpl<T, false, true> : &ArgLoopImpl<T, false, false>;
      }
    });
    if (!loop_) return UnsupportedDType(setup, "input data", x.dtype);
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt64, out_shape));
    if (layout_.count == 0 && layout_.outer * layout_.inner > 0) {
      return setup.Invalid("cannot take the index of an extreme over an empty axis");
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const int64_t n = layout_.outer * layout_.inner;
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, layout_.count));
    ParallelFor(args.pool, n, grain, [&](int64_t begin, int64_t end, int) {
      loop_(args.inputs[0], args.out<int64_t>(0), layout_, begin, end);
    });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    ArgMinMaxKernel probe;
    if (!setup.HasInput(0)) return setup.Invalid("missing input data");
    Shape out;
    RETURN_IF_ERROR(probe.ComputeShape(setup, &out));
    shapes->assign(1, out);
    return Status::Ok();
  }

 private:
  Status ComputeShape(const KernelSetup& setup, Shape* out) {
    const Shape& in = setup.inputs[0].shape;
    const int rank = static_cast<int>(in.size());
    int64_t keepdims = 1;
    int axis = 0;
    RETURN_IF_ERROR(ReadAxisAttr(setup, "axis", 0, rank, &axis));
    RETURN_IF_ERROR(ReadIntAttr(setup, "keepdims", 1, &keepdims));
    layout_ = Layout();
    out->clear();
    for (int d = 0; d < rank; ++d) {
      if (d < axis) layout_.outer *= in[d];
      if (d > axis) layout_.inner *= in[d];
      if (d == axis) {
        layout_.count = in[d];
        if (keepdims) out->push_back(1);
      } else {
        out->push_back(in[d]);
      }
    }
    return Status::Ok();
  }

  ArgLoop loop_ = nullptr;
  Layout layout_;
};

}  // namespace

std::unique_ptr<Kernel> NewArgMinMaxKernel() { return std::make_unique<ArgMinMaxKernel>(); }

}  // namespace math
}  // namespace loom
