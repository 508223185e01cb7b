// MatMulInteger: Y = (A - a_zero_point) x (B - b_zero_point) in int32, A and B
// uint8 or int8 (independently), with MatMul's numpy semantics (1-D operands,
// broadcast batch dims). a_zero_point is per tensor or per row of A (M
// values), b_zero_point per tensor or per column of B (N values). Validation
// and the algorithm are the integer matrix-product core's (int_matmul.h); the
// accumulators are the outputs.
#include <memory>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/quant/int_matmul.h"

namespace loom {
namespace quant {
namespace {

class MatMulIntegerKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 2, 4, 1, 1));
    Shape out_shape;
    RETURN_IF_ERROR(matmul_.Prepare(setup, IntMatMulInputs(), &out_shape));
    return CheckOutput(setup, 0, DType::kInt32, out_shape);
  }
  size_t ScratchBytes(int num_threads) const override { return matmul_.ScratchBytes(num_threads); }
  Status Run(const KernelArgs& args) const override {
    int32_t* y = args.out<int32_t>(0);
    matmul_.Run(args, static_cast<char*>(args.scratch),
                [y](int64_t, int64_t, int64_t index, int32_t acc) { y[index] = acc; });
    return Status::Ok();
  }

 private:
  IntMatMul matmul_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulIntegerKernel() { return std::make_unique<MatMulIntegerKernel>(); }

}  // namespace quant
}  // namespace loom
