// Gemm: Y = alpha * op(A) * op(B) + beta * C, C optional and broadcast
// unidirectionally to [M, N]. float32 runs on the GEMM core with a constant B
// packed once (transB folded in); a C of shape [N] / [1, N] with beta 1 is the
// GEMM's column bias, any other C is broadcast into Y first and scaled by beta
// in the GEMM's store. float64 uses the double GEMM, integer dtypes a plain
// loop. Loom's fused activation applies to floats.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/nn/activation_epilogue.h"
#include "kernels/cpu/nn/gemm_f32.h"
#include "kernels/cpu/nn/gemm_naive.h"

namespace loom {
namespace nn {
namespace {

class GemmKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override {
    return dtype_ == DType::kFloat32 ? GemmF32ScratchBytes(num_threads) : 0;
  }
  Status Run(const KernelArgs& args) const override;
  // The packed constant B, which a plan may store (kernel.h).
  std::vector<DerivedConstant> DerivedConstants() const override;
  bool ReadsConstantInput(size_t i) const override { return !(i == 1 && b_derived_); }

 private:
  // Y[i][j] = C[i % c_rows_][j % c_cols_] (C broadcast to M x N).
  template <typename T> void BroadcastC(const T* c, T* y) const;
  template <typename T> void RunInt(const KernelArgs& args) const;

