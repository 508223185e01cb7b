// int8 Gemm: Y = A · op(B) + C with A int8 [M, K] (per tensor), B a constant
// symmetric int8 weight matrix ([K, N], or [N, K] with transB = 1, scales per
// output column), C the int32 bias [N] or [1, N] (README.md's contract), and a
// fused Relu or Clip as the output clamp. transA, and alpha or beta other
// than 1, are Unsupported. Runs on FullyConnectedS8 (B packed once).
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/fully_connected.h"
#include "kernels/cpu/int8/gemm_operands.h"
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
  GemmOperands g;
  RETURN_IF_ERROR(ReadGemmOperands(setup, &g));
  std::vector<requant::OutputStage> stages;
  RETURN_IF_ERROR(MakeLinearOutputStages(setup, g.spec, aq, &stages));
  if (g.k > kGemmS8MaxDepth)
    return setup.Unsupported("inner dim " + std::to_string(g.k) + " (above " + std::to_string(kGemmS8MaxDepth) + ")");
  fc_.Prepare(static_cast<const int8_t*>(setup.inputs[1].const_data), g.trans_b, g.m, g.k, g.n, stages);
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeGemmKernel() { return std::make_unique<GemmKernel>(); }

}  // namespace int8
}  // namespace loom
