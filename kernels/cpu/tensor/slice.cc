// Slice: opset 1 reads starts/ends/axes from attributes, opset >= 10 from
// inputs (plus optional steps). Per sliced axis, negative starts/ends count
// from the end and are then clamped: to [0, dim] for positive steps, to
// [0, dim - 1] (start) and [-1, dim - 1] (end) for negative steps. The copy is
// a StridedCopy with stride step * input stride from the first selected
// element. When any slicing input is runtime data, Run recomputes the window
// (without allocating) and checks it against the planned output shape.
#include <cstring>

#include "kernels/cpu/tensor/strided_copy.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

// An int32/int64 vector given by pointer (input data or attribute storage).
struct IntList {
  const void* data = nullptr;
  DType dtype = DType::kInt64;
  int64_t size = 0;
  int64_t operator[](int64_t i) const { return LoadIndex(data, dtype, i); }
};

// The selected window of every input dim.
struct Window {
  int64_t start[kMaxRank];
  int64_t step[kMaxRank];
  int64_t count[kMaxRank];
};

// Computes the window; returns nullptr or a description of the problem.
const char* ComputeWindow(const Shape& in, const IntList& starts, const IntList& ends, const IntList* axes,
                          const IntList* steps, Window* w) {
  const int64_t rank = static_cast<int64_t>(in.size());
  for (int64_t d = 0; d < rank; ++d) {
    w->start[d] = 0;
    w->step[d] = 1;
    w->count[d] = in[static_cast<size_t>(d)];
  }
  if (ends.size != starts.size) return "'starts' and 'ends' differ in length";
  if (axes && axes->size != starts.size) return "'axes' and 'starts' differ in length";
  if (steps && steps->size != starts.size) return "'steps' and 'starts' differ in length";
  if (starts.size > rank) return "more slice entries than input dims";
  bool seen[kMaxRank] = {};
  for (int64_t i = 0; i < starts.size; ++i) {
    int64_t axis = i;
    if (axes && !NormalizeAxis((*axes)[i], rank, &axis)) return "an axis is out of range";
    if (seen[axis]) return "an axis repeats";
    seen[axis] = true;
    const int64_t dim = in[static_cast<size_t>(axis)];
    const int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0) return "a step is 0";
    int64_t start = starts[i];
    int64_t end = ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t count = 0;
    if (step > 0) {
      start = start < 0 ? 0 : (start > dim ? dim : start);
      end = end < 0 ? 0 : (end > dim ? dim : end);
      if (end > start) count = (end - start - 1) / step + 1;
    } else {
      start = start < 0 ? 0 : start;
      start = start > dim - 1 ? dim - 1 : start;  // -1 for an empty dim: selects nothing
      end = end < -1 ? -1 : (end > dim - 1 ? dim - 1 : end);
      if (start > end) count = (start - end - 1) / (step == INT64_MIN ? INT64_MAX : -step) + 1;
    }
    w->start[axis] = start;
    w->step[axis] = step;
    w->count[axis] = count;
  }
  return nullptr;
}

class SliceKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(ReadLists(s));
    const Shape& in = s.inputs[0].shape;
    in_shape_ = in;
    in_strides_ = StridesOf(in);
    elem_size_ = DTypeSize(s.inputs[0].dtype);
    if (runtime_) {
      if (s.outputs[0].dtype != s.inputs[0].dtype || s.outputs[0].rank() != s.inputs[0].rank())
        return s.Invalid("output 0 has dtype " + std::string(DTypeName(s.outputs[0].dtype)) + " and shape " +
                         ShapeToString(s.outputs[0].shape) + ", expected " + DTypeName(s.inputs[0].dtype) +
                         " of rank " + std::to_string(s.inputs[0].rank()));
      out_shape_ = s.outputs[0].shape;
      return Status::Ok();
    }
    Window w;
    RETURN_IF_ERROR(Compute(s, &w));
    Shape out(w.count, w.count + in.size());
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out));
    BuildPlan(w, &plan_, &src_offset_);
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    SliceKernel k;
    RETURN_IF_ERROR(k.ReadLists(s));
    if (k.runtime_) return s.Unsupported("Slice with non-constant starts/ends/axes/steps");
    Window w;
    RETURN_IF_ERROR(k.Compute(s, &w));
    *shapes = {Shape(w.count, w.count + s.inputs[0].rank())};
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const char* src = static_cast<const char*>(args.inputs[0]);
    if (!runtime_) {
      plan_.Run(args.pool, src + src_offset_, args.outputs[0]);
      return Status::Ok();
    }
    IntList lists[4];
    for (int i = 0; i < 4; ++i) {
      lists[i] = lists_[i];
      if (lists_[i].data == nullptr && present_[i]) lists[i].data = args.inputs[i + 1];
    }
    Window w;
    const char* error = ComputeWindow(in_shape_, lists[0], lists[1], present_[2] ? &lists[2] : nullptr,
                                      present_[3] ? &lists[3] : nullptr, &w);
    if (error) return Status::InvalidArgument(std::string("runtime slice inputs invalid: ") + error);
    for (size_t d = 0; d < out_shape_.size(); ++d) {
      if (w.count[d] != out_shape_[d])
        return Status::InvalidArgument("runtime slice selects " + std::to_string(w.count[d]) + " entries on axis " +
                                       std::to_string(d) + ", the plan expects " + std::to_string(out_shape_[d]));
    }
    StridedCopy plan;
    int64_t offset = 0;
    BuildPlan(w, &plan, &offset);
    plan.Run(args.pool, src + offset, args.outputs[0]);
    return Status::Ok();
  }

 private:
  // Fills lists_/present_ from attributes (opset < 10) or inputs; constant
  // inputs point at const_data, runtime ones are resolved in Run.
  Status ReadLists(const KernelSetup& s) {
    if (s.opset < 10) {
      RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
      const char* names[3] = {"starts", "ends", "axes"};
      for (int i = 0; i < 3; ++i) {
        bool given = false;
        RETURN_IF_ERROR(ReadIntsAttr(s, names[i], &attr_storage_[i], &given));
        if (!given && i < 2) return s.Invalid(std::string("attribute '") + names[i] + "' is required");
        present_[i] = given;
        lists_[i] = IntList{attr_storage_[i].data(), DType::kInt64, static_cast<int64_t>(attr_storage_[i].size())};
      }
      present_[3] = false;
      return Status::Ok();
    }
    RETURN_IF_ERROR(CheckNode(s, 3, 5, 1, 1));
    const char* names[4] = {"starts", "ends", "axes", "steps"};
    for (size_t i = 0; i < 4; ++i) {
      present_[i] = s.HasInput(i + 1);
      if (!present_[i]) continue;
      const TensorInfo& t = s.inputs[i + 1];
      RETURN_IF_ERROR(CheckIndexDType(s, i + 1, names[i]));
      if (t.rank() != 1)
        return s.Invalid(std::string("input '") + names[i] + "' has shape " + ShapeToString(t.shape) +
                         ", expected 1-D");
      lists_[i] = IntList{t.const_data, t.dtype, t.num_elements()};
      if (!t.const_data) runtime_ = true;
    }
    return Status::Ok();
  }

  Status Compute(const KernelSetup& s, Window* w) const {
    const char* error = ComputeWindow(s.inputs[0].shape, lists_[0], lists_[1], present_[2] ? &lists_[2] : nullptr,
                                      present_[3] ? &lists_[3] : nullptr, w);
    if (error) return s.Invalid(error);
    return Status::Ok();
  }

  void BuildPlan(const Window& w, StridedCopy* plan, int64_t* src_offset) const {
    const int rank = static_cast<int>(in_shape_.size());
    int64_t src_strides[kMaxRank];
    int64_t dst_strides[kMaxRank];
    int64_t offset = 0;
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      src_strides[d] = in_strides_[static_cast<size_t>(d)] * w.step[d];
      dst_strides[d] = stride;
      stride *= w.count[d];
      if (w.count[d] > 0) offset += w.start[d] * in_strides_[static_cast<size_t>(d)];
    }
    plan->Build(rank, w.count, src_strides, dst_strides, elem_size_);
    *src_offset = offset * static_cast<int64_t>(elem_size_);
  }

  IntList lists_[4];  // starts, ends, axes, steps
  bool present_[4] = {};
  std::vector<int64_t> attr_storage_[3];
  bool runtime_ = false;
  Shape in_shape_;
  Shape in_strides_;
  Shape out_shape_;
  size_t elem_size_ = 0;
  StridedCopy plan_;
  int64_t src_offset_ = 0;  // bytes
};

}  // namespace

std::unique_ptr<Kernel> MakeSliceKernel() { return std::make_unique<SliceKernel>(); }

}  // namespace tensor
}  // namespace loom
