// Clip: y = min(max(x, lo), hi). Bounds come from the `min`/`max` attributes
// (opset < 11, float only) or from optional scalar inputs (opset >= 11), which
// may be constant (read in Prepare) or run-time data (read in Run). An absent
// bound does not clamp. NaN passes through.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {
namespace {

using ClipLoop = void (*)(const void* x, void* y, int64_t n, const void* lo, const void* hi);

template <typename T>
void ClipLoopImpl(const void* xv, void* yv, int64_t n, const void* lo_v, const void* hi_v) {
  T lo = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  T hi = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  if (lo_v) std::memcpy(&lo, lo_v, sizeof(T));
  if (hi_v) std::memcpy(&hi, hi_v, sizeof(T));
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(x[i], lo), hi);
}

class ClipKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    const bool attr_form = setup.opset < 11;
    RETURN_IF_ERROR(CheckNode(setup, 1, attr_form ? 1 : 3, 1, 1));
    const TensorInfo& x = setup.inputs[0];
    loop_ = nullptr;
    VisitType<kNumericTypes>(x.dtype, [&](auto tag) { loop_ = &ClipLoopImpl<decltype(tag)>; });
    if (!loop_) return UnsupportedDType(setup, "input", x.dtype);
    RETURN_IF_ERROR(CheckOutput(setup, 0, x.dtype, x.shape));
    size_ = x.num_elements();
    elem_ = DTypeSize(x.dtype);
    has_bound_[0] = has_bound_[1] = false;
    runtime_bound_[0] = runtime_bound_[1] = false;
    if (attr_form) {
      if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat64) {
        return setup.Unsupported(std::string("dtype ") + DTypeName(x.dtype) + " before opset 11");
      }
      const char* names[2] = {"min", "max"};
      for (int b = 0; b < 2; ++b) {
        if (!setup.attrs.Has(names[b])) continue;
        float v = 0.f;
        RETURN_IF_ERROR(ReadFloatAttr(setup, names[b], 0.f, &v));
        has_bound_[b] = true;
        if (x.dtype == DType::kFloat32) {
          std::memcpy(bound_[b], &v, sizeof(float));
        } else {
          const double d = v;
          std::memcpy(bound_[b], &d, sizeof(double));
        }
      }
      return Status::Ok();
    }
    for (int b = 0; b < 2; ++b) {
      if (!setup.HasInput(1 + b)) continue;
      const TensorInfo& t = setup.inputs[1 + b];
      const char* name = b == 0 ? "min" : "max";
      if (t.dtype != x.dtype) {
        return setup.Invalid(std::string("input ") + name + " has dtype " + DTypeName(t.dtype) + ", expected " +
                             DTypeName(x.dtype));
      }
      if (t.num_elements() != 1) {
        return setup.Invalid(std::string("input ") + name + " has shape " + ShapeToString(t.shape) +
                             ", expected a scalar");
      }
      has_bound_[b] = true;
      if (t.const_data) {
        std::memcpy(bound_[b], t.const_data, elem_);
      } else {
        runtime_bound_[b] = true;
      }
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const void* bounds[2];
    for (int b = 0; b < 2; ++b) {
      bounds[b] = !has_bound_[b] ? nullptr : runtime_bound_[b] ? args.inputs[1 + b] : bound_[b];
    }
    const auto* x = static_cast<const uint8_t*>(args.inputs[0]);
    auto* y = static_cast<uint8_t*>(args.outputs[0]);
    ParallelFor(args.pool, size_, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
      loop_(x + begin * elem_, y + begin * elem_, end - begin, bounds[0], bounds[1]);
    });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    if (!setup.HasInput(0)) return setup.Invalid("missing input");
    shapes->assign(1, setup.inputs[0].shape);
    return Status::Ok();
  }

 private:
  ClipLoop loop_ = nullptr;
  int64_t size_ = 0;
  size_t elem_ = 0;
  bool has_bound_[2] = {false, false};
  bool runtime_bound_[2] = {false, false};
  alignas(8) uint8_t bound_[2][8] = {};
};

}  // namespace

std::unique_ptr<Kernel> NewClipKernel() { return std::make_unique<ClipKernel>(); }

}  // namespace math
}  // namespace loom
