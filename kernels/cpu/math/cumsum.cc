// CumSum along an axis given as a scalar input (constant: resolved in
// Prepare; run-time: read and checked in Run). `exclusive` shifts the sums
// by one element (the first is 0), `reverse` sums from the end. The input is
// viewed as [outer, count, inner]; rows of `inner` elements are accumulated
// elementwise. Integer sums wrap.
#include <algorithm>
#include <memory>

#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {
namespace {

struct Layout {
  int64_t outer = 1;
  int64_t count = 1;
  int64_t inner = 1;
};

using CumSumLoop = void (*)(const void* x, void* y, const Layout& l, bool exclusive, bool reverse, int64_t begin,
                            int64_t end);

// Outer slices [begin, end).
template <typename T>
void CumSumLoopImpl(const void* xv, void* yv, const Layout& l, bool exclusive, bool reverse, int64_t begin,
                    int64_t end) {
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  const int64_t n = l.inner;
  for (int64_t o = begin; o < end; ++o) {
    const T* xs = x + o * l.count * n;
    T* ys = y + o * l.count * n;
    for (int64_t k = 0; k < l.count; ++k) {
      const int64_t r = reverse ? l.count - 1 - k : k;  // row written
      const int64_t prev = reverse ? r + 1 : r - 1;     // previous row in sum order
      T* out = ys + r * n;
      if (k == 0) {
        if (exclusive) {
          for (int64_t i = 0; i < n; ++i) out[i] = T(0);
        } else {
          const T* in = xs + r * n;
          for (int64_t i = 0; i < n; ++i) out[i] = in[i];
        }
        continue;
      }
      const T* last = ys + prev * n;
      const T* in = xs + (exclusive ? prev : r) * n;
      for (int64_t i = 0; i < n; ++i) out[i] = WrapAdd(last[i], in[i]);
    }
  }
}

class CumSumKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 2, 2, 1, 1));
    const TensorInfo& x = setup.inputs[0];
    const TensorInfo& axis = setup.inputs[1];
    loop_ = nullptr;
    VisitType<kNumericTypes>(x.dtype, [&](auto tag) { loop_ = &CumSumLoopImpl<decltype(tag)>; });
    if (!loop_) return UnsupportedDType(setup, "input x", x.dtype);
    RETURN_IF_ERROR(CheckOutput(setup, 0, x.dtype, x.shape));
    if (axis.dtype != DType::kInt32 && axis.dtype != DType::kInt64) {
      return setup.Invalid(std::string("input axis has dtype ") + DTypeName(axis.dtype) + ", expected int32 or int64");
    }
    if (axis.num_elements() != 1 || axis.rank() > 1) {
      return setup.Invalid("input axis has shape " + ShapeToString(axis.shape) + ", expected a scalar");
    }
    int64_t exclusive = 0, reverse = 0;
    RETURN_IF_ERROR(ReadIntAttr(setup, "exclusive", 0, &exclusive));
    RETURN_IF_ERROR(ReadIntAttr(setup, "reverse", 0, &reverse));
    exclusive_ = exclusive != 0;
    reverse_ = reverse != 0;
    axis_dtype_ = axis.dtype;
    shape_ = x.shape;
    if (x.rank() == 0) return setup.Invalid("input x must have rank >= 1");
    runtime_axis_ = axis.const_data == nullptr;
    if (!runtime_axis_) {
      const int64_t a = LoadIndex(axis.const_data, axis.dtype, 0);
      if (!MakeLayout(a, &layout_)) {
        return setup.Invalid("axis " + std::to_string(a) + " out of range for rank " + std::to_string(x.rank()));
      }
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    Layout layout = layout_;
    if (runtime_axis_) {
      const int64_t a = LoadIndex(args.inputs[1], axis_dtype_, 0);
      if (!MakeLayout(a, &layout)) {
        return Status::InvalidArgument("axis " + std::to_string(a) + " out of range for rank " +
                                       std::to_string(shape_.size()));
      }
    }
    if (layout.outer == 0 || layout.count == 0 || layout.inner == 0) return Status::Ok();
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / (layout.count * layout.inner));
    ParallelFor(args.pool, layout.outer, grain, [&](int64_t begin, int64_t end, int) {
      loop_(args.inputs[0], args.outputs[0], layout, exclusive_, reverse_, begin, end);
    });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    if (!setup.HasInput(0)) return setup.Invalid("missing input x");
    shapes->assign(1, setup.inputs[0].shape);
    return Status::Ok();
  }

 private:
  bool MakeLayout(int64_t axis_value, Layout* l) const {
    int64_t axis = 0;
    if (!NormalizeAxis(axis_value, static_cast<int64_t>(shape_.size()), &axis)) return false;
    *l = Layout();
    for (int d = 0; d < static_cast<int>(shape_.size()); ++d) {
      if (d < axis) l->outer *= shape_[d];
      if (d == axis) l->count = shape_[d];
      if (d > axis) l->inner *= shape_[d];
    }
    return true;
  }

  CumSumLoop loop_ = nullptr;
  bool exclusive_ = false;
  bool reverse_ = false;
  bool runtime_axis_ = false;
  DType axis_dtype_ = DType::kInt64;
  Shape shape_;
  Layout layout_;
};

}  // namespace

std::unique_ptr<Kernel> NewCumSumKernel() { return std::make_unique<CumSumKernel>(); }

}  // namespace math
}  // namespace loom
