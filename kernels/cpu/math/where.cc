// Where(condition, X, Y): X where condition else Y, all three broadcast
// together. Only copies elements, so it handles every fixed-size dtype
// (including bool, float16 and bfloat16) by element width.
#include <cstdint>
#include <memory>

#include "kernels/cpu/math/broadcast.h"
#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {
namespace {

using WhereLoop = void (*)(const uint8_t* c, int sc, const void* x, int sx, const void* y, int sy, void* out,
                           int64_t n);

template <typename T>
void WhereLoopImpl(const uint8_t* c, int sc, const void* xv, int sx, const void* yv, int sy, void* outv, int64_t n) {
  const T* x = static_cast<const T*>(xv);
  const T* y = static_cast<const T*>(yv);
  T* out = static_cast<T*>(outv);
  if (sc && sx && sy) {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? x[i] : y[i];
  } else if (!sc) {  // one condition for the whole run: a copy or a fill
    const T* src = c[0] ? x : y;
    const int s = c[0] ? sx : sy;
    if (s) {
      for (int64_t i = 0; i < n; ++i) out[i] = src[i];
    } else {
      const T v = src[0];
      for (int64_t i = 0; i < n; ++i) out[i] = v;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? x[i * sx] : y[i * sy];
  }
}

class WhereKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 3, 3, 1, 1));
    const TensorInfo& c = setup.inputs[0];
    const TensorInfo& x = setup.inputs[1];
    const TensorInfo& y = setup.inputs[2];
    if (c.dtype != DType::kBool) {
      return setup.Invalid(std::string("input condition has dtype ") + DTypeName(c.dtype) + ", expected bool");
    }
    if (x.dtype != y.dtype) {
      return setup.Invalid(std::string("input Y has dtype ") + DTypeName(y.dtype) + ", expected " + DTypeName(x.dtype) +
                           " like X");
    }
    elem_ = DTypeSize(x.dtype);
    switch (elem_) {
      case 1:
        loop_ = &WhereLoopImpl<uint8_t>;
        break;
      case 2:
        loop_ = &WhereLoopImpl<uint16_t>;
        break;
      case 4:
        loop_ = &WhereLoopImpl<uint32_t>;
        break;
      case 8:
        loop_ = &WhereLoopImpl<uint64_t>;
        break;
      default:
        return UnsupportedDType(setup, "inputs X and Y", x.dtype);
    }
    Shape out_shape;
    if (!BroadcastPlan::BroadcastShapes({c.shape, x.shape, y.shape}, &out_shape)) {
      return setup.Invalid("shapes " + ShapeToString(c.shape) + ", " + ShapeToString(x.shape) + " and " +
                           ShapeToString(y.shape) + " do not broadcast");
    }
    RETURN_IF_ERROR(CheckOutput(setup, 0, x.dtype, out_shape));
    std::string error;
    if (!plan_.Init({c.shape, x.shape, y.shape}, out_shape, &error)) return setup.Invalid(error);
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const auto* c = static_cast<const uint8_t*>(args.inputs[0]);
    const auto* x = static_cast<const uint8_t*>(args.inputs[1]);
    const auto* y = static_cast<const uint8_t*>(args.inputs[2]);
    auto* out = static_cast<uint8_t*>(args.outputs[0]);
    ParallelFor(args.pool, plan_.size(), kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
      plan_.ForRange(begin, end, [&](int64_t o, const int64_t* in, int64_t n) {
        loop_(c + in[0], plan_.step(0), x + in[1] * elem_, plan_.step(1), y + in[2] * elem_, plan_.step(2),
              out + o * elem_, n);
      });
    });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    if (setup.inputs.size() != 3) return setup.Invalid("expected 3 inputs");
    Shape out;
    if (!BroadcastPlan::BroadcastShapes({setup.inputs[0].shape, setup.inputs[1].shape, setup.inputs[2].shape}, &out)) {
      return setup.Invalid("input shapes do not broadcast");
    }
    shapes->assign(1, out);
    return Status::Ok();
  }

 private:
  WhereLoop loop_ = nullptr;
  BroadcastPlan plan_;
  size_t elem_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> NewWhereKernel() { return std::make_unique<WhereKernel>(); }

}  // namespace math
}  // namespace loom
