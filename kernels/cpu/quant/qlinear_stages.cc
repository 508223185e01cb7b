#include "kernels/cpu/quant/qlinear_stages.h"

#include "kernels/cpu/quant/int_dot.h"

namespace loom {
namespace quant {

Status CheckScaleDType(const KernelSetup& s, size_t index, const char* name) {
  const DType t = s.inputs[index].dtype;
  if (t == DType::kFloat32) return Status::Ok();
  if (t == DType::kFloat16 || t == DType::kBFloat16)
    return s.Unsupported(std::string(name) + " of dtype " + DTypeName(t));
  return s.Invalid(std::string(name) + " has dtype " + DTypeName(t) + ", expected float32");
}

Status CheckPerTensor(const KernelSetup& s, size_t index, const char* name) {
  const TensorInfo& t = s.inputs[index];
  if (t.rank() > 1 || t.num_elements() != 1)
    return s.Invalid(std::string(name) + " has shape " + ShapeToString(t.shape) + ", expected a scalar (per tensor)");
  return Status::Ok();
}

Status OutputStages::Prepare(const KernelSetup& s, const OutputStageInputs& in, int64_t a_count, int64_t b_count) {
  in_ = in;
  a_count_ = a_count;
  b_count_ = b_count;
  RETURN_IF_ERROR(CheckScaleDType(s, in.a_scale, in.a_name));
  RETURN_IF_ERROR(CheckScaleDType(s, in.b_scale, in.b_name));
  RETURN_IF_ERROR(CheckScaleDType(s, in.y_scale, "y_scale"));
  RETURN_IF_ERROR(CheckPerTensor(s, in.y_scale, "y_scale"));
  RETURN_IF_ERROR(CheckPerTensor(s, in.y_zero_point, "y_zero_point"));
  RETURN_IF_ERROR(CheckInt8Operand(s, in.y_zero_point, "y_zero_point"));
  y_signed_ = s.inputs[in.y_zero_point].dtype == DType::kInt8;
  stages_.clear();
  const void* a = s.inputs[in.a_scale].const_data;
  const void* b = s.inputs[in.b_scale].const_data;
  const void* y = s.inputs[in.y_scale].const_data;
  const void* zp = s.inputs[in.y_zero_point].const_data;
  if (a && b && y && zp) {
    stages_.resize(static_cast<size_t>(a_count * b_count));
    RETURN_IF_ERROR(Fill(static_cast<const float*>(a), static_cast<const float*>(b), static_cast<const float*>(y),
                         zp, stages_.data()));
  }
  return Status::Ok();
}

Status OutputStages::Compute(const KernelArgs& args, void* scratch, const requant::OutputStage** stages) const {
  if (!stages_.empty()) {
    *stages = stages_.data();
    return Status::Ok();
  }
  auto* out = static_cast<requant::OutputStage*>(scratch);
  RETURN_IF_ERROR(Fill(args.in<float>(in_.a_scale), args.in<float>(in_.b_scale), args.in<float>(in_.y_scale),
                       args.inputs[in_.y_zero_point], out));
  *stages = out;
  return Status::Ok();
}

Status OutputStages::Fill(const float* a_scale, const float* b_scale, const float* y_scale, const void* y_zero_point,
                          requant::OutputStage* out) const {
  const int32_t zp = Load8(y_zero_point, y_signed_, 0);
  const requant::Range range = {y_signed_ ? -128 : 0, y_signed_ ? 127 : 255};
  for (int64_t i = 0; i < a_count_; ++i) {
    for (int64_t j = 0; j < b_count_; ++j) {
      const Status st = requant::MakeOutputStage(a_scale[i], b_scale[j], y_scale[0], zp, range, &out[i * b_count_ + j]);
      if (!st.ok()) {
        auto name = [](const char* n, int64_t count, int64_t k) {
          return std::string(n) + (count == 1 ? "" : "[" + std::to_string(k) + "]");
        };
        return Status::InvalidArgument(name(in_.a_name, a_count_, i) + " * " + name(in_.b_name, b_count_, j) +
                                       " / y_scale: " + st.message());
      }
    }
  }
  return Status::Ok();
}

}  // namespace quant
}  // namespace loom
