// MatMul with numpy semantics (the shapes and the list of GEMMs come from
// kernels/common/matmul_shape.h). float32 runs on the GEMM core, with a
// constant B packed once in Prepare. float64 uses the double GEMM, the
// integer dtypes a plain loop. For floats, Loom extensions the graph passes
// set: an optional third input, a bias [N] added to every output row in the
// GEMM epilogue (before the fused activation); `loom.trans_b` = 1, B (of rank
// >= 2) holds its matrices transposed ([..., N, K]).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/common/matmul_shape.h"
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
  bool has_bias_ = false;
  bool trans_b_ = false;
  Activation act_;
  PackedMatrixF32 packed_b_;
};

Status MatMulKernel::Prepare(const KernelSetup& setup) {
  if (setup.inputs.size() < 2 || setup.inputs.size() > 3 || !setup.HasInput(0) || !setup.HasInput(1))
    return setup.Invalid("expects 2 or 3 inputs, got " + std::to_string(setup.inputs.size()));
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
  const bool is_float = dtype_ == DType::kFloat32 || dtype_ == DType::kFloat64;
  trans_b_ = setup.attrs.GetInt("loom.trans_b", 0) != 0;
  has_bias_ = setup.HasInput(2);
  if ((trans_b_ || has_bias_) && !is_float)
    return setup.Unsupported(std::string("bias or loom.trans_b on dtype ") + DTypeName(dtype_));
  Shape b_shape = b.shape;
  if (trans_b_) {
    if (b_shape.size() < 2) return setup.Invalid("loom.trans_b with B of shape " + ShapeToString(b.shape));
    std::swap(b_shape[b_shape.size() - 1], b_shape[b_shape.size() - 2]);
  }
  MatMulShape shape;
  RETURN_IF_ERROR(PlanMatMul(setup, a.shape, b_shape, &shape));
  if (has_bias_) {
    const TensorInfo& bias = setup.inputs[2];
    if (bias.dtype != dtype_ || bias.rank() != 1 || bias.shape[0] != shape.n)
      return setup.Invalid("bias is " + std::string(DTypeName(bias.dtype)) + " " + ShapeToString(bias.shape) +
                           ", expected " + DTypeName(dtype_) + " [" + std::to_string(shape.n) + "]");
  }
  m_ = shape.m;
  k_ = shape.k;
  n_ = shape.n;
  fold_ = shape.fold;
  a_offset_ = shape.a_offset;
  b_offset_ = shape.b_offset;
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, shape.output));
  RETURN_IF_ERROR(ParseActivation(setup, &act_));
  if (!act_.none() && dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("fused activation on dtype ") + DTypeName(dtype_));
  if (dtype_ == DType::kFloat32 && b.const_data && setup.pack_constants && shape.b_matrices == 1 && shape.batches > 0)
    packed_b_.PackB(static_cast<const float*>(b.const_data), trans_b_ ? k_ : n_, trans_b_, k_, n_);
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
      const float* bias = has_bias_ ? args.in<float>(2) : nullptr;
      float* y = args.out<float>(0);
      // Several products (attention heads): split them over the threads,
      // each run serially on its thread's scratch, when they divide evenly
      // or are many; one product at a time split inside the GEMM otherwise.
      const int threads = args.pool ? args.pool->NumThreads() : 1;
      const int64_t batches = static_cast<int64_t>(a_offset_.size());
      const bool split_batches = threads > 1 && batches > 1 && (batches % threads == 0 || batches >= 4 * threads);
      auto run_batch = [&](int64_t t, void* scratch, ThreadPool* pool) {
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
          p.ldb = trans_b_ ? k_ : n_;
          p.trans_b = trans_b_;
        }
        p.c = y + static_cast<int64_t>(t) * p.m * n_;
        p.ldc = n_;
        p.col_bias = bias;
        p.act = act_;
        GemmF32(p, scratch, pool);
      };
      if (split_batches) {
        ParallelFor(args.pool, batches, 1, [&](int64_t begin, int64_t end, int thread) {
          void* scratch = static_cast<char*>(args.scratch) + static_cast<size_t>(thread) * GemmF32ScratchBytes(1);
          for (int64_t t = begin; t < end; ++t) run_batch(t, scratch, nullptr);
        });
      } else {
        for (int64_t t = 0; t < batches; ++t) run_batch(t, args.scratch, args.pool);
      }
      break;
    }
    case DType::kFloat64: {
      const double* a = args.in<double>(0);
      const double* b = args.in<double>(1);
      const double* bias = has_bias_ ? args.in<double>(2) : nullptr;
      double* y = args.out<double>(0);
      for (size_t t = 0; t < a_offset_.size(); ++t) {
        GemmF64Params p;
        p.m = m_ * fold_;
        p.n = n_;
        p.k = k_;
        p.a = a + a_offset_[t];
        p.lda = k_;
        p.b = b + b_offset_[t];
        p.ldb = trans_b_ ? k_ : n_;
        p.trans_b = trans_b_;
        p.c = y + static_cast<int64_t>(t) * p.m * n_;
        p.ldc = n_;
        p.col_bias = bias;
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
