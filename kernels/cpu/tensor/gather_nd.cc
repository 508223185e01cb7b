// GatherND with batch_dims b: data [B..., D_b.. D_{r-1}], indices
// [B..., M..., k]. Each k-tuple of the last indices dim selects the slice
// data[batch, i_0, .., i_{k-1}, ...] of S = prod(data dims after b + k)
// elements; out = indices.shape[:-1] + data.shape[b + k:]. Tuples may hold
// negative indices; Run checks them all before copying.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class GatherNDKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    Shape out;
    RETURN_IF_ERROR(Plan(s, &out));
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out));
    const Shape& data = s.inputs[0].shape;
    const Shape& idx = s.inputs[1].shape;
    const size_t b = static_cast<size_t>(batch_dims_);
    k_ = idx.back();
    batches_ = DimProduct(data, 0, b);
    batch_elems_ = DimProduct(data, b, data.size());
    tuples_per_batch_ = DimProduct(idx, b, idx.size() - 1);
    slice_ = DimProduct(data, b + static_cast<size_t>(k_), data.size());
    const Shape strides = StridesOf(data);
    tuple_dims_.assign(data.begin() + static_cast<int64_t>(b), data.begin() + static_cast<int64_t>(b) + k_);
    tuple_strides_.assign(strides.begin() + static_cast<int64_t>(b), strides.begin() + static_cast<int64_t>(b) + k_);
    idx_dtype_ = s.inputs[1].dtype;
    elem_size_ = DTypeSize(s.inputs[0].dtype);
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    GatherNDKernel k;
    Shape out;
    RETURN_IF_ERROR(k.Plan(s, &out));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const int64_t tuples = batches_ * tuples_per_batch_;
    if (tuples == 0 || slice_ == 0) return Status::Ok();
    const void* indices = args.inputs[1];
    for (int64_t t = 0; t < tuples; ++t) {
      for (int64_t j = 0; j < k_; ++j) {
        const int64_t v = LoadIndex(indices, idx_dtype_, t * k_ + j);
        const int64_t dim = tuple_dims_[static_cast<size_t>(j)];
        if (v < -dim || v >= dim)
          return Status::OutOfRange("index " + std::to_string(v) + " at position " + std::to_string(j) + " of tuple " +
                                    std::to_string(t) + " out of range [" + std::to_string(-dim) + ", " +
                                    std::to_string(dim) + ")");
      }
    }
    const char* data = static_cast<const char*>(args.inputs[0]);
    char* out = static_cast<char*>(args.outputs[0]);
    const size_t slice_bytes = static_cast<size_t>(slice_) * elem_size_;
    const int64_t grain = slice_ >= 4096 ? 1 : 4096 / slice_;
    ParallelFor(args.pool, tuples, grain, [&](int64_t begin, int64_t end, int) {
      for (int64_t t = begin; t < end; ++t) {
        int64_t offset = (t / tuples_per_batch_) * batch_elems_;
        for (int64_t j = 0; j < k_; ++j) {
          int64_t v = LoadIndex(indices, idx_dtype_, t * k_ + j);
          if (v < 0) v += tuple_dims_[static_cast<size_t>(j)];
          offset += v * tuple_strides_[static_cast<size_t>(j)];
        }
        std::memcpy(out + static_cast<size_t>(t) * slice_bytes, data + static_cast<size_t>(offset) * elem_size_,
                    slice_bytes);
      }
    });
    return Status::Ok();
  }

 private:
  Status Plan(const KernelSetup& s, Shape* out) {
    RETURN_IF_ERROR(CheckNode(s, 2, 2, 1, 1));
    RETURN_IF_ERROR(CheckIndexDType(s, 1, "indices"));
    const Shape& data = s.inputs[0].shape;
    const Shape& idx = s.inputs[1].shape;
    if (data.empty() || idx.empty())
      return s.Invalid("'data' and 'indices' need rank >= 1, got " + ShapeToString(data) + " and " +
                       ShapeToString(idx));
    int64_t b = 0;
    RETURN_IF_ERROR(ReadIntAttr(s, "batch_dims", 0, &b));
    const int64_t r = static_cast<int64_t>(data.size());
    const int64_t q = static_cast<int64_t>(idx.size());
    if (b < 0 || b >= r || b >= q)
      return s.Invalid("attribute 'batch_dims' = " + std::to_string(b) + " must be in [0, min(rank(data), " +
                       "rank(indices)))");
    const int64_t k = idx.back();
    if (k < 1 || k > r - b)
      return s.Invalid("last dim of 'indices' is " + std::to_string(k) + ", expected 1 to " + std::to_string(r - b));
    for (int64_t d = 0; d < b; ++d) {
      if (data[static_cast<size_t>(d)] != idx[static_cast<size_t>(d)])
        return s.Invalid("batch dim " + std::to_string(d) + " differs: data " + ShapeToString(data) + ", indices " +
                         ShapeToString(idx));
    }
    batch_dims_ = b;
    out->assign(idx.begin(), idx.end() - 1);
    out->insert(out->end(), data.begin() + b + k, data.end());
    if (static_cast<int>(out->size()) > kMaxRank) return s.Unsupported("output rank " + std::to_string(out->size()));
    return Status::Ok();
  }

  int64_t batch_dims_ = 0;
  int64_t k_ = 0, batches_ = 0, batch_elems_ = 0, tuples_per_batch_ = 0, slice_ = 0;
  std::vector<int64_t> tuple_dims_, tuple_strides_;
  DType idx_dtype_ = DType::kInt64;
  size_t elem_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeGatherNDKernel() { return std::make_unique<GatherNDKernel>(); }

}  // namespace tensor
}  // namespace loom
