// Variadic elementwise ops with broadcasting of all inputs: Max, Min, Sum,
// Mean. The output is accumulated pairwise: y = op(x0, x1), then
// y = op(y, xk) for each further input, each step a binary broadcast plan.
// Max and Min propagate NaN; Mean divides the sum by the input count.
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/cpu/math/binary_kernel.h"

namespace loom {
namespace math {
namespace {

struct MaxOp {
  explicit MaxOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};

struct MinOp {
  explicit MinOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return (a < b || a != a) ? a : b;
  }
};

struct SumOp {
  explicit SumOp(const BinaryParams&) {}
  template <typename T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};

using ScaleLoop = void (*)(void* y, int64_t n, int64_t count);

template <typename T>
void DivideLoop(void* yv, int64_t n, int64_t count) {
  T* y = static_cast<T*>(yv);
  const T c = static_cast<T>(count);
  for (int64_t i = 0; i < n; ++i) y[i] = y[i] / c;
}

class VariadicKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    TypeSet types = 0;
    if (setup.op == "Max" || setup.op == "Min") {
      types = kNumericTypes;
    } else if (setup.op == "Sum" || setup.op == "Mean") {
      types = kFloatTypes;
    } else {
      return setup.Unsupported("op is not a variadic elementwise op");
    }
    const size_t n = setup.inputs.size();
    if (n < 1) return setup.Invalid("needs at least one input");
    RETURN_IF_ERROR(CheckNode(setup, n, n, 1, 1));
    const DType dtype = setup.inputs[0].dtype;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < n; ++i) {
      if (setup.inputs[i].dtype != dtype) {
        return setup.Invalid("input " + std::to_string(i) + " has dtype " + DTypeName(setup.inputs[i].dtype) +
                             ", expected " + DTypeName(dtype));
      }
      shapes.push_back(setup.inputs[i].shape);
    }
    if (!InSet(types, dtype)) return UnsupportedDType(setup, "inputs", dtype);
    Shape out_shape;
    if (!BroadcastPlan::BroadcastShapes(shapes, &out_shape)) {
      return setup.Invalid("input shapes do not broadcast");
    }
    RETURN_IF_ERROR(CheckOutput(setup, 0, dtype, out_shape));

    loop_ = nullptr;
    divide_ = nullptr;
    VisitType<kNumericTypes>(dtype, [&](auto tag) {
      using T = decltype(tag);
      if (setup.op == "Max") loop_ = &BinaryLoopImpl<MaxOp, T, T, T>;
      if (setup.op == "Min") loop_ = &BinaryLoopImpl<MinOp, T, T, T>;
      if (setup.op == "Sum" || setup.op == "Mean") loop_ = &BinaryLoopImpl<SumOp, T, T, T>;
      if (setup.op == "Mean") divide_ = &DivideLoop<T>;
    });
    count_ = static_cast<int64_t>(n);
    size_ = NumElements(out_shape);
    elem_ = DTypeSize(dtype);
    plans_.assign(n > 1 ? n - 1 : 0, BroadcastPlan());
    std::string error;
    for (size_t k = 1; k < n; ++k) {
      const Shape& first = k == 1 ? shapes[0] : out_shape;
      if (!plans_[k - 1].Init({first, shapes[k]}, out_shape, &error)) return setup.Invalid(error);
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    auto* y = static_cast<uint8_t*>(args.outputs[0]);
    if (plans_.empty()) {  // one input: copy
      if (size_ > 0) std::memcpy(y, args.inputs[0], static_cast<size_t>(size_) * elem_);
      return Status::Ok();
    }
    for (size_t k = 0; k < plans_.size(); ++k) {
      const BroadcastPlan& plan = plans_[k];
      const auto* a = static_cast<const uint8_t*>(k == 0 ? args.inputs[0] : args.outputs[0]);
      const auto* b = static_cast<const uint8_t*>(args.inputs[k + 1]);
      ParallelFor(args.pool, size_, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
        plan.ForRange(begin, end, [&](int64_t out, const int64_t* in, int64_t n) {
          loop_(a + in[0] * elem_, plan.step(0), b + in[1] * elem_, plan.step(1), y + out * elem_, n, params_);
        });
      });
    }
    if (divide_) {
      ParallelFor(args.pool, size_, kElementwiseGrain,
                  [&](int64_t begin, int64_t end, int) { divide_(y + begin * elem_, end - begin, count_); });
    }
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    std::vector<Shape> in;
    for (const TensorInfo& t : setup.inputs) in.push_back(t.shape);
    Shape out;
    if (in.empty() || !BroadcastPlan::BroadcastShapes(in, &out)) return setup.Invalid("input shapes do not broadcast");
    shapes->assign(1, out);
    return Status::Ok();
  }

 private:
  BinaryLoop loop_ = nullptr;
  ScaleLoop divide_ = nullptr;
  BinaryParams params_;
  std::vector<BroadcastPlan> plans_;
  int64_t count_ = 0;
  int64_t size_ = 0;
  size_t elem_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> NewVariadicKernel() { return std::make_unique<VariadicKernel>(); }

}  // namespace math
}  // namespace loom
