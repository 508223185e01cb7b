// MatMulInteger: Y = (A - a_zero_point) x (B - b_zero_point) in int32, A and B
// uint8 or int8 (independently), with MatMul's numpy semantics (1-D operands,
// broadcast batch dims). a_zero_point is per tensor or per row of A (M
// values), b_zero_point per tensor or per column of B (N values).
//
// B is stored transposed as int16 with its zero point subtracted, Bt[n][k],
// so every output is DotI16 of an A row (converted to int16 per thread) and a
// Bt row. A constant B with a constant (or absent) zero point is converted
// once in Prepare; otherwise each GEMM converts its B into scratch. When B has
// no batch of its own, A's batches are folded into M (one GEMM).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/cpu/quant/int_dot.h"

namespace loom {
namespace quant {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

// Number of values of a MatMulInteger zero point: 1 (per tensor) or `len`
// (per row of A when `per_row`, per column of B otherwise). Besides a scalar
// and a 1-D tensor, the spec's N-D forms [..., M, 1] (A) and [..., 1, N] (B)
// are accepted when their leading dims are 1.
Status ZeroPointCount(const KernelSetup& s, size_t index, const char* name, int64_t len, bool per_row,
                      int64_t* count) {
  const Shape& shape = s.inputs[index].shape;
  const std::string expected = std::string("expected a scalar or ") + (per_row ? "[M] = [" : "[N] = [") +
                               std::to_string(len) + (per_row ? "] (per row of A)" : "] (per column of B)");
  int64_t vec = 1;
  if (shape.size() <= 1) {
    vec = shape.empty() ? 1 : shape[0];
  } else {
    const size_t r = shape.size();
    const int64_t one_dim = per_row ? shape[r - 1] : shape[r - 2];
    vec = per_row ? shape[r - 2] : shape[r - 1];
    if (one_dim != 1) return s.Invalid(std::string(name) + " has shape " + ShapeToString(shape) + ", " + expected);
    for (size_t i = 0; i + 2 < r; ++i)
      if (shape[i] != 1)
        return s.Unsupported(std::string(name) + " of shape " + ShapeToString(shape) + " (per-batch zero points)");
  }
  if (vec != 1 && vec != len)
    return s.Invalid(std::string(name) + " has shape " + ShapeToString(shape) + ", " + expected);
  *count = vec;
  return Status::Ok();
}

class MatMulIntegerKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return (packed_bt_.empty() ? bt_bytes_ : 0) + static_cast<size_t>(num_threads) * row_bytes_;
  }
  Status Run(const KernelArgs& args) const override;

 private:
  // Bt[n][k] = B[k][n] - b_zero_point[n] for columns [n0, n1).
  void TransposeB(const void* b, const void* b_zp, int64_t n0, int64_t n1, int16_t* bt) const;

  bool a_signed_ = false, b_signed_ = false;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  int64_t a_zp_count_ = 0, b_zp_count_ = 0;  // 0: absent, 1: per tensor, else per row / column
  // One entry per GEMM: element offsets of its A and B matrices (the output
  // of GEMM i starts at i * m_ * fold_ * n_).
  std::vector<int64_t> a_offset_, b_offset_;
  int64_t fold_ = 1;  // A batches folded into M (B shared by all of them)
  std::vector<int16_t> packed_bt_;  // every B matrix transposed, when B is constant
  size_t bt_bytes_ = 0;   // scratch for one transposed B
  size_t row_bytes_ = 0;  // scratch per thread for one int16 A row
};

