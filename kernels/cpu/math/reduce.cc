// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare.
//
// Axes come from the `axes` attribute, or from the optional second input
// (ReduceSum from opset 13, the others from opset 18), constant or run-time.
// An empty axes list reduces everything, or nothing with
// noop_with_empty_axes=1 (then each element is reduced alone: the op's map
// and finish still apply, e.g. ReduceSumSquare gives x*x). Reducing an empty
// set gives the op's identity: 0 for sums, 1 for products, -inf (or the
// lowest value) for Max, -inf for the log ops, NaN for a float Mean.
//
// Each op is a "reducer": Init, Map (per element), Combine, Finish. Integer
// sums and products wrap; Mean of integers truncates; L2 and the log ops on
// integers are computed in double. ReduceLogSumExp subtracts the maximum
// before exponentiating.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "kernels/cpu/math/reduce_plan.h"

namespace loom {
namespace math {
namespace {

// Wide accumulator for integer means.
template <typename T>
using WideType =
    std::conditional_t<std::is_floating_point_v<T>, T, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T, typename A = T>
struct SumBase {
  using Acc = A;
  static constexpr bool kShift = false;
  static Acc Init() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) { return WrapAdd(a, b); }
};

template <typename T>
struct SumR : SumBase<T> {
  static T Map(T x, T) { return x; }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct MeanR : SumBase<T, WideType<T>> {
  using Acc = WideType<T>;
  static Acc Map(T x, Acc) { return static_cast<Acc>(x); }
  static T Finish(Acc a, int64_t count, Acc) {
    if constexpr (std::is_integral_v<T>) {
      if (count == 0) return T(0);
    }
    return static_cast<T>(a / static_cast<Acc>(count));
  }
};

template <typename T>
struct L1R : SumBase<T> {
  static T Map(T x, T) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);
    } else if constexpr (std::is_signed_v<T>) {
      return x < 0 ? WrapNeg(x) : x;
    } else {
      return x;
    }
  }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct SumSquareR : SumBase<T> {
  static T Map(T x, T) { return WrapMul(x, x); }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct L2R : SumBase<T, ComputeType<T>> {
  using Acc = ComputeType<T>;
  static Acc Map(T x, Acc) { return static_cast<Acc>(x) * static_cast<Acc>(x); }
  static T Finish(Acc a, int64_t, Acc) { return ConvertTo<T>(std::sqrt(a)); }
};

template <typename T>
struct LogSumR : SumBase<T, ComputeType<T>> {
  using Acc = ComputeType<T>;
  static Acc Map(T x, Acc) { return static_cast<Acc>(x); }
  static T Finish(Acc a, int64_t, Acc) { return ConvertTo<T>(std::log(a)); }
};

template <typename T>
struct LogSumExpR : SumBase<T, ComputeType<T>> {
  using Acc = ComputeType<T>;
  static constexpr bool kShift = true;  // Map/Finish take the maximum as shift
  static Acc Map(T x, Acc shift) { return std::exp(static_cast<Acc>(x) - shift); }
  static T Finish(Acc a, int64_t, Acc shift) { return ConvertTo<T>(shift + std::log(a)); }
};

template <typename T>
struct ProdR {
  using Acc = T;
  static constexpr bool kShift = false;
  static T Init() { return T(1); }
  static T Map(T x, T) { return x; }
  static T Combine(T a, T b) { return WrapMul(a, b); }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct MaxR {
  using Acc = T;
  static constexpr bool kShift = false;
  static T Init() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static T Map(T x, T) { return x; }
  static T Combine(T a, T b) { return (a > b || a != a) ? a : b; }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct MinR {
  using Acc = T;
  static constexpr bool kShift = false;
  static T Init() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  static T Map(T x, T) { return x; }
  static T Combine(T a, T b) { return (a < b || a != a) ? a : b; }
  static T Finish(T a, int64_t, T) { return a; }
};

// Reduces n contiguous elements with 8 partial accumulators (vectorizable).
template <typename R, typename T>
typename R::Acc ReduceRun(const T* x, int64_t n, typename R::Acc shift) {
  using Acc = typename R::Acc;
  constexpr int kLanes = 8;
  Acc part[kLanes];
  for (int j = 0; j < kLanes; ++j) part[j] = R::Init();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) part[j] = R::Combine(part[j], R::Map(x[i + j], shift));
  }
  Acc acc = R::Init();
  for (int j = 0; j < kLanes; ++j) acc = R::Combine(acc, part[j]);
  for (; i < n; ++i) acc = R::Combine(acc, R::Map(x[i], shift));
  return acc;
}

// A finite shift for LogSumExp (an infinite or NaN maximum needs none).
template <typename A>
A SafeShift(A max) {
  return std::isfinite(max) ? max : A(0);
}

// Last dim reduced: outputs [begin, end), each over contiguous runs.
template <typename T, typename R>
void ReduceLastDim(const ReducePlan& p, const void* xv, void* yv, int64_t begin, int64_t end) {
  using Acc = typename R::Acc;
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  const int middle = p.num_reduced - 1;
  const int64_t run = p.reduced_dims[middle];
  for (int64_t o = begin; o < end; ++o) {
    const T* base = x + KeptOffset(p, p.num_kept, o);
    Acc shift = Acc(0);
    if constexpr (R::kShift) {
      Acc m = MaxR<Acc>::Init();
      ForEachReducedOffset(p, middle, [&](int64_t off) {
        for (int64_t i = 0; i < run; ++i) m = MaxR<Acc>::Combine(m, static_cast<Acc>(base[off + i]));
      });
      shift = SafeShift(m);
    }
    Acc acc = R::Init();
    ForEachReducedOffset(p, middle, [&](int64_t off) { acc = R::Combine(acc, ReduceRun<R>(base + off, run, shift)); });
    y[o] = R::Finish(acc, p.count, shift);
  }
}

constexpr int64_t kColumnBlock = 256;

// Last dim kept: tasks [begin, end) of (output row, column block).
template <typename T, typename R>
void ReduceKeptDim(const ReducePlan& p, const void* xv, void* yv, int64_t begin, int64_t end) {
  using Acc = typename R::Acc;
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  const int64_t cols = p.kept_dims[p.num_kept - 1];
  const int64_t blocks = (cols + kColumnBlock - 1) / kColumnBlock;
  Acc acc[kColumnBlock];
  Acc shift[kColumnBlock];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t row = t / blocks;
    const int64_t c0 = (t % blocks) * kColumnBlock;
    const int64_t n = std::min(kColumnBlock, cols - c0);
    const T* base = x + KeptOffset(p, p.num_kept - 1, row) + c0;
    for (int64_t j = 0; j < n; ++j) {
      acc[j] = R::Init();
      shift[j] = Acc(0);
    }
    if constexpr (R::kShift) {
      for (int64_t j = 0; j < n; ++j) shift[j] = MaxR<Acc>::Init();
      ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
        const T* in = base + off;
        for (int64_t j = 0; j < n; ++j) shift[j] = MaxR<Acc>::Combine(shift[j], static_cast<Acc>(in[j]));
      });
      for (int64_t j = 0; j < n; ++j) shift[j] = SafeShift(shift[j]);
      ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
        const T* in = base + off;
        for (int64_t j = 0; j < n; ++j) acc[j] = R::Combine(acc[j], R::Map(in[j], shift[j]));
      });
    } else if (n == 8) {
      // Rows of 8 (a channel-blocked tensor's global pooling, [N, C/8, H, W,
      // 8] over H and W): a fixed width the compiler keeps in registers.
      ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
        const T* in = base + off;
        for (int j = 0; j < 8; ++j) acc[j] = R::Combine(acc[j], R::Map(in[j], Acc(0)));
      });
    } else {
      ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
        const T* in = base + off;
        for (int64_t j = 0; j < n; ++j) acc[j] = R::Combine(acc[j], R::Map(in[j], Acc(0)));
      });
    }
    T* out = y + row * cols + c0;
    for (int64_t j = 0; j < n; ++j) out[j] = R::Finish(acc[j], p.count, shift[j]);
  }
}

