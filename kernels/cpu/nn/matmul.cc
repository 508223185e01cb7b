// MatMul with numpy semantics: a 1-D A is promoted to a row [1, K] and a 1-D
// B to a column [K, 1] (the added dim is removed from the output), and the
// batch dims broadcast. float32 runs on the GEMM core: when B has no batch of
// its own, A's batch is folded into M so the whole op is one GEMM, and a
// constant B is packed once in Prepare. float64 uses the double GEMM, the
// integer dtypes a plain loop. Loom's fused activation applies to floats.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/gemm_f32.h"
#include "kernels/cpu/nn/gemm_naive.h"

namespace loom {
namespace nn {
namespace {

class MatMulKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return dtype_ == DType::kFloat32 ? GemmF32ScratchBytes(num_threads) : 0;
  }
  Status Run(const KernelArgs& args) const override;

 private:
  template <typename T> void RunInt(const KernelArgs& args) const;

  DType dtype_ = DType::kFloat32;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  // One entry per GEMM to run: element offsets of its A and B matrices (the
  // output of GEMM i starts at i * m_ * n_).
  std::vector<int64_t> a_offset_, b_offset_;
  int64_t fold_ = 1;  // A batches folded into M (B shared by all of them)
  Activation act_;
  PackedMatrixF32 packed_b_;
};

Status MatMulKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() != 2 || !setup.HasInput(0) || !setup.HasInput(1))
    return setup.Invalid("expects 2 inputs, got " + std::to_string(setup.inputs.size()));
  if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
  const TensorInfo& a = setup.inputs[0];
  const TensorInfo& b = setup.inputs[1];
  dtype_ = a.dtype;
  switch (dtype_) {
    case DType::kFloat32: case DType::kFloat64: case DType::kInt32: case DType::kInt64:
    case DType::kUInt32: case DType::kUInt64:
      break;
    default:
      return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
  }
  if (b.dtype != dtype_)
    return setup.Invalid(std::string("B has dtype ") + DTypeName(b.dtype) + ", expected " + DTypeName(dtype_));
  if (a.rank() < 1 || b.rank() < 1) return setup.Invalid("inputs must have at least 1 dim (got scalars)");
  Shape as = a.shape, bs = b.shape;
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  m_ = as[as.size() - 2];
  k_ = as.back();
  n_ = bs.back();
  if (bs[bs.size() - 2] != k_)
    return setup.Invalid("inner dims differ: A " + ShapeToString(a.shape) + ", B " + ShapeToString(b.shape));
  // Broadcast the batch dims.
  const size_t ab = as.size() - 2, bb = bs.size() - 2, rank = std::max(ab, bb);
  Shape batch(rank), a_batch(rank, 1), b_batch(rank, 1);
  for (size_t i = 0; i < ab; ++i) a_batch[rank - ab + i] = as[i];
  for (size_t i = 0; i < bb; ++i) b_batch[rank - bb + i] = bs[i];
  for (size_t i = 0; i < rank; ++i) {
    if (a_batch[i] != b_batch[i] && a_batch[i] != 1 && b_batch[i] != 1)
      return setup.Invalid("batch dims do not broadcast: A " + ShapeToString(a.shape) + ", B " +
                           ShapeToString(b.shape));
    batch[i] = a_batch[i] == 1 ? b_batch[i] : a_batch[i];
  }
  Shape out_shape = batch;
  if (!a_vec) out_shape.push_back(m_);
  if (!b_vec) out_shape.push_back(n_);
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, out_shape));
  RETURN_IF_ERROR(ParseActivation(setup, &act_));
  if (!act_.none() && dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("fused activation on dtype ") + DTypeName(dtype_));

  const int64_t total = NumElements(batch);
  bool b_shared = true;
  for (int64_t d : b_batch) b_shared = b_shared && d == 1;
  a_offset_.clear();
  b_offset_.clear();
  if (b_shared) {
    // B is one matrix; A's batches (contiguous) become rows of one GEMM.
    fold_ = total;
    a_offset_.push_back(0);
    b_offset_.push_back(0);
  } else {
    fold_ = 1;
    std::vector<int64_t> idx(rank, 0);
    for (int64_t t = 0; t < total; ++t) {
      int64_t ao = 0, bo = 0, astr = m_ * k_, bstr = k_ * n_;
      for (size_t i = rank; i-- > 0;) {
        if (a_batch[i] != 1) ao += idx[i] * astr;
        if (b_batch[i] != 1) bo += idx[i] * bstr;
        astr *= a_batch[i];
        bstr *= b_batch[i];
      }
      a_offset_.push_back(ao);
      b_offset_.push_back(bo);
      for (size_t i = rank; i-- > 0;) {
        if (++idx[i] < batch[i]) break;
        idx[i] = 0;
      }
    }
  }
  if (dtype_ == DType::kFloat32 && b.const_data && b_shared && total > 0)
    packed_b_.PackB(static_cast<const float*>(b.const_data), n_, false, k_, n_);
  return Status::Ok();
}

template <typename T>
void MatMulKernel::RunInt(const KernelArgs& args) const {
  const T* a = args.in<T>(0);
  const T* b = args.in<T>(1);
  T* y = args.out<T>(0);
  for (size_t t = 0; t < a_offset_.size(); ++t)
    NaiveMatMul<T>(m_ * fold_, n_, k_, a + a_offset_[t], k_, false, b + b_offset_[t], n_, false,
                   y + static_cast<int64_t>(t) * m_ * fold_ * n_, n_);
}

Status MatMulKernel::Run(const KernelArgs& args) const {
  switch (dtype_) {
    case DType::kFloat32: {
      const float* a = args.in<float>(0);
      const float* b = args.in<float>(1);
      float* y = args.out<float>(0);
      for (size_t t = 0; t < a_offset_.size(); ++t) {
        GemmF32Params p;
        p.m = m_ * fold_;
        p.n = n_;
        p.k = k_;
        p.a = a + a_offset_[t];
        p.lda = k_;
        if (!packed_b_.empty()) {
          p.packed_b = &packed_b_;
        } else {
          p.b = b + b_offset_[t];
          p.ldb = n_;
        }
        p.c = y + static_cast<int64_t>(t) * p.m * n_;
        p.ldc = n_;
        p.act = act_;
        GemmF32(p, args.scratch, args.pool);
      }
      break;
    }
    case DType::kFloat64: {
      const double* a = args.in<double>(0);
      const double* b = args.in<double>(1);
      double* y = args.out<double>(0);
      for (size_t t = 0; t < a_offset_.size(); ++t) {
        GemmF64Params p;
        p.m = m_ * fold_;
        p.n = n_;
        p.k = k_;
        p.a = a + a_offset_[t];
        p.lda = k_;
        p.b = b + b_offset_[t];
        p.ldb = n_;
        p.c = y + static_cast<int64_t>(t) * p.m * n_;
        p.ldc = n_;
        p.act = act_;
        GemmF64(p, args.pool);
      }
      break;
    }
    case DType::kInt32: RunInt<int32_t>(args); break;
    case DType::kInt64: RunInt<int64_t>(args); break;
    case DType::kUInt32: RunInt<uint32_t>(args); break;
    case DType::kUInt64: RunInt<uint64_t>(args); break;
    default: break;
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeMatMulKernel() { return std::make_unique<MatMulKernel>(); }

}  // namespace nn
}  // namespace loom
