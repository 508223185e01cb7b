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
// The reducers and their loops over every numeric dtype are in
// reduce_loops.h, instantiated in reduce_fns_*.cc.
#include <algorithm>
#include <memory>
#include <string>

#include "kernels/cpu/math/reduce_loops.h"
#include "kernels/cpu/math/reduce_plan.h"

namespace loom {
namespace math {
namespace {

using reduce::kColumnBlock;
using reduce::ReduceFns;

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
  bool known_op = false;
  if (!reduce::SelectSumReduceFns(setup.op, x.dtype, &fns_, &known_op) &&
      !reduce::SelectOtherReduceFns(setup.op, x.dtype, &fns_, &known_op)) {
    if (!known_op) return setup.Unsupported("op is not a reduction");
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
