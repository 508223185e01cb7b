#include "kernels/cpu/quant/int_matmul.h"

#include <string>

#include "kernels/common/matmul_shape.h"

namespace loom {
namespace quant {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

}  // namespace

Status MatMulParamCount(const KernelSetup& s, size_t index, const char* name, int64_t len, bool per_row,
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
        return s.Unsupported(std::string(name) + " of shape " + ShapeToString(shape) + " (per-batch parameters)");
  }
  if (vec != 1 && vec != len)
    return s.Invalid(std::string(name) + " has shape " + ShapeToString(shape) + ", " + expected);
  *count = vec;
  return Status::Ok();
}

Status IntMatMul::Prepare(const KernelSetup& setup, const IntMatMulInputs& inputs, Shape* out_shape) {
  in_ = inputs;
  const TensorInfo& a = setup.inputs[in_.a];
  const TensorInfo& b = setup.inputs[in_.b];
  RETURN_IF_ERROR(CheckInt8Operand(setup, in_.a, "A"));
  RETURN_IF_ERROR(CheckInt8Operand(setup, in_.b, "B"));
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
  *out_shape = shape.output;

  a_zp_count_ = b_zp_count_ = 0;
  const bool has_a_zp = setup.HasInput(in_.a_zero_point), has_b_zp = setup.HasInput(in_.b_zero_point);
  if (has_a_zp) {
    RETURN_IF_ERROR(CheckZeroPointDType(setup, in_.a_zero_point, "a_zero_point", a.dtype, "A"));
    RETURN_IF_ERROR(MatMulParamCount(setup, in_.a_zero_point, "a_zero_point", m_, true, &a_zp_count_));
  }
  if (has_b_zp) {
    RETURN_IF_ERROR(CheckZeroPointDType(setup, in_.b_zero_point, "b_zero_point", b.dtype, "B"));
    RETURN_IF_ERROR(MatMulParamCount(setup, in_.b_zero_point, "b_zero_point", n_, false, &b_zp_count_));
  }

  bt_bytes_ = AlignUp(static_cast<size_t>(n_ * k_) * sizeof(int16_t));
  row_bytes_ = AlignUp(static_cast<size_t>(k_) * sizeof(int16_t));
  packed_bt_.clear();
  const void* b_zp = has_b_zp ? setup.inputs[in_.b_zero_point].const_data : nullptr;
  if (b.const_data && (!has_b_zp || b_zp) && shape.batches > 0) {
    const int64_t matrices = shape.b_matrices, size = n_ * k_;
    packed_bt_.resize(static_cast<size_t>(matrices * size));
    const int64_t elem = DTypeSize(b.dtype);
    for (int64_t i = 0; i < matrices; ++i)
      TransposeB(static_cast<const char*>(b.const_data) + i * size * elem, b_zp, 0, n_,
                 packed_bt_.data() + i * size);
  }
  return Status::Ok();
}

void IntMatMul::TransposeB(const void* b, const void* b_zp, int64_t n0, int64_t n1, int16_t* bt) const {
  for (int64_t n = n0; n < n1; ++n) {
    const int32_t zp = b_zp_count_ == 0 ? 0 : Load8(b_zp, b_signed_, b_zp_count_ == 1 ? 0 : n);
    int16_t* dst = bt + n * k_;
    for (int64_t k = 0; k < k_; ++k) dst[k] = static_cast<int16_t>(Load8(b, b_signed_, k * n_ + n) - zp);
  }
}

const int16_t* IntMatMul::TransposedB(const KernelArgs& args, size_t t, int16_t* scratch) const {
  if (!packed_bt_.empty()) return packed_bt_.data() + b_offset_[t];  // b_offset_ is a multiple of n_ * k_
  const int64_t b_elem = b_signed_ ? sizeof(int8_t) : sizeof(uint8_t);
  const char* bm = static_cast<const char*>(args.inputs[in_.b]) + b_offset_[t] * b_elem;
  const void* b_zp = b_zp_count_ ? args.inputs[in_.b_zero_point] : nullptr;
  ParallelFor(args.pool, n_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, k_)),
              [&](int64_t begin, int64_t end, int) { TransposeB(bm, b_zp, begin, end, scratch); });
  return scratch;
}

void IntMatMul::LoadRow(const KernelArgs& args, size_t t, int64_t r, int16_t* row) const {
  const int64_t a_elem = a_signed_ ? sizeof(int8_t) : sizeof(uint8_t);
  const char* am = static_cast<const char*>(args.inputs[in_.a]) + a_offset_[t] * a_elem;
  const int32_t zp =
      a_zp_count_ == 0 ? 0 : Load8(args.inputs[in_.a_zero_point], a_signed_, a_zp_count_ == 1 ? 0 : r % m_);
  SubtractZeroPoint(am + r * k_ * a_elem, a_signed_, zp, k_, row);
}

}  // namespace quant
}  // namespace loom