Status MatMulIntegerKernel::Prepare(const KernelSetup& setup) {
  RETURN_IF_ERROR(CheckNode(setup, 2, 4, 1, 1));
  const TensorInfo& a = setup.inputs[0];
  const TensorInfo& b = setup.inputs[1];
  RETURN_IF_ERROR(CheckInt8Operand(setup, 0, "A"));
  RETURN_IF_ERROR(CheckInt8Operand(setup, 1, "B"));
  a_signed_ = a.dtype == DType::kInt8;
  b_signed_ = b.dtype == DType::kInt8;
  MatMulShape shape;
  RETURN_IF_ERROR(PlanMatMul(setup, a.shape, b.shape, &shape));
  m_ = shape.m;
  k_ = shape.k;
  n_ = shape.n;
  fold_ = shape.fold;
  a_offset_ = shape.a_offset;
  b_offset_ = shape.b_offset;
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt32, shape.output));

  a_zp_count_ = b_zp_count_ = 0;
  if (setup.HasInput(2)) {
    RETURN_IF_ERROR(CheckZeroPointDType(setup, 2, "a_zero_point", a.dtype, "A"));
    RETURN_IF_ERROR(ZeroPointCount(setup, 2, "a_zero_point", m_, true, &a_zp_count_));
  }
  if (setup.HasInput(3)) {
    RETURN_IF_ERROR(CheckZeroPointDType(setup, 3, "b_zero_point", b.dtype, "B"));
    RETURN_IF_ERROR(ZeroPointCount(setup, 3, "b_zero_point", n_, false, &b_zp_count_));
  }

  bt_bytes_ = AlignUp(static_cast<size_t>(n_ * k_) * sizeof(int16_t));
  row_bytes_ = AlignUp(static_cast<size_t>(k_) * sizeof(int16_t));
  packed_bt_.clear();
  const bool b_zp_const = !setup.HasInput(3) || setup.inputs[3].const_data;
  if (b.const_data && b_zp_const && shape.batches > 0) {
    const int64_t matrices = shape.b_matrices, size = n_ * k_;
    packed_bt_.resize(static_cast<size_t>(matrices * size));
    const void* b_zp = setup.HasInput(3) ? setup.inputs[3].const_data : nullptr;
    const int64_t elem = DTypeSize(b.dtype);
    for (int64_t i = 0; i < matrices; ++i)
      TransposeB(static_cast<const char*>(b.const_data) + i * size * elem, b_zp, 0, n_,
                 packed_bt_.data() + i * size);
  }
  return Status::Ok();
}

void MatMulIntegerKernel::TransposeB(const void* b, const void* b_zp, int64_t n0, int64_t n1, int16_t* bt) const {
  for (int64_t n = n0; n < n1; ++n) {
    const int32_t zp = b_zp_count_ == 0 ? 0 : Load8(b_zp, b_signed_, b_zp_count_ == 1 ? 0 : n);
    int16_t* dst = bt + n * k_;
    for (int64_t k = 0; k < k_; ++k) dst[k] = static_cast<int16_t>(Load8(b, b_signed_, k * n_ + n) - zp);
  }
}

Status MatMulIntegerKernel::Run(const KernelArgs& args) const {
  const char* a = static_cast<const char*>(args.inputs[0]);
  const char* b = static_cast<const char*>(args.inputs[1]);
  const void* a_zp = a_zp_count_ ? args.inputs[2] : nullptr;
  const void* b_zp = b_zp_count_ ? args.inputs[3] : nullptr;
  int32_t* y = args.out<int32_t>(0);
  char* scratch = static_cast<char*>(args.scratch);
  int16_t* bt_scratch = reinterpret_cast<int16_t*>(scratch);
  char* rows_scratch = scratch + (packed_bt_.empty() ? bt_bytes_ : 0);
  const int64_t rows = m_ * fold_, size = n_ * k_;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, size));
  const int64_t a_elem = a_signed_ ? sizeof(int8_t) : sizeof(uint8_t);
  const int64_t b_elem = b_signed_ ? sizeof(int8_t) : sizeof(uint8_t);

  for (size_t t = 0; t < a_offset_.size(); ++t) {
    const int16_t* bt = bt_scratch;
    if (!packed_bt_.empty()) {
      bt = packed_bt_.data() + b_offset_[t];  // b_offset_ is a multiple of size
    } else {
      const char* bm = b + b_offset_[t] * b_elem;
      ParallelFor(args.pool, n_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, k_)),
                  [&](int64_t begin, int64_t end, int) { TransposeB(bm, b_zp, begin, end, bt_scratch); });
    }
    const char* am = a + a_offset_[t] * a_elem;
    int32_t* ym = y + static_cast<int64_t>(t) * rows * n_;
    ParallelFor(args.pool, rows, grain, [&](int64_t begin, int64_t end, int thread) {
      int16_t* arow = reinterpret_cast<int16_t*>(rows_scratch + static_cast<size_t>(thread) * row_bytes_);
      for (int64_t r = begin; r < end; ++r) {
        const int32_t zp = a_zp_count_ == 0 ? 0 : Load8(a_zp, a_signed_, a_zp_count_ == 1 ? 0 : r % m_);
        SubtractZeroPoint(am + r * k_ * a_elem, a_signed_, zp, k_, arow);
        int32_t* out = ym + r * n_;
        for (int64_t n = 0; n < n_; ++n) out[n] = DotI16(arow, bt + n * k_, k_);
      }
    });
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeMatMulIntegerKernel() { return std::make_unique<MatMulIntegerKernel>(); }

}  // namespace quant
}  // namespace loom
