#include "kernels/cpu/math/unary_kernel.h"

namespace loom {
namespace math {

const UnaryOpDef* FindUnaryOp(const UnaryOpDef* table, size_t table_size, const std::string& op) {
  for (size_t i = 0; i < table_size; ++i)
    if (op == table[i].op) return &table[i];
  return nullptr;
}

Status UnaryKernel::Prepare(const KernelSetup& setup) {
  const UnaryOpDef* def = FindUnaryOp(table_, table_size_, setup.op);
  if (!def) return setup.Unsupported("op is not an elementwise unary op");
  RETURN_IF_ERROR(CheckNode(setup, 1, 1, 1, 1));
  const TensorInfo& x = setup.inputs[0];
  loop_ = def->select(x.dtype);
  if (!loop_) return UnsupportedDType(setup, "input X", x.dtype);
  RETURN_IF_ERROR(CheckOutput(setup, 0, def->bool_output ? DType::kBool : x.dtype, x.shape));
  params_ = UnaryParams();
  if (def->parse) RETURN_IF_ERROR(def->parse(setup, &params_));
  size_ = x.num_elements();
  in_elem_ = DTypeSize(x.dtype);
  out_elem_ = DTypeSize(setup.outputs[0].dtype);
  return Status::Ok();
}

Status UnaryKernel::Run(const KernelArgs& args) const {
  const auto* x = static_cast<const uint8_t*>(args.inputs[0]);
  auto* y = static_cast<uint8_t*>(args.outputs[0]);
  ParallelFor(args.pool, size_, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
    loop_(x + begin * in_elem_, y + begin * out_elem_, end - begin, params_);
  });
  return Status::Ok();
}

Status UnaryKernel::InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const {
  if (setup.inputs.empty() || !setup.inputs[0].present) return setup.Invalid("missing input X");
  shapes->assign(1, setup.inputs[0].shape);
  return Status::Ok();
}

}  // namespace math
}  // namespace loom
