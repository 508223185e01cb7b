// int8 Gemm: Y = A · op(B) + C with A int8 [M, K] (per tensor), B a constant
// symmetric int8 weight matrix ([K, N], or [N, K] with transB = 1, scales per
// output column), C the int32 bias [N] or [1, N] (README.md's contract), and a
// fused Relu or Clip as the output clamp. transA, and alpha or beta other
// than 1, are Unsupported. Runs on FullyConnectedS8 (B packed once).
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/fully_connected.h"
#include "kernels/cpu/int8/linear_output.h"

namespace loom {
namespace int8 {
namespace {

class GemmKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override;
  size_t ScratchBytes(int num_threads) const override { return fc_.ScratchBytes(num_threads); }
  Status Run(const KernelArgs& args) const override {
    fc_.Run(args.in<int8_t>(0), args.in<int32_t>(2), args.out<int8_t>(0), args.scratch, args.pool);
    return Status::Ok();
  }

 private:
  FullyConnectedS8 fc_;
};

Status GemmKernel::Prepare(const KernelSetup& setup) {
  // First, cheaply: a float node falls through to the float kernels.
  if (!setup.HasInput(0)) return setup.Invalid("missing input A");
  ActQuant aq;
  RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input A", &aq));
  RETURN_IF_ERROR(CheckNode(setup, 2, 3, 1, 1));
  const TensorInfo& a = setup.inputs[0];
  const TensorInfo& b = setup.inputs[1];
  if (a.rank() != 2 || b.rank() != 2)
    return setup.Invalid("A and B must be 2-D, got " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape));
  int64_t trans_a = 0, trans_b = 0;
  float alpha = 1.f, beta = 1.f;
  RETURN_IF_ERROR(ReadIntAttr(setup, "transA", 0, &trans_a));
  RETURN_IF_ERROR(ReadIntAttr(setup, "transB", 0, &trans_b));
  RETURN_IF_ERROR(ReadFloatAttr(setup, "alpha", 1.f, &alpha));
  RETURN_IF_ERROR(ReadFloatAttr(setup, "beta", 1.f, &beta));
  if (trans_a != 0) return setup.Unsupported("transA = " + std::to_string(trans_a) + " on int8");
  if (alpha != 1.f || beta != 1.f)
    return setup.Unsupported("alpha " + std::to_string(alpha) + " and beta " + std::to_string(beta) +
                             " on int8 (both must be 1)");
  const bool transposed = trans_b != 0;
  const int64_t m = a.shape[0], k = a.shape[1];
  const int64_t n = transposed ? b.shape[0] : b.shape[1];
  const int64_t kb = transposed ? b.shape[1] : b.shape[0];
  if (kb != k)
    return setup.Invalid("inner dims differ: A is " + ShapeToString(a.shape) + ", op(B) is " + std::to_string(kb) +
                         "x" + std::to_string(n));
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, {m, n}));
  LinearSpec spec;
  spec.weight_axis = transposed ? 0 : 1;
  spec.channels = n;
  spec.bias_may_be_row = true;
  std::vector<requant::OutputStage> stages;
  RETURN_IF_ERROR(MakeLinearOutputStages(setup, spec, aq, &stages));
  if (k > kGemmS8MaxDepth)
    return setup.Unsupported("inner dim " + std::to_string(k) + " (above " + std::to_string(kGemmS8MaxDepth) + ")");
  fc_.Prepare(static_cast<const int8_t*>(b.const_data), transposed, m, k, n, stages);
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeGemmKernel() { return std::make_unique<GemmKernel>(); }

}  // namespace int8
}  // namespace loom
