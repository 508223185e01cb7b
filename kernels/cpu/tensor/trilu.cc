// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each
// matrix in the last two dims and zeroes the rest. k is an optional int64
// scalar input, read in Prepare when constant, otherwise in Run. Each row is
// one contiguous kept run and zero fill, so Trilu moves bytes for any dtype.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class TriluKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(Plan(s));
    const TensorInfo& x = s.inputs[0];
    RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, x.shape));
    int64_t upper = 1;
    RETURN_IF_ERROR(ReadIntAttr(s, "upper", 1, &upper));
    upper_ = upper != 0;
    rows_ = x.shape[x.shape.size() - 2];
    cols_ = x.shape.back();
    matrices_ = DimProduct(x.shape, 0, x.shape.size() - 2);
    elem_size_ = DTypeSize(x.dtype);
    if (s.HasInput(1)) {
      k_dtype_ = s.inputs[1].dtype;
      if (s.inputs[1].const_data) {
        k_ = LoadIndex(s.inputs[1].const_data, k_dtype_, 0);
      } else {
        k_runtime_ = true;
      }
    }
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    RETURN_IF_ERROR(Plan(s));
    *shapes = {s.inputs[0].shape};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    int64_t k = k_runtime_ ? LoadIndex(args.inputs[1], k_dtype_, 0) : k_;
    if (k < -rows_ - 1) k = -rows_ - 1;  // beyond these bounds k changes nothing
    if (k > cols_ + 1) k = cols_ + 1;
    const char* src = static_cast<const char*>(args.inputs[0]);
    char* dst = static_cast<char*>(args.outputs[0]);
    const int64_t es = static_cast<int64_t>(elem_size_);
    const int64_t row_bytes = cols_ * es;
    const int64_t total_rows = matrices_ * rows_;
    ParallelFor(args.pool, total_rows, row_bytes >= 4096 ? 1 : 4096 / (row_bytes ? row_bytes : 1),
                [&](int64_t begin, int64_t end, int) {
                  for (int64_t r = begin; r < end; ++r) {
                    const int64_t i = r % rows_;
                    // Kept columns [lo, hi) of row i, clamped to [0, cols].
                    int64_t lo = 0, hi = cols_;
                    if (upper_) {
                      lo = Clamp(i + k);
                    } else {
                      hi = Clamp(i + k + 1);
                    }
                    if (hi < lo) hi = lo;
                    const char* s = src + r * row_bytes;
                    char* d = dst + r * row_bytes;
                    if (lo > 0) std::memset(d, 0, static_cast<size_t>(lo * es));
                    if (hi > lo && d != s) std::memcpy(d + lo * es, s + lo * es, static_cast<size_t>((hi - lo) * es));
                    if (hi < cols_) std::memset(d + hi * es, 0, static_cast<size_t>((cols_ - hi) * es));
                  }
                });
    return Status::Ok();
  }

 private:
  int64_t Clamp(int64_t v) const {
    if (v < 0) return 0;
    return v > cols_ ? cols_ : v;
  }
  static Status Plan(const KernelSetup& s) {
    RETURN_IF_ERROR(CheckNode(s, 1, 2, 1, 1));
    if (s.inputs[0].rank() < 2)
      return s.Invalid("input has shape " + ShapeToString(s.inputs[0].shape) + ", expected rank >= 2");
    if (s.HasInput(1)) {
      RETURN_IF_ERROR(CheckIndexDType(s, 1, "k"));
      RETURN_IF_ERROR(CheckScalarLike(s, 1, "k"));
    }
    return Status::Ok();
  }

  bool upper_ = true;
  int64_t k_ = 0;
  bool k_runtime_ = false;
  DType k_dtype_ = DType::kInt64;
  int64_t rows_ = 0, cols_ = 0, matrices_ = 0;
  size_t elem_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeTriluKernel() { return std::make_unique<TriluKernel>(); }

}  // namespace tensor
}  // namespace loom
