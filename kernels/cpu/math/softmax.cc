// Softmax, LogSoftmax and Hardmax.
//
// Opset >= 13 normalizes along one axis (default -1): the input is viewed as
// [outer, count, inner]. Before opset 13 the input is coerced to 2-D at
// `axis` (default 1): [prod(dims[:axis]), prod(dims[axis:])], normalized per
// row. Both subtract the maximum before exponentiating. Rows (inner == 1)
// are processed contiguously; otherwise blocks of up to kBlock columns are
// processed together so memory is still read row by row. float32 takes
// its maxima, exponentials and scaling from vector_math.h.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "kernels/cpu/math/math_util.h"
#include "kernels/cpu/math/vector_math.h"

namespace loom {
namespace math {
namespace {

enum class Mode { kSoftmax, kLogSoftmax, kHardmax };

struct Layout {
  int64_t outer = 1;
  int64_t count = 1;
  int64_t inner = 1;
};

constexpr int64_t kBlock = 64;

// Normalizes `cols` (<= kBlock) adjacent columns of a [count, stride] block.
template <typename T, Mode kMode>
void NormalizeColumns(const T* x, T* y, int64_t count, int64_t stride, int64_t cols) {
  T best[kBlock];
  T sum[kBlock];
  int64_t arg[kBlock];
  if constexpr (std::is_same_v<T, float> && kMode != Mode::kHardmax) {
    for (int64_t j = 0; j < cols; ++j) {
      best[j] = x[j];
      sum[j] = 0.f;
    }
    for (int64_t r = 1; r < count; ++r) {
      const float* row = x + r * stride;
      for (int64_t j = 0; j < cols; ++j) best[j] = row[j] > best[j] ? row[j] : best[j];
    }
    for (int64_t r = 0; r < count; ++r) {
      const float* in = x + r * stride;
      float* out = y + r * stride;
      for (int64_t j = 0; j < cols; ++j) out[j] = in[j] - best[j];
      vmath::Exp(out, out, cols);
      for (int64_t j = 0; j < cols; ++j) sum[j] += out[j];
    }
    if constexpr (kMode == Mode::kSoftmax) {
      for (int64_t j = 0; j < cols; ++j) sum[j] = 1.f / sum[j];
      for (int64_t r = 0; r < count; ++r) {
        float* out = y + r * stride;
        for (int64_t j = 0; j < cols; ++j) out[j] *= sum[j];
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) sum[j] = std::log(sum[j]);
      for (int64_t r = 0; r < count; ++r) {
        const float* in = x + r * stride;
        float* out = y + r * stride;
        for (int64_t j = 0; j < cols; ++j) out[j] = (in[j] - best[j]) - sum[j];
      }
    }
    return;
  }
  for (int64_t j = 0; j < cols; ++j) {
    best[j] = x[j];
    arg[j] = 0;
    sum[j] = T(0);
  }
  for (int64_t r = 1; r < count; ++r) {
    const T* row = x + r * stride;
    for (int64_t j = 0; j < cols; ++j) {
      if (row[j] > best[j]) {
        best[j] = row[j];
        arg[j] = r;
      }
    }
  }
  if constexpr (kMode == Mode::kHardmax) {
    for (int64_t r = 0; r < count; ++r) {
      T* out = y + r * stride;
      for (int64_t j = 0; j < cols; ++j) out[j] = arg[j] == r ? T(1) : T(0);
    }
    return;
  }
  for (int64_t r = 0; r < count; ++r) {
    const T* in = x + r * stride;
    T* out = y + r * stride;
    for (int64_t j = 0; j < cols; ++j) {
      const T e = std::exp(in[j] - best[j]);
      sum[j] += e;
      if constexpr (kMode == Mode::kSoftmax) out[j] = e;
    }
  }
  for (int64_t r = 0; r < count; ++r) {
    const T* in = x + r * stride;
    T* out = y + r * stride;
    if constexpr (kMode == Mode::kSoftmax) {
      for (int64_t j = 0; j < cols; ++j) out[j] = out[j] / sum[j];
    } else {
      for (int64_t j = 0; j < cols; ++j) out[j] = (in[j] - best[j]) - std::log(sum[j]);
    }
  }
}

// Normalizes one contiguous row of n elements.
template <typename T, Mode kMode>
void NormalizeRow(const T* x, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, float> && kMode != Mode::kHardmax) {
    const float best = vmath::Max(x, n);
    if constexpr (kMode == Mode::kSoftmax) {
      const float sum = vmath::ExpShiftSum(x, y, n, best);
      vmath::ScaleAdd(y, y, n, 1.f / sum, 0.f);
    } else {
      const float log_sum = std::log(vmath::ExpShiftSum(x, nullptr, n, best));
      vmath::ScaleAdd(x, y, n, 1.f, -best);
      vmath::ScaleAdd(y, y, n, 1.f, -log_sum);
    }
    return;
  }
  T best = x[0];
  int64_t arg = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (x[i] > best) {
      best = x[i];
      arg = i;
    }
  }
  if constexpr (kMode == Mode::kHardmax) {
    for (int64_t i = 0; i < n; ++i) y[i] = i == arg ? T(1) : T(0);
  } else if constexpr (kMode == Mode::kSoftmax) {
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) {
      y[i] = std::exp(x[i] - best);
      sum += y[i];
    }
    const T inv = T(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  } else {
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - best);
    const T log_sum = std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - best) - log_sum;
  }
}

