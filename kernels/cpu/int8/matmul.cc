// int8 MatMul: Y = A · B + bias with A int8 [..., K] (per tensor, any batch
// dims, which fold into rows), B a constant symmetric int8 2-D weight matrix
// [K, N] (scales per column, axis 1), and the int32 bias [N] as a Loom
// extension: an optional third input, which the int8 contract requires
// (README.md). A fused Relu or Clip is the output clamp. Runs on
// FullyConnectedS8 (B packed once).
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/cpu/int8/fully_connected.h"
#include "kernels/cpu/int8/linear_output.h"

namespace loom {
namespace int8 {
namespace {

class MatMulKernel final : public Kernel {
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

Status MatMulKernel::Prepare(const KernelSetup& setup) {
  // First, cheaply: a float node falls through to the float kernels.
  if (!setup.HasInput(0)) return setup.Invalid("missing input A");
  ActQuant aq;
  RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input A", &aq));
  RETURN_IF_ERROR(CheckNode(setup, 2, 3, 1, 1));
  if (setup.attrs.GetInt("loom.trans_b", 0) != 0) return setup.Unsupported("loom.trans_b on int8");
  const TensorInfo& a = setup.inputs[0];
  const TensorInfo& b = setup.inputs[1];
  if (b.rank() != 2) return setup.Unsupported("B of shape " + ShapeToString(b.shape) + " on int8 (B must be 2-D)");
  MatMulShape shape;
  RETURN_IF_ERROR(PlanMatMul(setup, a.shape, b.shape, &shape));
  RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, shape.output));
  LinearSpec spec;
  spec.weight_axis = 1;
  spec.channels = shape.n;
  std::vector<requant::OutputStage> stages;
  RETURN_IF_ERROR(MakeLinearOutputStages(setup, spec, aq, &stages));
  if (shape.k > kGemmS8MaxDepth)
    return setup.Unsupported("inner dim " + std::to_string(shape.k) + " (above " + std::to_string(kGemmS8MaxDepth) +
                             ")");
  // B has no batch dims, so every batch of A folds into one [m · fold, k] GEMM.
  fc_.Prepare(static_cast<const int8_t*>(b.const_data), false, shape.batches * shape.m, shape.k, shape.n, stages);
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> MakeMatMulKernel() { return std::make_unique<MatMulKernel>(); }

}  // namespace int8
}  // namespace loom