// Outputs of a reduction over an empty set.
template <typename T, typename R>
void FillEmpty(void* yv, int64_t n) {
  using Acc = typename R::Acc;
  T* y = static_cast<T*>(yv);
  const T v = R::Finish(R::Init(), 0, Acc(0));
  for (int64_t i = 0; i < n; ++i) y[i] = v;
}

using ReduceFn = void (*)(const ReducePlan& p, const void* x, void* y, int64_t begin, int64_t end);
using FillFn = void (*)(void* y, int64_t n);

struct ReduceFns {
  ReduceFn last = nullptr;
  ReduceFn kept = nullptr;
  FillFn fill = nullptr;
};

template <typename T, template <typename> class R>
ReduceFns MakeFns() {
  return {&ReduceLastDim<T, R<T>>, &ReduceKeptDim<T, R<T>>, &FillEmpty<T, R<T>>};
}

template <typename T>
bool SelectFns(const std::string& op, ReduceFns* fns) {
  if (op == "ReduceSum")
    *fns = MakeFns<T, SumR>();
  else if (op == "ReduceMean")
    *fns = MakeFns<T, MeanR>();
  else if (op == "ReduceMax")
    *fns = MakeFns<T, MaxR>();
  else if (op == "ReduceMin")
    *fns = MakeFns<T, MinR>();
  else if (op == "ReduceProd")
    *fns = MakeFns<T, ProdR>();
  else if (op == "ReduceL1")
    *fns = MakeFns<T, L1R>();
  else if (op == "ReduceL2")
    *fns = MakeFns<T, L2R>();
  else if (op == "ReduceLogSum")
    *fns = MakeFns<T, LogSumR>();
  else if (op == "ReduceLogSumExp")
    *fns = MakeFns<T, LogSumExpR>();
  else if (op == "ReduceSumSquare")
    *fns = MakeFns<T, SumSquareR>();
  else
    return false;
  return true;
}

class ReduceKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  Status Run(const KernelArgs& args) const override;
  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override;

 private:
  // Reads keepdims, noop_with_empty_axes and constant axes; sets *axes_known
  // false when the axes are a run-time input.
  Status ReadAxes(const KernelSetup& setup, std::vector<int64_t>* axes, bool* axes_known);
  void Execute(const ReducePlan& plan, const KernelArgs& args) const;

  ReduceFns fns_;
  bool keepdims_ = true;
  bool noop_ = false;
  bool input_form_ = false;
  bool runtime_axes_ = false;
  DType axes_dtype_ = DType::kInt64;
  int64_t num_axes_ = 0;
  int rank_ = 0;
  int64_t in_dims_[kMaxRank] = {};
  Shape out_shape_;
  ReducePlan plan_;
};

Status ReduceKernel::ReadAxes(const KernelSetup& setup, std::vector<int64_t>* axes, bool* axes_known) {
  input_form_ = setup.op == "ReduceSum" ? setup.opset >= 13 : setup.opset >= 18;
  RETURN_IF_ERROR(CheckNode(setup, 1, input_form_ ? 2 : 1, 1, 1));
  int64_t keepdims = 1, noop = 0;
  RETURN_IF_ERROR(ReadIntAttr(setup, "keepdims", 1, &keepdims));
  RETURN_IF_ERROR(ReadIntAttr(setup, "noop_with_empty_axes", 0, &noop));
  keepdims_ = keepdims != 0;
  noop_ = noop != 0;
  *axes_known = true;
  axes->clear();
  if (!input_form_) {
    const Attribute* a = setup.attrs.Find("axes");
    if (a && a->kind != Attribute::Kind::kInts) return setup.Invalid("attribute axes is not a list of ints");
    if (a) *axes = a->ints;
    return Status::Ok();
  }
  if (setup.attrs.Has("axes")) return setup.Invalid("attribute axes is not allowed from this opset; use input axes");
  if (!setup.HasInput(1)) return Status::Ok();
  const TensorInfo& t = setup.inputs[1];
  if (t.dtype != DType::kInt64 && t.dtype != DType::kInt32) {
    return setup.Invalid(std::string("input axes has dtype ") + DTypeName(t.dtype) + ", expected int64");
  }
  if (t.rank() > 1) return setup.Invalid("input axes has shape " + ShapeToString(t.shape) + ", expected 1-D");
  axes_dtype_ = t.dtype;
  num_axes_ = t.num_elements();
  if (!t.const_data) {
    *axes_known = num_axes_ == 0;
    return Status::Ok();
  }
  for (int64_t i = 0; i < num_axes_; ++i) axes->push_back(LoadIndex(t.const_data, t.dtype, i));
  return Status::Ok();
}