  DType dtype_ = DType::kFloat32;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1.f, beta_ = 1.f;
  bool use_c_ = false;       // C present and beta != 0
  bool c_as_bias_ = false;   // C is a row vector used as the column bias
  int64_t c_rows_ = 1, c_cols_ = 1;
  Activation act_;
  PackedMatrixF32 packed_b_;
  std::string derived_key_;
  size_t derived_bytes_ = 0;
  bool b_derived_ = false;  // packed_b_ is the plan's derived constant: B is never read
};

Status GemmKernel::Prepare(const KernelSetup& setup) {
  b_derived_ = false;
  if (setup.inputs.size() < 2 || setup.inputs.size() > 3 || !setup.HasInput(0) || !setup.HasInput(1))
    return setup.Invalid("expects inputs A, B and optional C, got " + std::to_string(setup.inputs.size()));
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
  if (a.rank() != 2 || b.rank() != 2)
    return setup.Invalid("A and B must be 2-D, got " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape));
  int64_t trans_a = 0, trans_b = 0;
  RETURN_IF_ERROR(ReadIntAttr(setup, "transA", 0, &trans_a));
  RETURN_IF_ERROR(ReadIntAttr(setup, "transB", 0, &trans_b));
  RETURN_IF_ERROR(ReadFloatAttr(setup, "alpha", 1.f, &alpha_));
  RETURN_IF_ERROR(ReadFloatAttr(setup, "beta", 1.f, &beta_));
  trans_a_ = trans_a != 0;
  trans_b_ = trans_b != 0;
  m_ = trans_a_ ? a.shape[1] : a.shape[0];
  k_ = trans_a_ ? a.shape[0] : a.shape[1];
  n_ = trans_b_ ? b.shape[0] : b.shape[1];
  const int64_t kb = trans_b_ ? b.shape[1] : b.shape[0];
  if (kb != k_)
    return setup.Invalid("inner dims differ: op(A) is " + std::to_string(m_) + "x" + std::to_string(k_) +
                         ", op(B) is " + std::to_string(kb) + "x" + std::to_string(n_));
  use_c_ = false;
  c_as_bias_ = false;
  if (setup.HasInput(2)) {
    const TensorInfo& c = setup.inputs[2];
    if (c.dtype != dtype_) return setup.Invalid(std::string("C has dtype ") + DTypeName(c.dtype));
    if (c.rank() > 2) return setup.Invalid("C has " + std::to_string(c.rank()) + " dims, expected at most 2");
    Shape cs = c.shape;
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    if ((cs[0] != 1 && cs[0] != m_) || (cs[1] != 1 && cs[1] != n_))
      return setup.Invalid("C of shape " + ShapeToString(c.shape) + " does not broadcast to " + std::to_string(m_) +
                           "x" + std::to_string(n_));
    c_rows_ = cs[0];
    c_cols_ = cs[1];
    use_c_ = beta_ != 0.f;
    c_as_bias_ = use_c_ && dtype_ == DType::kFloat32 && beta_ == 1.f && c_rows_ == 1 && c_cols_ == n_;
  }
  RETURN_IF_ERROR(CheckOutput(setup, 0, dtype_, {m_, n_}));
  RETURN_IF_ERROR(ParseActivation(setup, &act_));
  if (!act_.none() && dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
    return setup.Unsupported(std::string("fused activation on dtype ") + DTypeName(dtype_));
  packed_b_ = PackedMatrixF32();
  derived_key_.clear();
  if (dtype_ == DType::kFloat32 && b.const_data && setup.pack_constants) {
    // PackB's layout is the first matrix of AllocateManyB's.
    derived_key_ = "gemm.b " + PackedMatrixF32::LayoutKeyManyB(1, k_, n_) + (trans_b_ ? " from B^T" : "");
    derived_bytes_ = PackedMatrixF32::FloatsB(k_, n_) * sizeof(float);
    if (const void* derived = setup.FindDerived(derived_key_, derived_bytes_)) {
      packed_b_ = PackedMatrixF32::ViewManyB(static_cast<const float*>(derived), 1, k_, n_)[0];
      b_derived_ = true;
    } else {
      packed_b_.PackB(static_cast<const float*>(b.const_data), b.shape[1], trans_b_, k_, n_);
    }
  }
  return Status::Ok();
}

std::vector<DerivedConstant> GemmKernel::DerivedConstants() const {
  if (packed_b_.empty()) return {};
  return {{derived_key_, packed_b_.data(), derived_bytes_}};
}

template <typename T>
void GemmKernel::BroadcastC(const T* c, T* y) const {
  for (int64_t i = 0; i < m_; ++i) {
    const T* src = c + (c_rows_ == 1 ? 0 : i) * c_cols_;
    T* dst = y + i * n_;
    if (c_cols_ == 1) {
      for (int64_t j = 0; j < n_; ++j) dst[j] = src[0];
    } else {
      for (int64_t j = 0; j < n_; ++j) dst[j] = src[j];
    }
  }
}

template <typename T>
void GemmKernel::RunInt(const KernelArgs& args) const {
  const T* a = args.in<T>(0);
  const T* b = args.in<T>(1);
  T* y = args.out<T>(0);
  NaiveMatMul<T>(m_, n_, k_, a, trans_a_ ? m_ : k_, trans_a_, b, trans_b_ ? k_ : n_, trans_b_, y, n_);
  const T* c = use_c_ ? args.in<T>(2) : nullptr;
  using U = std::make_unsigned_t<T>;
  const bool int_scalars = std::fabs(alpha_) < 1e18f && std::fabs(beta_) < 1e18f &&
                           alpha_ == std::trunc(alpha_) && beta_ == std::trunc(beta_);
  const U ia = static_cast<U>(int_scalars ? static_cast<int64_t>(alpha_) : 0);
  const U ib = static_cast<U>(int_scalars ? static_cast<int64_t>(beta_) : 0);
  for (int64_t i = 0; i < m_; ++i)
    for (int64_t j = 0; j < n_; ++j) {
      T& v = y[i * n_ + j];
      const T cv = c ? c[(c_rows_ == 1 ? 0 : i) * c_cols_ + (c_cols_ == 1 ? 0 : j)] : T(0);
      if (int_scalars) {
        v = static_cast<T>(static_cast<U>(ia * static_cast<U>(v) + ib * static_cast<U>(cv)));
      } else {
        // Non-integral alpha/beta: compute in double, saturate to T's range.
        double d = static_cast<double>(alpha_) * static_cast<double>(v) +
                   static_cast<double>(beta_) * static_cast<double>(cv);
        const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        d = std::isnan(d) ? 0.0 : (d < lo ? lo : (d >= hi ? hi : d));
        v = d >= hi ? std::numeric_limits<T>::max() : static_cast<T>(d);
      }
    }
}

Status GemmKernel::Run(const KernelArgs& args) const {
  switch (dtype_) {
    case DType::kFloat32: {
      float* y = args.out<float>(0);
      GemmF32Params p;
      p.m = m_;
      p.n = n_;
      p.k = k_;
      p.alpha = alpha_;
      p.a = args.in<float>(0);
      p.lda = trans_a_ ? m_ : k_;
      p.trans_a = trans_a_;
      if (!packed_b_.empty()) {
        p.packed_b = &packed_b_;
      } else {
        p.b = args.in<float>(1);
        p.ldb = trans_b_ ? k_ : n_;
        p.trans_b = trans_b_;
      }
      p.c = y;
      p.ldc = n_;
      p.act = act_;
      if (c_as_bias_) {
        p.col_bias = args.in<float>(2);
      } else if (use_c_) {
        BroadcastC(args.in<float>(2), y);
        p.beta = beta_;
      }
      GemmF32(p, args.scratch, args.pool);
      break;
    }
    case DType::kFloat64: {
      double* y = args.out<double>(0);
      GemmF64Params p;
      p.m = m_;
      p.n = n_;
      p.k = k_;
      p.alpha = alpha_;
      p.a = args.in<double>(0);
      p.lda = trans_a_ ? m_ : k_;
      p.trans_a = trans_a_;
      p.b = args.in<double>(1);
      p.ldb = trans_b_ ? k_ : n_;
      p.trans_b = trans_b_;
      p.c = y;
      p.ldc = n_;
      p.act = act_;
      if (use_c_) {
        BroadcastC(args.in<double>(2), y);
        p.beta = beta_;
      }
      GemmF64(p, args.pool);
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

std::unique_ptr<Kernel> MakeGemmKernel() { return std::make_unique<GemmKernel>(); }

}  // namespace nn
}  // namespace loom