using SoftmaxLoop = void (*)(const void* x, void* y, const Layout& l, int64_t begin, int64_t end);

// Tasks [begin, end): rows when inner == 1, else (outer, column block) pairs.
template <typename T, Mode kMode>
void SoftmaxLoopImpl(const void* xv, void* yv, const Layout& l, int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  if (l.inner == 1) {
    for (int64_t o = begin; o < end; ++o) NormalizeRow<T, kMode>(x + o * l.count, y + o * l.count, l.count);
    return;
  }
  const int64_t blocks = (l.inner + kBlock - 1) / kBlock;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t o = t / blocks;
    const int64_t c0 = (t % blocks) * kBlock;
    const int64_t off = o * l.count * l.inner + c0;
    NormalizeColumns<T, kMode>(x + off, y + off, l.count, l.inner, std::min(kBlock, l.inner - c0));
  }
}

class SoftmaxKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    Mode mode;
    if (setup.op == "Softmax") {
      mode = Mode::kSoftmax;
    } else if (setup.op == "LogSoftmax") {
      mode = Mode::kLogSoftmax;
    } else if (setup.op == "Hardmax") {
      mode = Mode::kHardmax;
    } else {
      return setup.Unsupported("op is not Softmax, LogSoftmax or Hardmax");
    }
    RETURN_IF_ERROR(CheckNode(setup, 1, 1, 1, 1));
    const TensorInfo& x = setup.inputs[0];
    loop_ = nullptr;
    VisitType<kFloatTypes>(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      switch (mode) {
        case Mode::kSoftmax:
          loop_ = &SoftmaxLoopImpl<T, Mode::kSoftmax>;
          break;
        case Mode::kLogSoftmax:
          loop_ = &SoftmaxLoopImpl<T, Mode::kLogSoftmax>;
          break;
        case Mode::kHardmax:
          loop_ = &SoftmaxLoopImpl<T, Mode::kHardmax>;
          break;
      }
    });
    if (!loop_) return UnsupportedDType(setup, "input", x.dtype);
    RETURN_IF_ERROR(CheckOutput(setup, 0, x.dtype, x.shape));

    const bool coerce_2d = setup.opset < 13;
    int64_t axis_attr = 0;
    RETURN_IF_ERROR(ReadIntAttr(setup, "axis", coerce_2d ? 1 : -1, &axis_attr));
    const int rank = x.rank();
    layout_ = Layout();
    if (coerce_2d) {
      // The 2-D split point may be anywhere in [0, rank].
      if (axis_attr < -rank || axis_attr > rank) {
        return setup.Invalid("axis " + std::to_string(axis_attr) + " out of range for rank " + std::to_string(rank));
      }
      const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
      for (int d = 0; d < rank; ++d) (d < axis ? layout_.outer : layout_.count) *= x.shape[d];
    } else {
      int axis = 0;
      RETURN_IF_ERROR(ReadAxisAttr(setup, "axis", -1, rank, &axis));
      for (int d = 0; d < rank; ++d) {
        if (d < axis) layout_.outer *= x.shape[d];
        if (d == axis) layout_.count = x.shape[d];
        if (d > axis) layout_.inner *= x.shape[d];
      }
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    if (layout_.count == 0 || layout_.outer == 0 || layout_.inner == 0) return Status::Ok();
    const int64_t blocks = layout_.inner == 1 ? 1 : (layout_.inner + kBlock - 1) / kBlock;
    const int64_t tasks = layout_.outer * blocks;
    const int64_t work = layout_.count * std::min(layout_.inner, kBlock);
    const int64_t grain = std::max<int64_t>(1, (kElementwiseGrain / 4) / work);
    ParallelFor(args.pool, tasks, grain,
                [&](int64_t begin, int64_t end, int) { loop_(args.inputs[0], args.outputs[0], layout_, begin, end); });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    if (!setup.HasInput(0)) return setup.Invalid("missing input");
    shapes->assign(1, setup.inputs[0].shape);
    return Status::Ok();
  }

 private:
  SoftmaxLoop loop_ = nullptr;
  Layout layout_;
};

}  // namespace

std::unique_ptr<Kernel> NewSoftmaxKernel() { return std::make_unique<SoftmaxKernel>(); }

}  // namespace math
}  // namespace loom