Status ReduceKernel::Prepare(const KernelSetup& setup) {
  std::vector<int64_t> axes;
  bool axes_known = true;
  RETURN_IF_ERROR(ReadAxes(setup, &axes, &axes_known));
  const TensorInfo& x = setup.inputs[0];
  bool selected = false;
  VisitType<kNumericTypes>(x.dtype, [&](auto tag) { selected = SelectFns<decltype(tag)>(setup.op, &fns_); });
  if (!selected) {
    if (!SelectFns<float>(setup.op, &fns_)) return setup.Unsupported("op is not a reduction");
    return UnsupportedDType(setup, "input data", x.dtype);
  }
  rank_ = x.rank();
  for (int d = 0; d < rank_; ++d) in_dims_[d] = x.shape[d];
  out_shape_ = setup.outputs[0].shape;
  runtime_axes_ = !axes_known;
  if (runtime_axes_) {
    if (setup.outputs[0].dtype != x.dtype) {
      return setup.Invalid(std::string("output has dtype ") + DTypeName(setup.outputs[0].dtype) + ", expected " +
                           DTypeName(x.dtype));
    }
    return Status::Ok();
  }
  bool mask[kMaxRank];
  std::string error;
  if (!AxesToMask(axes.data(), static_cast<int64_t>(axes.size()), rank_, noop_, mask, &error)) {
    return setup.Invalid(error);
  }
  int64_t out_dims[kMaxRank];
  const int out_rank = ReducedShape(in_dims_, rank_, mask, keepdims_, out_dims);
  RETURN_IF_ERROR(CheckOutput(setup, 0, x.dtype, Shape(out_dims, out_dims + out_rank)));
  BuildReducePlan(in_dims_, rank_, mask, &plan_);
  return Status::Ok();
}

void ReduceKernel::Execute(const ReducePlan& p, const KernelArgs& args) const {
  const void* x = args.inputs[0];
  void* y = args.outputs[0];
  if (p.out_size == 0) return;
  if (p.in_size == 0) {
    fns_.fill(y, p.out_size);
    return;
  }
  if (p.last_reduced) {
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, p.count));
    ParallelFor(args.pool, p.out_size, grain, [&](int64_t begin, int64_t end, int) { fns_.last(p, x, y, begin, end); });
  } else {
    const int64_t cols = p.kept_dims[p.num_kept - 1];
    const int64_t blocks = (cols + kColumnBlock - 1) / kColumnBlock;
    const int64_t tasks = (p.out_size / cols) * blocks;
    const int64_t work = std::max<int64_t>(1, p.count * std::min(cols, kColumnBlock));
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / work);
    ParallelFor(args.pool, tasks, grain, [&](int64_t begin, int64_t end, int) { fns_.kept(p, x, y, begin, end); });
  }
}

Status ReduceKernel::Run(const KernelArgs& args) const {
  if (!runtime_axes_) {
    Execute(plan_, args);
    return Status::Ok();
  }
  int64_t axes[kMaxRank];
  if (num_axes_ > rank_) {
    return Status::InvalidArgument(std::to_string(num_axes_) + " axes for rank " + std::to_string(rank_));
  }
  for (int64_t i = 0; i < num_axes_; ++i) axes[i] = LoadIndex(args.inputs[1], axes_dtype_, i);
  bool mask[kMaxRank];
  std::string error;
  if (!AxesToMask(axes, num_axes_, rank_, noop_, mask, &error)) {
    return Status::InvalidArgument("input axes: " + error);
  }
  int64_t out_dims[kMaxRank];
  const int out_rank = ReducedShape(in_dims_, rank_, mask, keepdims_, out_dims);
  bool match = out_rank == static_cast<int>(out_shape_.size());
  for (int d = 0; match && d < out_rank; ++d) match = out_dims[d] == out_shape_[d];
  if (!match) {
    return Status::InvalidArgument("run-time axes give output shape " +
                                   ShapeToString(Shape(out_dims, out_dims + out_rank)) + ", plan has " +
                                   ShapeToString(out_shape_));
  }
  ReducePlan plan;
  BuildReducePlan(in_dims_, rank_, mask, &plan);
  Execute(plan, args);
  return Status::Ok();
}

Status ReduceKernel::InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const {
  ReduceKernel probe;
  std::vector<int64_t> axes;
  bool axes_known = true;
  RETURN_IF_ERROR(probe.ReadAxes(setup, &axes, &axes_known));
  if (!axes_known) return setup.Unsupported("output shape depends on non-constant input axes");
  const Shape& in = setup.inputs[0].shape;
  const int rank = static_cast<int>(in.size());
  if (rank > kMaxRank) return setup.Unsupported("input rank above " + std::to_string(kMaxRank));
  bool mask[kMaxRank];
  std::string error;
  if (!AxesToMask(axes.data(), static_cast<int64_t>(axes.size()), rank, probe.noop_, mask, &error)) {
    return setup.Invalid(error);
  }
  int64_t out_dims[kMaxRank];
  const int out_rank = ReducedShape(in.data(), rank, mask, probe.keepdims_, out_dims);
  shapes->assign(1, Shape(out_dims, out_dims + out_rank));
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> NewReduceKernel() { return std::make_unique<ReduceKernel>(); }

}  // namespace math
}  // namespace loom
