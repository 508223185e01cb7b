// Gather and GatherElements. Indices (int32 or int64) may be negative (counted
// from the end of the axis); Run validates all of them before copying anything
// and reports the first one out of range as OutOfRange.
//   Gather:          out[o, j, i] = data[o, indices[j], i] with o/i the flattened
//                    dims before/after axis: a block copy per index.
//   GatherElements:  out[p] = data[p with p[axis] replaced by indices[p]]; out has
//                    the shape of indices.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {

namespace {

template <typename T>
void CopyBlocks(const char* data, char* out, const void* indices, DType idx_dtype, int64_t begin, int64_t end,
                int64_t n_idx, int64_t dim, int64_t block) {
  // item = o * n_idx + j; copies block elements of type T.
  const T* src = reinterpret_cast<const T*>(data);
  T* dst = reinterpret_cast<T*>(out);
  for (int64_t item = begin; item < end; ++item) {
    const int64_t o = item / n_idx;
    const int64_t j = item - o * n_idx;
    int64_t idx = LoadIndex(indices, idx_dtype, j);
    if (idx < 0) idx += dim;
    const T* s = src + (o * dim + idx) * block;
    T* d = dst + item * block;
    if (block == 1) {
      *d = *s;
    } else {
      std::memcpy(d, s, static_cast<size_t>(block) * sizeof(T));
    }
  }
}

class GatherKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    RETURN_IF_ERROR(Plan(s, &out, &axis_));
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out));
    const Shape& data = s.inputs[0].shape;
    outer_ = DimProduct(data, 0, static_cast<size_t>(axis_));
    dim_ = data[static_cast<size_t>(axis_)];
    inner_ = DimProduct(data, static_cast<size_t>(axis_) + 1, data.size());
    n_idx_ = s.inputs[1].num_elements();
    idx_dtype_ = s.inputs[1].dtype;
    elem_size_ = DTypeSize(s.inputs[0].dtype);
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out;
    int axis = 0;
    RETURN_IF_ERROR(Plan(s, &out, &axis));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (outer_ * inner_ == 0 || n_idx_ == 0) return Status::Ok();
    RETURN_IF_ERROR(FirstBadIndex(args.inputs[1], idx_dtype_, n_idx_, dim_));
    const char* data = static_cast<const char*>(args.inputs[0]);
    char* out = static_cast<char*>(args.outputs[0]);
    const int64_t items = outer_ * n_idx_;
    const int64_t grain = inner_ >= 4096 ? 1 : 4096 / inner_;
    ParallelFor(args.pool, items, grain, [&](int64_t begin, int64_t end, int) {
      switch (elem_size_) {
        case 1:
          CopyBlocks<uint8_t>(data, out, args.inputs[1], idx_dtype_, begin, end, n_idx_, dim_, inner_);
          break;
        case 2:
          CopyBlocks<uint16_t>(data, out, args.inputs[1], idx_dtype_, begin, end, n_idx_, dim_, inner_);
          break;
        case 4:
          CopyBlocks<uint32_t>(data, out, args.inputs[1], idx_dtype_, begin, end, n_idx_, dim_, inner_);
          break;
        default:
          CopyBlocks<uint64_t>(data, out, args.inputs[1], idx_dtype_, begin, end, n_idx_, dim_, inner_);
      }
    });
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, Shape* out, int* axis) {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "indices"));
    const Shape& data = s.inputs[0].shape;
    if (data.empty()) return s.Invalid("input 'data' is a scalar; Gather needs rank >= 1");
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 0, static_cast<int64_t>(data.size()), axis));
    out->assign(data.begin(), data.begin() + *axis);
    out->insert(out->end(), s.inputs[1].shape.begin(), s.inputs[1].shape.end());
    out->insert(out->end(), data.begin() + *axis + 1, data.end());
    if (static_cast<int>(out->size()) > kMaxRank) return s.Unsupported("output rank " + std::to_string(out->size()));
    return Status::Ok();
  }

  int axis_ = 0;
  int64_t outer_ = 0, dim_ = 0, inner_ = 0, n_idx_ = 0;
  DType idx_dtype_ = DType::kInt64;
  size_t elem_size_ = 0;
};

class GatherElementsKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "indices"));
    const TensorInfo& data = s.inputs[0];
    const TensorInfo& idx = s.inputs[1];
    if (data.rank() == 0) return s.Invalid("input 'data' is a scalar; GatherElements needs rank >= 1");
    if (idx.rank() != data.rank())
      return s.Invalid("input 'indices' has rank " + std::to_string(idx.rank()) + ", 'data' has rank " +
                       std::to_string(data.rank()));
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 0, data.rank(), &axis_));
    for (int d = 0; d < data.rank(); ++d) {
      if (d != axis_ && idx.shape[static_cast<size_t>(d)] > data.shape[static_cast<size_t>(d)])
        return s.Invalid("input 'indices' shape " + ShapeToString(idx.shape) + " exceeds 'data' shape " +
                         ShapeToString(data.shape) + " on axis " + std::to_string(d));
    }
    RETURN_IF_ERROR(CheckOutput(s, 0, data.dtype, idx.shape));
    idx_shape_ = idx.shape;
    data_strides_ = StridesOf(data.shape);
    dim_ = data.shape[static_cast<size_t>(axis_)];
    n_idx_ = idx.num_elements();
    idx_dtype_ = idx.dtype;
    elem_size_ = DTypeSize(data.dtype);
    if (n_idx_ > 0 && dim_ == 0) return s.Invalid("gathers from an empty axis");
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (n_idx_ == 0) return Status::Ok();
    RETURN_IF_ERROR(FirstBadIndex(args.inputs[1], idx_dtype_, n_idx_, dim_));
    if (idx_dtype_ == DType::kInt32) return RunTyped<int32_t>(args);
    return RunTyped<int64_t>(args);
  }

 private:
  template <typename I>
  Status RunTyped(const KernelArgs& args) const {
    switch (elem_size_) {
      case 1:
        return RunRows<uint8_t, I>(args);
      case 2:
        return RunRows<uint16_t, I>(args);
      case 4:
        return RunRows<uint32_t, I>(args);
      default:
        return RunRows<uint64_t, I>(args);
    }
  }
  template <typename T, typename I>
  Status RunRows(const KernelArgs& args) const {
    const int rank = static_cast<int>(idx_shape_.size());
    const int64_t row_len = idx_shape_.back();
    const int64_t rows = row_len ? n_idx_ / row_len : 0;
    const T* data = static_cast<const T*>(args.inputs[0]);
    const I* indices = static_cast<const I*>(args.inputs[1]);
    T* out = static_cast<T*>(args.outputs[0]);
    const int64_t dim = dim_;
    const int64_t axis_stride = data_strides_[static_cast<size_t>(axis_)];
    const int axis = axis_;
    const int last = rank - 1;
    const int64_t* shape = idx_shape_.data();
    const int64_t* strides = data_strides_.data();
    ParallelFor(args.pool, rows, row_len >= 4096 ? 1 : 4096 / row_len, [&](int64_t begin, int64_t end, int) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t rem = row;
        int64_t base = 0;
        for (int d = last - 1; d >= 0; --d) {
          const int64_t i = rem % shape[d];
          rem /= shape[d];
          if (d != axis) base += i * strides[d];
        }
        const I* ip = indices + row * row_len;
        T* op = out + row * row_len;
        const int64_t step = axis == last ? 0 : 1;
        const int64_t istride = axis == last ? 1 : axis_stride;
        for (int64_t j = 0; j < row_len; ++j) {
          int64_t v = ip[j];
          if (v < 0) v += dim;
          op[j] = data[base + j * step + v * istride];
        }
      }
    });
    return Status::Ok();
  }

  int axis_ = 0;
  Shape idx_shape_;
  Shape data_strides_;
  int64_t dim_ = 0, n_idx_ = 0;
  DType idx_dtype_ = DType::kInt64;
  size_t elem_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeGatherKernel() { return std::make_unique<GatherKernel>(); }
std::unique_ptr<Kernel> MakeGatherElementsKernel() { return std::make_unique<GatherElementsKernel>(); }

}  // namespace tensor
}  // namespace loom
