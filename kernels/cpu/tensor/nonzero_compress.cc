// NonZero and Compress: ops whose output size depends on the data. The plan
// fixes the output shapes, so Run first counts what the data selects and
// returns InvalidArgument if it differs from the planned count; only then does
// it write. With constant data (or condition), Prepare and InferOutputShapes
// compute the exact shape.
//   NonZero:  int64 [max(rank, 1), nnz] coordinates of the nonzero elements in
//             row-major order (floats compare by value, so -0.0 is zero).
//   Compress: the slices along `axis` (or the elements of the flattened input
//             without axis) whose condition is true; a condition shorter than
//             the axis drops the rest.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

// Bits that must be nonzero for a nonzero value: all but the sign for floats.
uint64_t NonZeroMask(DType t) {
  switch (t) {
    case DType::kFloat32:
      return 0x7fffffffu;
    case DType::kFloat64:
      return 0x7fffffffffffffffu;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 0x7fffu;
    default:
      return ~uint64_t{0};
  }
}

int64_t CountNonZero(const void* data, DType t, int64_t n) {
  int64_t count = 0;
  DispatchBySize(DTypeSize(t), [&](auto tag) {
    using U = typename decltype(tag)::type;
    const U* p = static_cast<const U*>(data);
    const U mask = static_cast<U>(NonZeroMask(t));
    for (int64_t i = 0; i < n; ++i) count += (p[i] & mask) != 0;
  });
  return count;
}

class NonZeroKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    const TensorInfo& x = s.inputs[0];
    shape_ = x.shape;
    rows_ = x.rank() > 0 ? x.rank() : 1;
    dtype_ = x.dtype;
    count_ = x.num_elements();
    const TensorInfo& o = s.outputs[0];
    const int64_t nnz = x.const_data ? CountNonZero(x.const_data, dtype_, count_) : (o.rank() == 2 ? o.shape[1] : -1);
    RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt64, {rows_, nnz}));
    nnz_ = nnz;
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    const TensorInfo& x = s.inputs[0];
    if (!x.const_data) return s.Unsupported("NonZero of non-constant data");
    *shapes = {{x.rank() > 0 ? x.rank() : 1, CountNonZero(x.const_data, x.dtype, x.num_elements())}};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const int64_t nnz = CountNonZero(args.inputs[0], dtype_, count_);
    if (nnz != nnz_)
      return Status::InvalidArgument("data has " + std::to_string(nnz) + " nonzero elements, the plan expects " +
                                     std::to_string(nnz_));
    int64_t* out = static_cast<int64_t*>(args.outputs[0]);
    const int rank = static_cast<int>(shape_.size());
    int64_t idx[kMaxRank] = {};
    int64_t j = 0;
    DispatchBySize(DTypeSize(dtype_), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* p = static_cast<const U*>(args.inputs[0]);
      const U mask = static_cast<U>(NonZeroMask(dtype_));
      for (int64_t i = 0; i < count_; ++i) {
        if ((p[i] & mask) != 0) {
          if (rank == 0) out[j] = 0;
          for (int d = 0; d < rank; ++d) out[d * nnz_ + j] = idx[d];
          ++j;
        }
        for (int d = rank - 1; d >= 0; --d) {
          if (++idx[d] < shape_[static_cast<size_t>(d)]) break;
          idx[d] = 0;
        }
      }
    });
    return Status::Ok();
  }

 private:
  Shape shape_;
  int64_t rows_ = 1, count_ = 0, nnz_ = 0;
  DType dtype_ = DType::kFloat32;
};

class CompressKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(ReadNode(s));
    const TensorInfo& x = s.inputs[0];
    const TensorInfo& o = s.outputs[0];
    int64_t selected = -1;
    if (s.inputs[1].const_data) {
      selected = CountTrue(s.inputs[1].const_data);
    } else if (o.rank() == static_cast<int>(OutShape(x.shape, 0).size())) {
      selected = o.shape[static_cast<size_t>(has_axis_ ? axis_ : 0)];
    }
    RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, OutShape(x.shape, selected)));
    selected_ = selected;
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    CompressKernel k;
    RETURN_IF_ERROR(k.ReadNode(s));
    if (!s.inputs[1].const_data) return s.Unsupported("Compress with a non-constant condition");
    *shapes = {k.OutShape(s.inputs[0].shape, k.CountTrue(s.inputs[1].const_data))};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const uint8_t* cond = static_cast<const uint8_t*>(args.inputs[1]);
    const int64_t selected = CountTrue(cond);
    if (selected != selected_)
      return Status::InvalidArgument("condition selects " + std::to_string(selected) + " entries, the plan expects " +
                                     std::to_string(selected_));
    const char* src = static_cast<const char*>(args.inputs[0]);
    char* dst = static_cast<char*>(args.outputs[0]);
    const size_t block = static_cast<size_t>(inner_) * elem_size_;
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t j = 0; j < usable_; ++j) {
        if (!cond[j]) continue;
        std::memcpy(dst, src + static_cast<size_t>(o * dim_ + j) * block, block);
        dst += block;
      }
    }
    return Status::Ok();
  }

 private:
  Status ReadNode(const KernelSetup& s) {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckInputDType(s, 1, DType::kBool, "condition"));
    if (s.inputs[1].rank() != 1)
      return s.Invalid("input 'condition' has shape " + ShapeToString(s.inputs[1].shape) + ", expected 1-D");
    const Shape& in = s.inputs[0].shape;
    has_axis_ = s.attrs.Has("axis");
    if (has_axis_) {
      if (in.empty()) return s.Invalid("attribute 'axis' given for a scalar input");
      RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 0, static_cast<int64_t>(in.size()), &axis_));
      outer_ = DimProduct(in, 0, static_cast<size_t>(axis_));
      dim_ = in[static_cast<size_t>(axis_)];
      inner_ = DimProduct(in, static_cast<size_t>(axis_) + 1, in.size());
    } else {
      outer_ = 1;
      dim_ = NumElements(in);
      inner_ = 1;
    }
    const int64_t len = s.inputs[1].num_elements();
    usable_ = len < dim_ ? len : dim_;
    elem_size_ = DTypeSize(s.inputs[0].dtype);
    return Status::Ok();
  }
  int64_t CountTrue(const void* cond) const {
    const uint8_t* c = static_cast<const uint8_t*>(cond);
    int64_t n = 0;
    for (int64_t j = 0; j < usable_; ++j) n += c[j] != 0;
    return n;
  }
  Shape OutShape(const Shape& in, int64_t selected) const {
    if (!has_axis_) return {selected};
    Shape out = in;
    out[static_cast<size_t>(axis_)] = selected;
    return out;
  }

  bool has_axis_ = false;
  int axis_ = 0;
  int64_t outer_ = 0, dim_ = 0, inner_ = 0, usable_ = 0, selected_ = 0;
  size_t elem_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeNonZeroKernel() { return std::make_unique<NonZeroKernel>(); }
std::unique_ptr<Kernel> MakeCompressKernel() { return std::make_unique<CompressKernel>(); }

}  // namespace tensor
}  // namespace loom
